package dev.loopflow.llm.loops;

import static dev.loopflow.llm.loops.LoopRuns.fixture;
import static dev.loopflow.llm.loops.LoopRuns.row;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.llm.loops.LoopRuns.Expect;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A loop_group inside a loop_group body. Each pass of each level has its own position
 * ({@code outer[2].inner[1].work}), the inner loop restarts its counter and loop.prev on every outer pass,
 * the inner result is readable in the outer body, and failures, pauses and spending propagate outwards.
 */
class LoopGroupNestingTest {
  static final String NESTED = """
      nodes:
        - id: outer
          loop_group:
            max_iterations: 2
            nodes:
              - id: inner
                loop_group:
                  max_iterations: 3
                  until: DONE
                  nodes:
                    - id: work
                      type: transform
                      template: "o{{ loop.parent.iteration }}i{{ loop.iteration }} prev=[$LOOP_PREV.work.output]"
                    - id: judge
                      depends_on: [work]
                      type: transform
                      template: "{% if loop.iteration == 2 %}DONE{% else %}{{ work.output }}{% endif %}"
              - id: report
                depends_on: [inner]
                type: transform
                template: "pass {{ loop.iteration }}: {{ inner.output }} after {{ inner.count }} (outer prev=[$LOOP_PREV.report.output])"
      """;

