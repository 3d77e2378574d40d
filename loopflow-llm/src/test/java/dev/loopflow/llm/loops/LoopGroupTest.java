package dev.loopflow.llm.loops;

import static dev.loopflow.llm.loops.LoopRuns.fixture;
import static dev.loopflow.llm.loops.LoopRuns.row;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.event.Event;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.llm.loops.LoopRuns.Expect;
import dev.loopflow.testkit.FakeOpenAiServer;
import dev.loopflow.testkit.Reply;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The loop_group contract: a sealed multi-node body repeated as a unit until a completion signal and/or a command
 * says done; bounds, signal matching, {@code $LOOP_PREV}, until commands, failing and skipped body nodes, several
 * terminal nodes, cancellation, fresh context, and the injection safety of values that reach templates and shells.
 *
 * <p>Every test is a method of this class (no nested classes), so reports count them under its name.
 */
class LoopGroupTest {
  @TempDir
  Path dir;

  /** One group {@code g} whose body is the llm node {@code a} ("go"), answered in turn by {@code replies}. */
  private static String ask(String replies, String groupFields) {
    return """
        defaults: {model: "openai:gpt-4o-mini"}
        mock: {responses: REPLIES}
        nodes:
          - id: g
            loop_group:
              FIELDS
              nodes:
                - id: a
                  prompt: "go"
        """.replace("REPLIES", replies).replace("FIELDS", groupFields.replace("\n", "\n      "));
  }

  /** One group {@code g} whose body is the transform {@code a} rendering {@code template}. */
  private static String render(String template, String groupFields) {
    return """
        nodes:
          - id: g
            loop_group:
              FIELDS
              nodes:
                - id: a
                  type: transform
                  template: "TEMPLATE"
        """.replace("TEMPLATE", template).replace("FIELDS", groupFields.replace("\n", "\n      "));
  }

  /** One group {@code g} whose body is the shell node {@code check} (allowed to fail) running {@code command}. */
  private static String allowedToFail(String command) {
    return """
        nodes:
          - id: g
            loop_group:
              max_iterations: 3
              until: DONE
              nodes:
                - id: check
                  allow_failure: true
                  bash: "COMMAND"
        """.replace("COMMAND", command);
  }

