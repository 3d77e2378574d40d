package dev.loopflow.core.fork;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ForkEdits;
import dev.loopflow.core.run.ForkPlan;
import dev.loopflow.core.run.ForkPoint;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.NodeProgram;
import dev.loopflow.core.store.NodeExecution;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Forks: a new run that reuses what its origin journaled before a loop pass or a node, applies edits there and
 * executes the rest. The {@code call} kind stands for a paid model call: it counts how often it really runs.
 */
class ForkTest {
  private final AtomicInteger calls = new AtomicInteger();
  private final Loopflow engine = Loopflow.builder().handler(new NodeHandler() {
    @Override
    public NodeKindSpec spec() {
      return NodeKindSpec.of("call", null, List.of(FieldSpec.any("say", null)));
    }

    @Override
    public NodeProgram compile(NodeConfig config) {
      return ctx -> NodeOutcome.of("reply " + calls.incrementAndGet());
    }
  }).build();

  private static final String GROUP = """
      name: drafts
      nodes:
        - id: prepare
          type: call
        - id: refine
          depends_on: [prepare]
          loop_group:
            max_iterations: 4
            nodes:
              - id: draft
                type: call
      output: "{{ refine.output }}"
      """;

  private static final String COUNTER = """
      name: counter
      nodes:
        - id: count_loop
          type: while_loop
          max_iterations: 10
          condition: "state.count < 5"
          body:
            - id: increment
              run: |
                return { count = state.count + 1 }
      """;

  private RunResult origin(String yaml, Map<String, Object> inputs) {
    Workflow wf = engine.parse(yaml, "wf.yaml");
    return engine.run(wf, RunOptions.builder().inputs(inputs).build());
  }