  static Stream<Arguments> runs() {
    return Stream.of(
        row("innerExhaustionFailsTheOuterLoopAtOnce", fixture("nesting/inner_exhausted.yaml"),
            Expect.failed("max_iterations_exceeded").errorAt("outer[1].inner")
                .node("outer", "status", "failed", "exit_reason", "error", "count", 1)
                .check((runs, r) -> assertThat(runs.started()).noneMatch(p -> p.startsWith("outer[2]")))),
        row("innerOnExhaustedContinueLetsTheOuterLoopGoOn", fixture("nesting/inner_continues.yaml"),
            Expect.completed().iterations("outer", "o1i2", "o2i2")),
        row("anInnerSignalDoesNotEndTheOuterLoop", fixture("nesting/inner_signal.yaml"),
            Expect.completed().node("outer", "count", 3, "exit_reason", "signal", "output", "FINISHED")
                .llmCalls("outer[1].inner[1].work", "outer[2].inner[1].work", "outer[3].inner[1].work")),
        row("usageOfInnerPassesAddsUpThroughEveryLevel", fixture("nesting/inner_usage.yaml"),
            Expect.completed().usage("outer", "llm_calls", 6, "input_tokens", 42L, "output_tokens", 18L)
                .check((runs, r) -> {
                  assertThat(r.usage().llmCalls()).isEqualTo(6);
                  assertThat(r.usage().inputTokens()).isEqualTo(42);
                })
                .iterations("outer", 3, 3)),
        row("anOuterLoopBudgetStopsCallsMadeByTheInnerLoop", fixture("nesting/outer_budget.yaml"),
            Expect.failed("budget_exceeded").errorAt("outer[2].inner[2].work").llmCallCount(4)
                .node("outer", "exit_reason", "budget")
                .loopsCompleted("outer[1].inner:max_iterations", "outer[2].inner:budget", "outer:budget")),
        row("maxStepsStopsRunawayNestingWithAClearError", fixture("nesting/runaway.yaml"),
            Expect.failed("max_steps_exceeded").errorSays("limits.max_steps (25)")
                .check((runs, r) -> assertThat(runs.started().size()).isLessThanOrEqualTo(26))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("runs")
  void nestedGroupsRun(String behaviour, String yaml, Map<String, ?> inputs, Expect expect) {
    new LoopRuns().verify(behaviour, yaml, inputs, expect);
  }

  @Test
  void everyNestedPassHasItsOwnPosition() {
    LoopRuns runs = new LoopRuns();
    RunResult r = runs.run(NESTED);

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(runs.completed()).containsExactly(
        "outer[1].inner[1].work", "outer[1].inner[1].judge",
        "outer[1].inner[2].work", "outer[1].inner[2].judge",
        "outer[1].inner", "outer[1].report",
        "outer[2].inner[1].work", "outer[2].inner[1].judge",
        "outer[2].inner[2].work", "outer[2].inner[2].judge",
        "outer[2].inner", "outer[2].report",
        "outer");
    assertThat(runs.all(Event.NodeStarted.class)).filteredOn(e -> e.node().path().equals("outer[2].inner[1].work"))
        .singleElement().satisfies(e -> assertThat(e.node().loops())
            .extracting(f -> f.loopId() + "#" + f.iteration()).containsExactly("outer#2", "inner#1"));
    assertThat(runs.all(Event.LoopStarted.class)).extracting(e -> e.node().path())
        .containsExactly("outer", "outer[1].inner", "outer[2].inner");
    assertThat(runs.all(Event.LoopCompleted.class)).extracting(e -> e.node().path() + ":" + e.exitReason())
        .containsExactly("outer[1].inner:signal", "outer[2].inner:signal", "outer:max_iterations");
  }

  @Test
  void innerLoopSeesTheOuterIterationAndRestartsItsCounterAndPrevEveryOuterPass() {
    LoopRuns runs = new LoopRuns();
    runs.run(NESTED);

    assertThat(runs.preview("outer[1].inner[1].work")).isEqualTo("o1i1 prev=[]");
    assertThat(runs.preview("outer[1].inner[2].work")).isEqualTo("o1i2 prev=[o1i1 prev=[]]");
    assertThat(runs.preview("outer[2].inner[1].work")).isEqualTo("o2i1 prev=[]");
    assertThat(runs.preview("outer[2].inner[2].work")).isEqualTo("o2i2 prev=[o2i1 prev=[]]");
  }

  @Test
  void innerResultIsReadableInTheOuterBodyAndOuterPrevSeesTheLastOuterPass() {
    RunResult r = new LoopRuns().run(NESTED);

    assertThat(r.nodes().get("outer")).containsEntry("count", 2).containsEntry("exit_reason", "max_iterations");
    assertThat(r.nodes().get("outer").get("iterations")).isEqualTo(List.of(
        "pass 1: DONE after 2 (outer prev=[])",
        "pass 2: DONE after 2 (outer prev=[pass 1: DONE after 2 (outer prev=[])])"));
  }

  @Test
  void anInteractiveInnerGroupPausesAtItsNestedGateAndResumes() {
    LoopRuns runs = new LoopRuns();
    Workflow wf = runs.parse("""
        nodes:
          - id: outer
            loop_group:
              max_iterations: 2
              nodes:
                - id: inner
                  loop_group:
                    max_iterations: 2
                    interactive: true
                    gate_message: "outer {{ loop.parent.iteration }} inner {{ loop.iteration }}?"
                    nodes:
                      - id: work
                        type: transform
                        template: "o{{ loop.parent.iteration }}i{{ loop.iteration }} input=[$LOOP_USER_INPUT]"
        """);
    RunResult p1 = runs.run(wf);
    assertThat(p1.status()).as(String.valueOf(p1.error())).isEqualTo(RunStatus.PAUSED);
    assertThat(p1.waiting().path()).isEqualTo("outer[1].inner[1].gate");
    assertThat(p1.waiting().message()).isEqualTo("outer 1 inner 1?");

    RunResult p2 = runs.resume(wf, p1, "a");
    assertThat(p2.status()).as(String.valueOf(p2.error())).isEqualTo(RunStatus.PAUSED);
    assertThat(p2.waiting().path()).isEqualTo("outer[2].inner[1].gate");

    RunResult r = runs.resume(wf, p2, "b");
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.nodes().get("outer").get("iterations")).isEqualTo(List.of("o1i2 input=[a]", "o2i2 input=[b]"));
    assertThat(runs.completed()).containsOnlyOnce("outer[1].inner[1].work", "outer[1].inner[2].work",
        "outer[2].inner[1].work", "outer[2].inner[2].work");
  }
}