  static Stream<Arguments> runs() {
    String shellText = "$(touch pwned1); touch pwned2 `touch pwned3` ' \" *";
    return Stream.of(
        // --- a multi-node body
        row("bodyRepeatsAsAUnitUntilTheTerminalNodeEmitsTheSignal", fixture("group/fix_until_pass.yaml"),
            Map.of("task", "parser"),
            Expect.completed()
                .node("fix_until_pass", "status", "completed", "count", 2, "exit_reason", "signal", "output",
                    "all green\nTESTS_PASS")
                .iterations("fix_until_pass", "tests fail, try again", "all green\nTESTS_PASS")
                .node("after", "output", "final: all green\nTESTS_PASS")
                .completedInOrder("fix_until_pass[1].implement", "fix_until_pass[1].test", "fix_until_pass[1].review",
                    "fix_until_pass[2].implement", "fix_until_pass[2].test", "fix_until_pass[2].review",
                    "fix_until_pass", "after")
                .notCompleted("fix_until_pass[3].implement")
                .llmCalls("fix_until_pass[1].implement", "fix_until_pass[1].review", "fix_until_pass[2].implement",
                    "fix_until_pass[2].review")),
        row("typeLoopGroupFormWithFieldsOnTheNodeBehavesLikeTheShorthand", fixture("group/type_form.yaml"),
            Expect.completed().node("g", "count", 2, "exit_reason", "signal", "output", "DONE")),
        row("singleNodeBodyDegeneratesToASimpleLoop", ask("[DONE]", "max_iterations: 3\nuntil: DONE"),
            Expect.completed().node("g", "count", 1, "exit_reason", "signal").llmCalls("g[1].a")),
        row("groupOutputIsTheLastPassTerminalOutputAndFeedsTheRunOutput",
            render("pass {{ loop.iteration }} of {{ loop.max }}", "max_iterations: 3"),
            Expect.completed().node("g", "output", "pass 3 of 3", "count", 3, "exit_reason", "max_iterations")
                .output("pass 3 of 3")),
        // --- bounds
        row("withoutAnExitTestTheGroupRunsExactlyMaxIterationsAndCompletes",
            render("{{ loop.iteration }}", "max_iterations: 4"),
            Expect.completed().node("g", "count", 4, "exit_reason", "max_iterations")
                .completedInOrder("g[1].a", "g[2].a", "g[3].a", "g[4].a").notCompleted("g[5].a")),
        row("exhaustingTheBoundWithAnUnmetSignalFailsWithMaxIterationsExceeded", fixture("group/unmet_signal.yaml"),
            Expect.failed("max_iterations_exceeded").errorNode("g").errorSays("DONE")
                .node("g", "status", "failed", "count", 3, "exit_reason", "max_iterations")
                .node("next", "status", "not_run").llmCallCount(3).loopsCompleted("g:max_iterations")
                .check((runs, r) -> assertThat(runs.all(Event.NodeFailed.class))
                    .filteredOn(e -> e.node().path().equals("g")).singleElement()
                    .satisfies(e -> assertThat(e.errorCode()).isEqualTo("max_iterations_exceeded")))
                .usage("g", "llm_calls", 3)
                .check((runs, r) -> assertThat(r.usage().llmCalls()).isEqualTo(3))),
        row("onExhaustedContinueCompletesWithTheLastPassOutput",
            render("attempt {{ loop.iteration }}", "max_iterations: 2\nuntil: DONE\non_exhausted: continue"),
            Expect.completed().node("g", "exit_reason", "max_iterations", "count", 2, "output", "attempt 2")),
        row("onExhaustedFailWithoutAnExitTestFailsAfterTheLastPass",
            render("attempt {{ loop.iteration }}", "max_iterations: 2\non_exhausted: fail"),
            Expect.failed("max_iterations_exceeded").node("g", "count", 2)),
        row("maxIterationsOneRunsASingleShotThatCompletesOnTheSignal",
            ask("[DONE]", "max_iterations: 1\nuntil: DONE"),
            Expect.completed().node("g", "count", 1, "exit_reason", "signal")),
        row("maxIterationsOneWithoutTheSignalFailsAfterOnePass",
            ask("[\"not finished\"]", "max_iterations: 1\nuntil: DONE"),
            Expect.failed("max_iterations_exceeded").llmCalls("g[1].a")),
        // --- the signal
        row("notDoneNeverEndsALoopWaitingForDone",
            ask("[\"NOT DONE\", \"NOT DONE yet\", \"not done\"]", "max_iterations: 3\nuntil: DONE"),
            Expect.failed("max_iterations_exceeded").llmCallCount(3)),
        // --- $LOOP_PREV
        row("loopPrevReadsTheSameBodyNodeFromThePreviousPassAndIsEmptyOnTheFirst",
            fixture("group/loop_prev_per_pass.yaml"),
            Expect.completed().iterations("g", "prev=[] now=[alpha]", "prev=[alpha] now=[beta]",
                "prev=[beta] now=[gamma]")),
        row("loopPrevFieldAccessReadsStructuredOutputOfAnLlmNodeWithOutputSchema",
            fixture("group/loop_prev_schema_fields.yaml"),
            Expect.completed().iterations("g", "notes=[] verdict=[]", "notes=[add tests] verdict=[revise]")),
        row("loopPrevFieldAccessReadsAMapProducedByATransform", fixture("group/loop_prev_map_fields.yaml"),
            Expect.completed().iterations("g", "n= tag=", "n=10 tag=p1", "n=20 tag=p2")),
        // A reference to a body node absent from the prior pass resolves to empty, not an error.
        row("loopPrevOfANodeThatDidNotRunLastPassIsEmpty", fixture("group/loop_prev_skipped.yaml"),
            Expect.completed().iterations("g", "prev odd=[]", "prev odd=[odd 1]", "prev odd=[]")),
        row("loopPrevValueHoldingSugarOrTemplateSyntaxStaysLiteral", fixture("group/loop_prev_literal.yaml"),
            Map.of("secret", "s3cr3t"),
            Expect.completed()
                .node("g", "output", "prev=$LOOP_PREV.work.output {{ input.secret }} $LOOP_USER_INPUT "
                    + "{% if true %}x{% endif %}")
                .check((runs, r) -> assertThat(String.valueOf(r.nodes().get("g").get("output")))
                    .doesNotContain("s3cr3t"))),
        row("loopPrevReachesAShellCommandAsDataNeverAsShellText", fixture("group/loop_prev_shell.yaml"),
            Expect.completed()
                .node("g", "output", shellText + "|q=" + shellText)
                .noFile("pwned")),
        // --- until commands
        row("untilBashEndsTheLoopWhenItExitsZero", fixture("group/until_counter.yaml"),
            Expect.completed().node("g", "count", 3, "exit_reason", "command", "output", "pass 3")
                .fileLines("counter", "3")),
        row("untilBashThatNeverSucceedsExhaustsTheBound", fixture("group/until_never.yaml"),
            Expect.failed("max_iterations_exceeded").errorSays("until_command")
                .node("g", "count", 2, "exit_reason", "max_iterations")),
        row("untilBashReadsLoopPrevAndBodyResultsAsQuotedValues",
            render("v{{ loop.iteration }}; rm -rf /", "max_iterations: 5\nuntil_bash: 'test \"{{ a.output }}\" = "
                + "\"v3; rm -rf /\"'"),
            Expect.completed().node("g", "count", 3, "exit_reason", "command")),
        // Two different executions must never share a position.
        row("aBodyNodeNamedLikeTheUntilCommandKeepsItsOwnResultAndPosition",
            fixture("group/until_named_like_body.yaml"),
            Expect.completed().iterations("g", "prev=[] now=[from-body 1]", "prev=[from-body 1] now=[from-body 2]")
                .check((runs, r) -> assertThat(runs.started()).doesNotHaveDuplicates())),
        row("signalMatchShortCircuitsUntilBash",
            ask("[\"done here <promise>DONE</promise>\"]",
                "max_iterations: 3\nuntil: DONE\nuntil_bash: \"touch until_ran; exit 1\""),
            Expect.completed().node("g", "exit_reason", "signal", "count", 1).noFile("until_ran")),
        row("untilBashRunsAfterEachPassWithoutTheSignal",
            ask("[nope, nope, \"<promise>DONE</promise>\"]",
                "max_iterations: 5\nuntil: DONE\nuntil_bash: \"echo ran >> until_log; exit 1\""),
            Expect.completed().node("g", "exit_reason", "signal", "count", 3).fileLines("until_log", "ran", "ran")),
        row("eitherTestEndsTheLoop",
            ask("[nope]", "max_iterations: 5\nuntil: DONE\nuntil_bash: \"test {{ loop.iteration }} -ge 2\""),
            Expect.completed().node("g", "exit_reason", "command", "count", 2)),
        // --- failing body nodes
        row("aFailingBodyNodeFailsTheLoopAtOnce", fixture("group/failing_body.yaml"),
            Expect.failed("node_failed").errorAt("g[1].check").errorSays("broken")
                .node("g", "status", "failed", "count", 1, "exit_reason", "error").notStarted("g[2].build")),
        row("aFailingBodyNodeWithAllowFailureExhaustsTheBound", allowedToFail("echo broken; exit 3"),
            Expect.failed("max_iterations_exceeded").node("g", "count", 3, "exit_reason", "max_iterations")
                .startedIncluding("g[1].check", "g[2].check", "g[3].check")),
        row("aFailedTerminalNodeNeverSignalsCompletionEvenIfItsStdoutHoldsTheSignal",
            allowedToFail("echo DONE; exit 3"),
            Expect.failed("max_iterations_exceeded").node("g", "count", 3, "exit_reason", "max_iterations")),
        // --- what the body sees and which node is its output
        row("bodyReadsAnOuterNodeThatCompletedBeforeTheGroup", fixture("group/outer_node.yaml"),
            Expect.completed().iterations("g", "the plan / pass 1", "the plan / pass 2")),
        row("mockScriptIsConsumedInCallOrderEvenWithFreshContext",
            ask("[first, second, DONE]", "max_iterations: 3\nuntil: DONE\nfresh_context: true"),
            Expect.completed().iterations("g", "first", "second", "DONE")),
        // Only the first terminal node's output is tested for the signal, so the right node's DONE does not count.
        row("withSeveralTerminalNodesTheFirstInDefinitionOrderIsTheOutput", fixture("group/two_terminals.yaml"),
            Expect.completed().node("g", "output", "left says DONE", "exit_reason", "max_iterations", "count", 2)
                .check((runs, r) -> assertThat(runs.llmCalls()).contains("g[1].left", "g[1].right", "g[2].left",
                    "g[2].right"))),
        row("aSkippedFirstTerminalYieldsToTheNextThatCompleted", fixture("group/skipped_terminal.yaml"),
            Expect.completed().iterations("g", "right 1", "left 2")),
        row("outputNamesTheTerminalNodeExplicitly", fixture("group/output_named.yaml"),
            Expect.completed().node("g", "output", "DONE", "exit_reason", "signal", "count", 2)),
        row("aCancelNodeInsideTheBodyEndsTheRunAsCancelled", fixture("group/cancel_node.yaml"),
            Expect.cancelled().node("g", "exit_reason", "cancelled", "count", 2).node("after", "status", "not_run")
                .notStarted("g[3].a")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("runs")
  void loopGroupRuns(String behaviour, String yaml, Map<String, ?> inputs, Expect expect) {
    new LoopRuns().in(dir).verify(behaviour, yaml, inputs, expect);
  }

  // --- events, requests to the model, positions and cancellation ----------------------------------------------------

  @Test
  void loopEventsReportEachPassAndTheExitReason() {
    LoopRuns runs = new LoopRuns().input("task", "parser");
    runs.run(fixture("group/fix_until_pass.yaml"));

    assertThat(runs.all(Event.LoopStarted.class)).singleElement().satisfies(e -> {
      assertThat(e.node().path()).isEqualTo("fix_until_pass");
      assertThat(e.construct()).isEqualTo("loop_group");
      assertThat(e.max()).isEqualTo(5);
    });
    assertThat(runs.all(Event.LoopIteration.class)).extracting(Event.LoopIteration::iteration)
        .containsExactly(1, 2);
    assertThat(runs.all(Event.LoopIteration.class)).allSatisfy(e -> assertThat(e.max()).isEqualTo(5));
    assertThat(runs.all(Event.LoopCompleted.class)).singleElement().satisfies(e -> {
      assertThat(e.iterationsRun()).isEqualTo(2);
      assertThat(e.exitReason()).isEqualTo("signal");
      assertThat(e.llmCalls()).isEqualTo(4);
    });
  }

  @Test
  void loopPrevInAPromptReachesTheModel() {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.enqueue(Reply.text("draft one"), Reply.text("draft two"));
      LoopRuns runs = new LoopRuns().against(server);
      RunResult r = runs.run("""
          defaults: {model: "openai:gpt-4o-mini"}
          nodes:
            - id: g
              loop_group:
                max_iterations: 2
                nodes:
                  - id: write
                    prompt: "Improve <<$LOOP_PREV.write.output>> (pass {{ loop.iteration }})"
          """);
      assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
      assertThat(server.requests()).hasSize(2);
      assertThat(server.requests().get(0).body()).contains("Improve <<>> (pass 1)");
      assertThat(server.requests().get(1).body()).contains("Improve <<draft one>> (pass 2)");
    }
  }

  @Test
  void freshContextFalseContinuesTheSessionAcrossPasses() {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.enqueue(Reply.text("answer one"), Reply.text("answer two"));
      RunResult r = new LoopRuns().against(server).run(session(false));
      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      String second = server.requests().get(1).body();
      assertThat(second).contains("question 1").contains("answer one").contains("question 2");
    }
  }

  @Test
  void freshContextTrueStartsANewSessionEachPass() {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.enqueue(Reply.text("answer one"), Reply.text("answer two"));
      RunResult r = new LoopRuns().against(server).run(session(true));
      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      String second = server.requests().get(1).body();
      assertThat(second).contains("question 2").doesNotContain("question 1").doesNotContain("answer one");
    }
  }