  @Test
  void forkAtPassThreeOfAFourPassGroupRunsOnlyPassesThreeAndFour() throws Exception {
    RunResult first = origin(GROUP, Map.of());
    assertThat(first.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(calls.get()).isEqualTo(5); // prepare + 4 drafts

    RunResult fork = engine.fork(first.runId(), ForkPoint.parse("refine:3"), ForkEdits.NONE,
        RunOptions.defaults()).await();

    assertThat(fork.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(calls.get()).as("only passes 3 and 4 executed").isEqualTo(7);
    assertThat(fork.output()).isEqualTo("reply 7");
    assertThat(fork.forkedFrom()).containsEntry("run_id", first.runId()).containsEntry("at", "refine:3");
    assertThat(fork.toJson()).containsKey("forked_from");
    // The fork's journal holds what it executed; the reused part stays in the origin's.
    assertThat(engine.store().nodeExecutions(fork.runId())).extracting(e -> e.position().path())
        .containsExactly("refine[3].draft", "refine[4].draft", "refine");
    assertThat(engine.forks(first.runId())).extracting(r -> r.runId()).containsExactly(fork.runId());
  }

  @Test
  void theReusedPartIsWhatTheOriginHadAndTheRestSeesIt() throws Exception {
    RunResult first = origin(GROUP, Map.of());
    RunResult fork = engine.fork(first.runId(), ForkPoint.parse("refine:2"), ForkEdits.NONE,
        RunOptions.defaults()).await();
    assertThat(fork.nodes().get("prepare")).containsEntry("output", first.nodes().get("prepare").get("output"));
    assertThat(fork.nodes().get("refine")).containsEntry("count", 4);
  }

  @Test
  void aWhileLoopForkedWithAnEditedCounterStopsAtTheEdit() throws Exception {
    RunResult first = origin(COUNTER, Map.of("count", 0));
    assertThat(first.state()).containsEntry("count", 5L);

    RunResult fork = engine.fork(first.runId(), ForkPoint.parse("count_loop:3"),
        ForkEdits.parseSet(List.of("state.count=100"), ForkEdits.builder()).build(), RunOptions.defaults()).await();

    assertThat(fork.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(fork.state()).containsEntry("count", 100);
    assertThat(fork.nodes().get("count_loop")).containsEntry("exit_reason", "condition_false");
  }

  @Test
  void aWhileLoopForkedWithoutEditsEndsAsTheOriginDid() throws Exception {
    RunResult first = origin(COUNTER, Map.of("count", 0));
    RunResult fork = engine.fork(first.runId(), ForkPoint.parse("count_loop:3"), ForkEdits.NONE,
        RunOptions.defaults()).await();
    assertThat(fork.state()).isEqualTo(first.state());
    assertThat(fork.output()).isEqualTo(first.output());
  }

  @Test
  void aForkOfAForkReadsThroughBoth() throws Exception {
    RunResult first = origin(GROUP, Map.of());
    RunResult second = engine.fork(first.runId(), ForkPoint.parse("refine:2"), ForkEdits.NONE,
        RunOptions.defaults()).await();
    int before = calls.get();
    RunResult third = engine.fork(second.runId(), ForkPoint.parse("refine:4"), ForkEdits.NONE,
        RunOptions.defaults()).await();
    assertThat(calls.get() - before).isEqualTo(1);
    assertThat(third.forkedFrom()).containsEntry("run_id", second.runId());
    assertThat(third.status()).isEqualTo(RunStatus.COMPLETED);
  }

  @Test
  void aNodePointReRunsThatNodeWithTheEditedOutputBeforeIt() throws Exception {
    String yaml = """
        name: chain
        nodes:
          - id: a
            type: call
          - id: b
            depends_on: [a]
            type: transform
            template: "b saw {{ a.output }}"
          - id: c
            depends_on: [b]
            type: call
        output: "{{ b.output }} / {{ c.output }}"
        """;
    RunResult first = origin(yaml, Map.of());
    int before = calls.get();
    RunResult fork = engine.fork(first.runId(), ForkPoint.parse("b"),
        ForkEdits.builder().output("a", "edited").build(), RunOptions.defaults()).await();
    assertThat(calls.get() - before).as("a is reused, c runs again").isEqualTo(1);
    assertThat(fork.output()).isEqualTo("b saw edited / reply " + calls.get());
  }

  @Test
  void theDryRunPlanCallsNothingAndNamesWhatIsReusedAndWhatRuns() {
    RunResult first = origin(GROUP, Map.of());
    int before = calls.get();
    ForkPlan plan = engine.planFork(first.runId(), ForkPoint.parse("refine:3"), ForkEdits.NONE);
    assertThat(calls.get()).isEqualTo(before);
    assertThat(plan.reused()).containsExactly("prepare", "refine[1].draft", "refine[2].draft");
    assertThat(plan.maxPasses()).isEqualTo(2);
    assertThat(plan.executes()).first().asString().contains("refine").contains("pass 3");
    assertThat(engine.store().listRuns()).hasSize(1);
  }

  @Test
  void aForkIsAnOrdinaryRunThatPausesAndResumes() throws Exception {
    String yaml = """
        name: gated
        nodes:
          - id: refine
            loop_group:
              max_iterations: 3
              nodes:
                - id: draft
                  type: call
          - id: approve
            depends_on: [refine]
            type: approval
            message: "ship it?"
        output: "{{ refine.output }}"
        """;
    Workflow wf = engine.parse(yaml, "wf.yaml");
    RunResult first = engine.run(wf, RunOptions.defaults());
    assertThat(first.status()).isEqualTo(RunStatus.PAUSED);
    RunResult fork = engine.fork(first.runId(), ForkPoint.parse("refine:3"), ForkEdits.NONE,
        RunOptions.defaults()).await();
    assertThat(fork.status()).isEqualTo(RunStatus.PAUSED);
    int before = calls.get();
    RunResult done = engine.resume(wf, fork.runId(), ResumeInput.approve(null), RunOptions.defaults(), false).await();
    assertThat(done.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(calls.get()).as("nothing reused or done runs again on resume").isEqualTo(before);
    assertThat(done.forkedFrom()).containsEntry("run_id", first.runId());
    assertThat(done.output()).isEqualTo(fork.nodes().get("refine").get("output"));
  }

  @Test
  void refusalsNameWhatIsWrong() {
    RunResult first = origin(GROUP, Map.of());
    List<Object[]> cases = List.of(
        new Object[] {"refine:5", "ran 4 passes of loop 'refine'; fork at a pass from 1 to 4"},
        new Object[] {"nope:1", "ran no pass of loop 'nope'"},
        new Object[] {"missing", "has no execution of node 'missing'"},
        new Object[] {"refine:1/draft:1", "ran no pass of loop 'draft' inside refine:1"});
    for (Object[] c : cases) {
      assertThatThrownBy(() -> engine.planFork(first.runId(), ForkPoint.parse((String) c[0]), ForkEdits.NONE))
          .as((String) c[0]).isInstanceOfSatisfying(LoopflowException.class,
              e -> assertThat(e.code()).isEqualTo(ErrorCode.FORK_REFUSED)).hasMessageContaining((String) c[1]);
    }
    assertThatThrownBy(() -> engine.planFork("run_nope", ForkPoint.parse("refine:1"), ForkEdits.NONE))
        .hasMessageContaining("no run 'run_nope'");
    assertThatThrownBy(() -> engine.planFork(first.runId(), ForkPoint.parse("refine:2"),
        ForkEdits.builder().output("draft_x", 1).build())).hasMessageContaining("node 'draft_x' did not complete");
  }

  @Test
  void anEditedWorkflowMayChangeOnlyWhatRunsFromThePoint() throws Exception {
    RunResult first = origin(GROUP, Map.of());
    Workflow changedLoop = engine.parse(GROUP.replace("max_iterations: 4", "max_iterations: 5"), "wf.yaml");
    RunResult fork = engine.fork(first.runId(), ForkPoint.parse("refine:3"), ForkEdits.NONE, changedLoop,
        RunOptions.defaults()).await();
    assertThat(fork.nodes().get("refine")).containsEntry("count", 5);

    Workflow changedBefore = engine.parse(GROUP.replace("- id: prepare\n    type: call",
        "- id: prepare\n    type: call\n    say: other"), "wf.yaml");
    assertThatThrownBy(() -> engine.fork(first.runId(), ForkPoint.parse("refine:3"), ForkEdits.NONE, changedBefore,
        RunOptions.defaults())).hasMessageContaining("changes node 'prepare'");
  }

  @Test
  void forkPointsAreReadStrictly() {
    assertThat(ForkPoint.parse("outer:2/inner:3")).isEqualTo(new ForkPoint.Pass(List.of(
        new dev.loopflow.core.error.NodePosition.LoopFrame("outer", 2),
        new dev.loopflow.core.error.NodePosition.LoopFrame("inner", 3))));
    assertThat(ForkPoint.parse("node_a")).isEqualTo(new ForkPoint.BeforeNode("node_a"));
    for (String bad : List.of("", " ", "a:0", "a:-1", "a:x", ":3", "a:3/", "/a:3", "a b", "a:3:4", "a\n:3",
        "a:99999999999", "a:3/b", "../x")) {
      assertThatThrownBy(() -> ForkPoint.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void reusedExecutionsAreNotChargedToTheFork() throws Exception {
    RunResult first = origin(GROUP, Map.of());
    RunResult fork = engine.fork(first.runId(), ForkPoint.parse("refine:3"), ForkEdits.NONE,
        RunOptions.defaults()).await();
    List<NodeExecution> own = engine.store().nodeExecutions(fork.runId());
    assertThat(own).noneMatch(e -> e.position().path().startsWith("prepare"));
    assertThat(fork.forkedFrom()).containsKey("reused_usage");
  }

  /** Every loop construct can be forked at a pass: only the passes from the point execute again. */
  @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
  @org.junit.jupiter.params.provider.MethodSource("constructs")
  void everyLoopConstructForksAtAPass(String construct, String yaml, String at, int newCalls) throws Exception {
    RunResult first = origin(yaml, Map.of());
    assertThat(first.status()).as(construct + ": " + first.error()).isEqualTo(RunStatus.COMPLETED);
    int before = calls.get();
    RunResult fork = engine.fork(first.runId(), ForkPoint.parse(at), ForkEdits.NONE, RunOptions.defaults()).await();
    assertThat(fork.status()).as(construct + ": " + fork.error()).isEqualTo(RunStatus.COMPLETED);
    assertThat(calls.get() - before).as(construct).isEqualTo(newCalls);
    assertThat(fork.forkedFrom()).as(construct).containsEntry("at", at);
  }

  static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> constructs() {
    return java.util.stream.Stream.of(
        org.junit.jupiter.params.provider.Arguments.of("loop edge", """
            name: edge
            nodes:
              - id: coder
                type: call
              - id: reviewer
                run: |
                  return { reviews = (state.reviews or 0) + 1 }
            edges:
              - {from: coder, to: reviewer}
              - from: reviewer
                to: coder
                type: loop
                maxIterations: 3
                when: "state.reviews < 3"
            """, "reviewer->coder:2", 2),
        org.junit.jupiter.params.provider.Arguments.of("loop + exit", """
            name: refine
            nodes:
              - id: refine
                type: loop
                input: "start"
                maxIterations: 3
                exitCondition: max_iterations
              - id: draft
                type: call
              - id: refine_exit
                type: exit
            edges:
              - {from: refine, to: draft}
              - {from: draft, to: refine_exit}
            """, "refine:3", 1),
        org.junit.jupiter.params.provider.Arguments.of("iterator", """
            name: each
            input:
              words: {type: array, default: ["a", "b", "c", "d"]}
            nodes:
              - id: each_word
                type: iterator
                items: "{{ input.words }}"
              - id: work
                type: call
              - id: collect
                type: aggregator
            edges:
              - {from: each_word, to: work}
              - {from: work, to: collect}
            """, "each_word:3", 2),
        org.junit.jupiter.params.provider.Arguments.of("nested loop groups", """
            name: nested
            nodes:
              - id: outer
                loop_group:
                  max_iterations: 2
                  nodes:
                    - id: inner
                      loop_group:
                        max_iterations: 3
                        nodes:
                          - id: work
                            type: call
            """, "outer:2/inner:2", 2));
  }

  @Test
  void hostileEditsAreRefusedBeforeAnythingStarts() {
    List<String> badSets = List.of("state.=1", "state..x=1", "state.a b=1", "state.x\u0000y=1", "=1", "state", "x.y.z=1",
        "state.__proto__.x=1x".replace("__proto__", "a-b c"), "node id.output=1", ".output=1", "loop=1");
    for (String set : badSets) {
      assertThatThrownBy(() -> ForkEdits.parseSet(List.of(set), ForkEdits.builder())).as(set)
          .isInstanceOf(IllegalArgumentException.class);
    }
    String huge = "x".repeat(ForkEdits.MAX_JSON_BYTES + 1);
    assertThatThrownBy(() -> ForkEdits.builder().state("big", huge).build()).hasMessageContaining("the limit is");
    Object deep = "leaf";
    for (int i = 0; i < 100; i++) {
      deep = List.of(deep);
    }
    Object tooDeep = deep;
    assertThatThrownBy(() -> ForkEdits.builder().state("deep", tooDeep)).hasMessageContaining("deeper");
    assertThatThrownBy(() -> ForkEdits.builder().state("obj", new Object())).hasMessageContaining("JSON data");
    assertThatThrownBy(() -> ForkEdits.builder().state("nan", Double.NaN)).hasMessageContaining("JSON cannot");
    assertThatThrownBy(() -> ForkEdits.builder().state("k", Map.of(1, "x"))).hasMessageContaining("not text");
    assertThatThrownBy(() -> ForkEdits.builder().input("bad name", 1)).hasMessageContaining("not an input name");
    // A value that reads as JSON is JSON; anything else is text, template syntax included, never evaluated.
    assertThat(ForkEdits.value("{{ 7 * 7 }}")).isEqualTo("{{ 7 * 7 }}");
    assertThat(ForkEdits.value("100")).isEqualTo(100);
    assertThat(ForkEdits.value("1 2")).as("trailing text makes it text").isEqualTo("1 2");
    assertThat(ForkEdits.value("{\"a\": 1} x")).isEqualTo("{\"a\": 1} x");
    assertThat(ForkEdits.value("\"100\"")).isEqualTo("100");
  }

  @Test
  void anEditedTemplateLookingValueStaysText() throws Exception {
    RunResult first = origin(COUNTER, Map.of("count", 0));
    RunResult fork = engine.fork(first.runId(), ForkPoint.parse("count_loop:5"),
        ForkEdits.parseSet(List.of("state.note={{ run.id }} {% for x in range(9) %}x{% endfor %}"),
            ForkEdits.builder()).build(), RunOptions.defaults()).await();
    assertThat(fork.state()).containsEntry("note", "{{ run.id }} {% for x in range(9) %}x{% endfor %}");
  }

  @Test
  void theReusedPartReadsExactlyAsTheOriginJournaledIt() throws Exception {
    RunResult first = origin(GROUP, Map.of());
    RunResult fork = engine.fork(first.runId(), ForkPoint.parse("refine:3"), ForkEdits.NONE,
        RunOptions.defaults()).await();
    List<NodeExecution> origin = engine.store().nodeExecutions(first.runId());
    List<NodeExecution> read = engine.executions(fork.runId());
    assertThat(read.subList(0, 3)).isEqualTo(origin.subList(0, 3)); // prepare, passes 1 and 2: values, usage, order
    assertThat(read.subList(3, read.size())).allMatch(e -> e.runId().equals(fork.runId()));
    List<dev.loopflow.core.event.Event> reused = engine.reusedEvents(fork.runId());
    assertThat(reused).isNotEmpty().allMatch(e -> e.runId().equals(first.runId()));
    assertThat(engine.store().events(first.runId())).containsSubsequence(reused);
    long firstOwn = engine.store().events(fork.runId()).getFirst().seq();
    assertThat(reused.getLast().seq()).isLessThan(firstOwn);
  }

  @Test
  void aRestartLoopsSecondIterationCanBeForkedToo() throws Exception {
    String yaml = java.nio.file.Files.readString(java.nio.file.Path.of("../examples/restart-graph.yaml"));
    Workflow wf = engine.parse(yaml, "restart-graph.yaml");
    RunResult first = engine.run(wf, RunOptions.defaults());
    assertThat(first.status()).isEqualTo(RunStatus.COMPLETED);
    RunResult fork = engine.fork(first.runId(), ForkPoint.parse("restart:2"), ForkEdits.NONE,
        RunOptions.defaults()).await();
    assertThat(fork.status()).as(String.valueOf(fork.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(fork.output()).isEqualTo(first.output());
    assertThat(engine.store().nodeExecutions(fork.runId())).extracting(e -> e.position().path())
        .noneMatch(p -> p.startsWith("restart[1]") || p.equals("plan"));
  }

  @Test
  void theLoopInputEditIsWhatThePassGetsAndAnInputEditReachesWhatExecutes() throws Exception {
    String yaml = """
        name: refine
        input:
          topic: {type: string, default: "loops"}
        nodes:
          - id: refine
            type: loop
            input: "first draft"
            maxIterations: 3
            exitCondition: max_iterations
          - id: draft
            type: transform
            template: "{{ input.topic }}: {{ loop.input }} +{{ loop.iteration }}"
          - id: refine_exit
            type: exit
        edges:
          - {from: refine, to: draft}
          - {from: draft, to: refine_exit}
        output: "{{ draft.output }}"
        """;
    RunResult first = origin(yaml, Map.of());
    assertThat(first.output()).isEqualTo("loops: loops: loops: first draft +1 +2 +3");
    RunResult fork = engine.fork(first.runId(), ForkPoint.parse("refine:3"), ForkEdits.parseSet(
        List.of("loop.input=a better draft"), ForkEdits.builder()).input("topic", "bounds").build(),
        RunOptions.defaults()).await();
    assertThat(fork.output()).isEqualTo("bounds: a better draft +3");
    RunResult viaPrev = engine.fork(first.runId(), ForkPoint.parse("refine:2"), ForkEdits.parseSet(
        List.of("$LOOP_PREV=restart here"), ForkEdits.builder()).build(), RunOptions.defaults()).await();
    assertThat(viaPrev.output()).isEqualTo("loops: loops: restart here +2 +3");
  }
}