  @Test
  void freshContextTrueStillSharesTheSessionWithinOnePass() {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.enqueue(Reply.text("a1"), Reply.text("b1"), Reply.text("a2"), Reply.text("b2"));
      RunResult r = new LoopRuns().against(server).run("""
          defaults: {model: "openai:gpt-4o-mini"}
          nodes:
            - id: g
              loop_group:
                max_iterations: 2
                fresh_context: true
                nodes:
                  - id: a
                    session: chat
                    prompt: "first {{ loop.iteration }}"
                  - id: b
                    depends_on: [a]
                    session: chat
                    prompt: "second {{ loop.iteration }}"
          """);
      assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
      String lastOfPass2 = server.requests().get(3).body();
      assertThat(lastOfPass2).contains("first 2").contains("a2").contains("second 2").doesNotContain("first 1");
    }
  }

  @Test
  void bodyLlmNodesUseTheWorkflowDefaults() {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.enqueue(Reply.text("DONE"));
      RunResult r = new LoopRuns().against(server).run("""
          defaults: {model: "openai:gpt-4o-mini", temperature: 0.25, system: "be brief"}
          nodes:
            - id: g
              loop_group:
                max_iterations: 2
                until: DONE
                nodes:
                  - id: a
                    prompt: "go"
          """);
      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      var json = server.lastRequest().json();
      assertThat(json.path("model").asText()).isEqualTo("gpt-4o-mini");
      assertThat(json.path("temperature").asDouble()).isEqualTo(0.25);
      assertThat(json.path("messages").toString()).contains("be brief");
    }
  }

  @Test
  void bodyExecutionsCarryTheLoopPathAndIterationSoPassesNeverCollide() {
    LoopRuns runs = new LoopRuns();
    runs.run("""
        nodes:
          - id: a
            type: transform
            template: "outer a"
          - id: g
            depends_on: [a]
            loop_group:
              max_iterations: 2
              nodes:
                - id: a
                  type: transform
                  template: "inner a {{ loop.iteration }}"
        """);
    assertThat(runs.completed()).containsExactly("a", "g[1].a", "g[2].a", "g");
    assertThat(runs.preview("a")).isEqualTo("outer a");
    assertThat(runs.preview("g[1].a")).isEqualTo("inner a 1");
    assertThat(runs.preview("g[2].a")).isEqualTo("inner a 2");
    assertThat(runs.all(Event.NodeStarted.class)).filteredOn(e -> e.node().path().equals("g[2].a"))
        .singleElement().satisfies(e -> assertThat(e.node().loops())
            .extracting(f -> f.loopId() + "#" + f.iteration()).containsExactly("g#2"));
  }

  @Test
  void untilCommandAliasAndCwdFieldWork() throws Exception {
    Path work = Files.createDirectory(dir.resolve("work"));
    LoopRuns runs = new LoopRuns().in(dir);
    RunResult r = runs.run("""
        nodes:
          - id: g
            loop_group:
              max_iterations: 5
              until_command: "test -f work/done"
              nodes:
                - id: step
                  cwd: work
                  bash: 'echo x >> ticks; if [ $(wc -l < ticks) -ge 2 ]; then touch done; fi; wc -l < ticks'
        """);
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.nodes().get("g")).containsEntry("count", 2).containsEntry("exit_reason", "command");
    assertThat(Files.readAllLines(work.resolve("ticks"))).hasSize(2);
  }

  @Test
  void cancellingWhileAPassRunsStopsTheLoopAsCancelled() throws Exception {
    LoopRuns runs = new LoopRuns();
    // Pass 2's body blocks until it is interrupted, so only the cancellation can end the run.
    RunResult r = cancelAt(runs, """
        nodes:
          - id: g
            loop_group:
              max_iterations: 5
              nodes:
                - id: a
                  bash: 'if [ {{ loop.iteration }} -ge 2 ]; then sleep 60; fi; echo "pass {{ loop.iteration }}"'
        """, e -> e instanceof Event.NodeStarted s && s.node().path().equals("g[2].a"));

    assertThat(r.status()).isEqualTo(RunStatus.CANCELLED);
    assertThat(r.nodes().get("g")).containsEntry("status", "cancelled").containsEntry("exit_reason", "cancelled")
        .containsEntry("count", 2);
    assertThat(runs.all(Event.LoopCompleted.class)).singleElement()
        .satisfies(e -> assertThat(e.exitReason()).isEqualTo("cancelled"));
    assertThat(runs.completed()).contains("g[1].a").doesNotContain("g[2].a", "g[3].a");
  }

  @Test
  void cancellingAtAPassBoundaryStopsTheLoopAsCancelled() throws Exception {
    LoopRuns runs = new LoopRuns();
    RunResult r = cancelAt(runs, """
        nodes:
          - id: g
            loop_group:
              max_iterations: 5
              nodes:
                - id: a
                  type: transform
                  template: "pass {{ loop.iteration }}"
        """, e -> e instanceof Event.LoopIteration it && it.iteration() == 2);

    assertThat(r.status()).isEqualTo(RunStatus.CANCELLED);
    assertThat(r.nodes().get("g")).containsEntry("exit_reason", "cancelled");
    assertThat(runs.all(Event.LoopCompleted.class)).singleElement()
        .satisfies(e -> assertThat(e.exitReason()).isEqualTo("cancelled"));
    assertThat(runs.completed()).contains("g[1].a").doesNotContain("g[3].a");
    // A cancelled run publishes nothing after it finished; every unit reported before run.finished.
    assertThat(runs.all(Event.NodeCancelled.class)).extracting(e -> e.node().path()).contains("g");
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(delimiter = '|', value = {
      "'\"NOT DONE\"'                                   | max_iterations",
      "'\"UNDONE\"'                                     | max_iterations",
      "'\"DONE.\"'                                      | max_iterations",
      "'\"I am DONE now\"'                              | max_iterations",
      "'\"<promise>NOT DONE</promise>\"'                | max_iterations",
      "'\"<promise>DONE</promise>\"'                    | signal",
      "'\"work finished <promise>DONE</promise> bye\"'  | signal",
      "'\"summary\\nDONE\\n\"'                          | signal",
      "'\"summary\\n   DONE   \\nmore\"'                | signal",
      "'\"DONE\"'                                       | signal",
  })
  void signalMatchesOnlyAPromiseTagOrALineThatIsExactlyTheSignal(String reply, String exitReason) {
    RunResult r = new LoopRuns().run(signalAfter(reply));
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.nodes().get("g")).containsEntry("exit_reason", exitReason);
  }

  private static String session(boolean fresh) {
    return """
        defaults: {model: "openai:gpt-4o-mini"}
        nodes:
          - id: g
            loop_group:
              max_iterations: 2
              fresh_context: FRESH
              nodes:
                - id: chat
                  session: conv
                  prompt: "question {{ loop.iteration }}"
        """.replace("FRESH", String.valueOf(fresh));
  }

  /** Starts {@code yaml} and cancels it from the listener at the first event {@code trigger} accepts. */
  private RunResult cancelAt(LoopRuns runs, String yaml, java.util.function.Predicate<Event> trigger)
      throws InterruptedException {
    CountDownLatch handleReady = new CountDownLatch(1);
    AtomicReference<RunHandle> handle = new AtomicReference<>();
    java.util.concurrent.atomic.AtomicBoolean fired = new java.util.concurrent.atomic.AtomicBoolean();
    RunHandle h = runs.engine.start(runs.parse(yaml), runs.options(e -> {
      runs.events.add(e);
      if (trigger.test(e) && fired.compareAndSet(false, true)) {
        try {
          handleReady.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
        }
        handle.get().cancel("operator stop");
      }
    }));
    handle.set(h);
    handleReady.countDown();
    return h.await();
  }

  private static String signalAfter(String reply) {
    return """
        defaults: {model: "openai:gpt-4o-mini"}
        nodes:
          - id: g
            loop_group:
              max_iterations: 1
              until: DONE
              on_exhausted: continue
              nodes:
                - id: a
                  prompt: "go"
                  mock: [REPLY]
        """.replace("REPLY", reply);
  }
}
