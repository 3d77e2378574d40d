package dev.loopflow.llm.loops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.event.Event;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.testkit.FakeOpenAiServer;
import dev.loopflow.testkit.Reply;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The loop_group contract (SPEC §5, seed 004): a sealed multi-node body repeated as a unit until a completion
 * signal and/or a command says done, the edge cases the seed's pull request lists as EDGE A–I, $LOOP_PREV and
 * the injection safety its reviewers asked for.
 */
class LoopGroupSeedTest {

  @Nested
  class MultiNodeBody {
    static final String FIX_UNTIL_PASS = """
        name: fix
        input: {task: string}
        defaults: {model: "openai:gpt-4o-mini"}
        mock:
          responses:
            implement: ["patch one", "patch two", "patch three"]
            review: ["tests fail, try again", "all green\\nTESTS_PASS", "unused"]
        nodes:
          - id: fix_until_pass
            loop_group:
              max_iterations: 5
              until: TESTS_PASS
              nodes:
                - id: implement
                  prompt: "Implement {{ input.task }}. Previous review: $LOOP_PREV.review.output"
                - id: test
                  depends_on: [implement]
                  bash: "echo tested"
                - id: review
                  depends_on: [test]
                  prompt: "Review {{ implement.text }} given {{ test.output }}"
          - id: after
            depends_on: [fix_until_pass]
            type: transform
            template: "final: {{ fix_until_pass.output }}"
        """;

    @Test
    void bodyRepeatsAsAUnitUntilTheTerminalNodeEmitsTheSignal() {
      LoopRuns runs = new LoopRuns().input("task", "parser");
      RunResult r = runs.run(FIX_UNTIL_PASS);

      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      Map<String, Object> group = r.nodes().get("fix_until_pass");
      assertThat(group).containsEntry("status", "completed").containsEntry("count", 2)
          .containsEntry("exit_reason", "signal").containsEntry("output", "all green\nTESTS_PASS");
      assertThat(group.get("iterations")).isEqualTo(List.of("tests fail, try again", "all green\nTESTS_PASS"));
      assertThat(r.nodes().get("after")).containsEntry("output", "final: all green\nTESTS_PASS");
      assertThat(runs.completed()).containsSubsequence(
          "fix_until_pass[1].implement", "fix_until_pass[1].test", "fix_until_pass[1].review",
          "fix_until_pass[2].implement", "fix_until_pass[2].test", "fix_until_pass[2].review",
          "fix_until_pass", "after");
      assertThat(runs.completed()).doesNotContain("fix_until_pass[3].implement");
      assertThat(runs.llmCalls()).containsExactly("fix_until_pass[1].implement", "fix_until_pass[1].review",
          "fix_until_pass[2].implement", "fix_until_pass[2].review");
    }

    @Test
    void loopEventsReportEachPassAndTheExitReason() {
      LoopRuns runs = new LoopRuns().input("task", "parser");
      runs.run(FIX_UNTIL_PASS);

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
    void typeLoopGroupFormWithFieldsOnTheNodeBehavesLikeTheShorthand() {
      LoopRuns runs = new LoopRuns();
      RunResult r = runs.run("""
          defaults: {model: "openai:gpt-4o-mini"}
          mock: {responses: ["working", "DONE"]}
          nodes:
            - id: g
              type: loop_group
              max_iterations: 4
              until: DONE
              nodes:
                - id: step
                  prompt: "go"
          """);
      assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.nodes().get("g")).containsEntry("count", 2).containsEntry("exit_reason", "signal")
          .containsEntry("output", "DONE");
    }

    @Test
    void singleNodeBodyDegeneratesToASimpleLoop() {
      LoopRuns runs = new LoopRuns();
      RunResult r = runs.run("""
          defaults: {model: "openai:gpt-4o-mini"}
          mock: {responses: ["DONE"]}
          nodes:
            - id: g
              loop_group:
                max_iterations: 3
                until: DONE
                nodes:
                  - id: only
                    prompt: "do it"
          """);
      assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.nodes().get("g")).containsEntry("count", 1).containsEntry("exit_reason", "signal");
      assertThat(runs.llmCalls()).containsExactly("g[1].only");
    }

    @Test
    void groupOutputIsTheLastPassTerminalOutputAndFeedsTheRunOutput() {
      LoopRuns runs = new LoopRuns();
      RunResult r = runs.run("""
          nodes:
            - id: g
              loop_group:
                max_iterations: 3
                nodes:
                  - id: a
                    type: transform
                    template: "pass {{ loop.iteration }} of {{ loop.max }}"
          """);
      assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.nodes().get("g")).containsEntry("output", "pass 3 of 3").containsEntry("count", 3)
          .containsEntry("exit_reason", "max_iterations");
      assertThat(r.output()).isEqualTo("pass 3 of 3");
    }
  }

  @Nested
  class Bounds {
    @Test
    void withoutAnExitTestTheGroupRunsExactlyMaxIterationsAndCompletes() {
      LoopRuns runs = new LoopRuns();
      RunResult r = runs.run("""
          nodes:
            - id: g
              loop_group:
                max_iterations: 4
                nodes:
                  - id: a
                    type: transform
                    template: "{{ loop.iteration }}"
          """);
      assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.nodes().get("g")).containsEntry("count", 4).containsEntry("exit_reason", "max_iterations");
      assertThat(runs.completed()).containsSubsequence("g[1].a", "g[2].a", "g[3].a", "g[4].a");
      assertThat(runs.completed()).doesNotContain("g[5].a");
    }

    @Test
    void exhaustingTheBoundWithAnUnmetSignalFailsWithMaxIterationsExceeded() {
      LoopRuns runs = new LoopRuns();
      RunResult r = runs.run("""
          defaults: {model: "openai:gpt-4o-mini"}
          mock: {responses: ["still working"]}
          nodes:
            - id: g
              loop_group:
                max_iterations: 3
                until: DONE
                nodes:
                  - id: a
                    prompt: "go"
            - id: next
              depends_on: [g]
              bash: "echo must not run"
          """);
      assertThat(r.status()).isEqualTo(RunStatus.FAILED);
      assertThat(r.error().code()).isEqualTo("max_iterations_exceeded");
      assertThat(r.error().node()).isEqualTo("g");
      assertThat(r.error().message()).contains("DONE");
      assertThat(r.nodes().get("g")).containsEntry("status", "failed").containsEntry("count", 3)
          .containsEntry("exit_reason", "max_iterations");
      assertThat(r.nodes().get("next")).containsEntry("status", "not_run");
      assertThat(runs.llmCalls()).hasSize(3);
      assertThat(runs.all(Event.LoopCompleted.class)).singleElement()
          .satisfies(e -> assertThat(e.exitReason()).isEqualTo("max_iterations"));
      assertThat(runs.all(Event.NodeFailed.class)).filteredOn(e -> e.node().path().equals("g")).singleElement()
          .satisfies(e -> assertThat(e.errorCode()).isEqualTo("max_iterations_exceeded"));
      assertThat(LoopRuns.usageOf(r, "g")).containsEntry("llm_calls", 3);
      assertThat(r.usage().llmCalls()).isEqualTo(3);
    }

    @Test
    void onExhaustedContinueCompletesWithTheLastPassOutput() {
      LoopRuns runs = new LoopRuns();
      RunResult r = runs.run("""
          nodes:
            - id: g
              loop_group:
                max_iterations: 2
                until: DONE
                on_exhausted: continue
                nodes:
                  - id: a
                    type: transform
                    template: "attempt {{ loop.iteration }}"
          """);
      assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.nodes().get("g")).containsEntry("exit_reason", "max_iterations").containsEntry("count", 2)
          .containsEntry("output", "attempt 2");
    }

    @Test
    void onExhaustedFailWithoutAnExitTestFailsAfterTheLastPass() {
      LoopRuns runs = new LoopRuns();
      RunResult r = runs.run("""
          nodes:
            - id: g
              loop_group:
                max_iterations: 2
                on_exhausted: fail
                nodes:
                  - id: a
                    type: transform
                    template: "attempt {{ loop.iteration }}"
          """);
      assertThat(r.status()).isEqualTo(RunStatus.FAILED);
      assertThat(r.error().code()).isEqualTo("max_iterations_exceeded");
      assertThat(r.nodes().get("g")).containsEntry("count", 2);
    }
  }

  @Nested
  class SignalMatching {
    static String yaml(String reply) {
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
      RunResult r = new LoopRuns().run(yaml(reply));
      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.nodes().get("g")).containsEntry("exit_reason", exitReason);
    }

    @Test
    void notDoneNeverEndsALoopWaitingForDone() {
      LoopRuns runs = new LoopRuns();
      RunResult r = runs.run("""
          defaults: {model: "openai:gpt-4o-mini"}
          mock: {responses: ["NOT DONE", "NOT DONE yet", "not done"]}
          nodes:
            - id: g
              loop_group:
                max_iterations: 3
                until: DONE
                nodes:
                  - id: a
                    prompt: "go"
          """);
      assertThat(r.status()).isEqualTo(RunStatus.FAILED);
      assertThat(r.error().code()).isEqualTo("max_iterations_exceeded");
      assertThat(runs.llmCalls()).hasSize(3);
    }
  }

  @Nested
  class LoopPrev {
    @Test
    void loopPrevReadsTheSameBodyNodeFromThePreviousPassAndIsEmptyOnTheFirst() {
      LoopRuns runs = new LoopRuns();
      RunResult r = runs.run("""
          defaults: {model: "openai:gpt-4o-mini"}
          mock: {responses: ["alpha", "beta", "gamma"]}
          nodes:
            - id: g
              loop_group:
                max_iterations: 3
                nodes:
                  - id: work
                    prompt: "go"
                  - id: show
                    depends_on: [work]
                    type: transform
                    template: "prev=[$LOOP_PREV.work.output] now=[{{ work.text }}]"
          """);
      assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.nodes().get("g").get("iterations")).isEqualTo(List.of(
          "prev=[] now=[alpha]", "prev=[alpha] now=[beta]", "prev=[beta] now=[gamma]"));
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
    void loopPrevFieldAccessReadsStructuredOutputOfAnLlmNodeWithOutputSchema() {
      LoopRuns runs = new LoopRuns();
      RunResult r = runs.run("""
          defaults: {model: "openai:gpt-4o-mini"}
          mock:
            responses:
              review: ['{"verdict": "revise", "notes": "add tests"}', '{"verdict": "ok", "notes": "ship it"}']
          nodes:
            - id: g
              loop_group:
                max_iterations: 2
                nodes:
                  - id: implement
                    type: transform
                    template: "notes=[$LOOP_PREV.review.output.notes] verdict=[$LOOP_PREV.review.output.verdict]"
                  - id: review
                    depends_on: [implement]
                    prompt: "review"
                    output_schema:
                      type: object
                      required: [verdict, notes]
                      properties: {verdict: {type: string}, notes: {type: string}}
                  - id: report
                    depends_on: [review]
                    type: transform
                    template: "{{ implement.output }}"
          """);
      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.nodes().get("g").get("iterations")).isEqualTo(List.of(
          "notes=[] verdict=[]", "notes=[add tests] verdict=[revise]"));
    }

    @Test
    void loopPrevFieldAccessReadsAMapProducedByATransform() {
      LoopRuns runs = new LoopRuns();
      RunResult r = runs.run("""
          nodes:
            - id: g
              loop_group:
                max_iterations: 3
                nodes:
                  - id: stats
                    type: transform
                    expression: "{'n': loop.iteration * 10, 'tag': 'p' ~ loop.iteration}"
                  - id: show
                    depends_on: [stats]
                    type: transform
                    template: "n=$LOOP_PREV.stats.output.n tag=$LOOP_PREV.stats.output.tag"
          """);
      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.nodes().get("g").get("iterations")).isEqualTo(List.of(
          "n= tag=", "n=10 tag=p1", "n=20 tag=p2"));
    }

    @Test
    void loopPrevOfANodeThatDidNotRunLastPassIsEmpty() {
      // EDGE F: a reference to a body node absent from the prior pass resolves to empty, not an error.
      LoopRuns runs = new LoopRuns();
      RunResult r = runs.run("""
          nodes:
            - id: g
              loop_group:
                max_iterations: 3
                nodes:
                  - id: odd
                    when: "loop.iteration % 2 == 1"
                    type: transform
                    template: "odd {{ loop.iteration }}"
                  - id: show
                    type: transform
                    template: "prev odd=[$LOOP_PREV.odd.output]"
                output: show
          """);
      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.nodes().get("g").get("iterations")).isEqualTo(List.of(
          "prev odd=[]", "prev odd=[odd 1]", "prev odd=[]"));
    }

    @Test
    void loopPrevValueHoldingSugarOrTemplateSyntaxStaysLiteral() {
      LoopRuns runs = new LoopRuns().input("secret", "s3cr3t");
      RunResult r = runs.run("""
          input: {secret: string}
          defaults: {model: "openai:gpt-4o-mini"}
          mock: {responses: ["$LOOP_PREV.work.output {{ input.secret }} $LOOP_USER_INPUT {% if true %}x{% endif %}"]}
          nodes:
            - id: g
              loop_group:
                max_iterations: 2
                nodes:
                  - id: work
                    prompt: "go"
                  - id: show
                    depends_on: [work]
                    type: transform
                    template: "prev=$LOOP_PREV.work.output"
          """);
      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.nodes().get("g").get("output")).isEqualTo(
          "prev=$LOOP_PREV.work.output {{ input.secret }} $LOOP_USER_INPUT {% if true %}x{% endif %}");
      assertThat(String.valueOf(r.nodes().get("g").get("output"))).doesNotContain("s3cr3t");
    }

    @Test
    void loopPrevReachesAShellCommandAsDataNeverAsShellText(@TempDir Path dir) throws Exception {
      LoopRuns runs = new LoopRuns().in(dir);
      RunResult r = runs.run("""
          defaults: {model: "openai:gpt-4o-mini"}
          mock: {responses: ["$(touch pwned1); touch pwned2 `touch pwned3` ' \\" *"]}
          nodes:
            - id: g
              loop_group:
                max_iterations: 2
                nodes:
                  - id: work
                    prompt: "go"
                  - id: sh
                    depends_on: [work]
                    bash: "printf '%s|' $LOOP_PREV.work.output; echo \\"q=$LOOP_PREV.work.output\\""
          """);
      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      String payload = "$(touch pwned1); touch pwned2 `touch pwned3` ' \" *";
      assertThat(r.nodes().get("g").get("output")).isEqualTo(payload + "|q=" + payload);
      try (var files = Files.list(dir)) {
        assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith("pwned"));
      }
    }
  }

  @Nested
  class UntilCommand {
    @Test
    void untilBashEndsTheLoopWhenItExitsZero(@TempDir Path dir) throws Exception {
      LoopRuns runs = new LoopRuns().in(dir);
      RunResult r = runs.run("""
          nodes:
            - id: g
              loop_group:
                max_iterations: 10
                until_bash: 'test "$(cat counter)" -ge 3'
                nodes:
                  - id: bump
                    bash: 'n=$(cat counter 2>/dev/null || echo 0); n=$((n+1)); echo $n > counter; echo "pass $n"'
          """);
      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.nodes().get("g")).containsEntry("count", 3).containsEntry("exit_reason", "command")
          .containsEntry("output", "pass 3");
      assertThat(Files.readString(dir.resolve("counter")).strip()).isEqualTo("3");
    }

    @Test
    void untilCommandAliasAndCwdFieldWork(@TempDir Path dir) throws Exception {
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
    void untilBashThatNeverSucceedsExhaustsTheBound(@TempDir Path dir) {
      LoopRuns runs = new LoopRuns().in(dir);
      RunResult r = runs.run("""
          nodes:
            - id: g
              loop_group:
                max_iterations: 2
                until_bash: "exit 1"
                nodes:
                  - id: a
                    bash: "echo hi"
          """);
      assertThat(r.status()).isEqualTo(RunStatus.FAILED);
      assertThat(r.error().code()).isEqualTo("max_iterations_exceeded");
      assertThat(r.error().message()).contains("until_command");
      assertThat(r.nodes().get("g")).containsEntry("count", 2).containsEntry("exit_reason", "max_iterations");
    }

    @Test
    void untilBashReadsLoopPrevAndBodyResultsAsQuotedValues(@TempDir Path dir) {
      LoopRuns runs = new LoopRuns().in(dir);
      RunResult r = runs.run("""
          nodes:
            - id: g
              loop_group:
                max_iterations: 5
                until_bash: 'test "{{ a.output }}" = "v3; rm -rf /"'
                nodes:
                  - id: a
                    type: transform
                    template: "v{{ loop.iteration }}; rm -rf /"
          """);
      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.nodes().get("g")).containsEntry("count", 3).containsEntry("exit_reason", "command");
    }

    @Test
    void aBodyNodeNamedLikeTheUntilCommandKeepsItsOwnResultAndPosition(@TempDir Path dir) {
      LoopRuns runs = new LoopRuns().in(dir);
      RunResult r = runs.run("""
          nodes:
            - id: g
              loop_group:
                max_iterations: 2
                until_bash: "echo from-until; exit 1"
                on_exhausted: continue
                nodes:
                  - id: g_until
                    type: transform
                    template: "from-body {{ loop.iteration }}"
                  - id: show
                    depends_on: [g_until]
                    type: transform
                    template: "prev=[$LOOP_PREV.g_until.output] now=[{{ g_until.output }}]"
          """);
      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.nodes().get("g").get("iterations")).isEqualTo(List.of(
          "prev=[] now=[from-body 1]", "prev=[from-body 1] now=[from-body 2]"));
      // Two different executions must never share a position.
      assertThat(runs.started()).doesNotHaveDuplicates();
    }
  }

  @Nested
  class SeedEdges {
    @Test
    void edgeA_aFailingBodyNodeFailsTheLoopAtOnce(@TempDir Path dir) {
      LoopRuns runs = new LoopRuns().in(dir);
      RunResult r = runs.run("""
          nodes:
            - id: g
              loop_group:
                max_iterations: 4
                until: DONE
                nodes:
                  - id: build
                    bash: "echo building"
                  - id: check
                    depends_on: [build]
                    bash: "echo broken >&2; exit 3"
          """);
      assertThat(r.status()).isEqualTo(RunStatus.FAILED);
      assertThat(r.error().code()).isEqualTo("node_failed");
      assertThat(r.error().path()).isEqualTo("g[1].check");
      assertThat(r.error().message()).contains("broken");
      assertThat(r.nodes().get("g")).containsEntry("status", "failed").containsEntry("count", 1)
          .containsEntry("exit_reason", "error");
      assertThat(runs.started()).doesNotContain("g[2].build");
    }

    @Test
    void edgeA_aFailingBodyNodeWithAllowFailureExhaustsTheBound(@TempDir Path dir) {
      LoopRuns runs = new LoopRuns().in(dir);
      RunResult r = runs.run("""
          nodes:
            - id: g
              loop_group:
                max_iterations: 3
                until: DONE
                nodes:
                  - id: check
                    allow_failure: true
                    bash: "echo broken; exit 3"
          """);
      assertThat(r.status()).isEqualTo(RunStatus.FAILED);
      assertThat(r.error().code()).isEqualTo("max_iterations_exceeded");
      assertThat(r.nodes().get("g")).containsEntry("count", 3).containsEntry("exit_reason", "max_iterations");
      assertThat(runs.started()).contains("g[1].check", "g[2].check", "g[3].check");
    }

    @Test
    void edgeA_aFailedTerminalNodeNeverSignalsCompletionEvenIfItsStdoutHoldsTheSignal(@TempDir Path dir) {
      LoopRuns runs = new LoopRuns().in(dir);
      RunResult r = runs.run("""
          nodes:
            - id: g
              loop_group:
                max_iterations: 3
                until: DONE
                nodes:
                  - id: check
                    allow_failure: true
                    bash: "echo DONE; exit 3"
          """);
      assertThat(r.status()).isEqualTo(RunStatus.FAILED);
      assertThat(r.error().code()).isEqualTo("max_iterations_exceeded");
      assertThat(r.nodes().get("g")).containsEntry("count", 3).containsEntry("exit_reason", "max_iterations");
    }

    @Test
    void edgeB_bodyReadsAnOuterNodeThatCompletedBeforeTheGroup() {
      LoopRuns runs = new LoopRuns();
      RunResult r = runs.run("""
          defaults: {model: "openai:gpt-4o-mini"}
          mock: {responses: {plan: ["the plan"]}}
          nodes:
            - id: plan
              prompt: "plan it"
            - id: g
              depends_on: [plan]
              loop_group:
                max_iterations: 2
                nodes:
                  - id: use
                    type: transform
                    template: "{{ plan.text }} / pass {{ loop.iteration }}"
          """);
      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.nodes().get("g").get("iterations")).isEqualTo(List.of("the plan / pass 1", "the plan / pass 2"));
    }

    @Test
    void edgeC_freshContextFalseContinuesTheSessionAcrossPasses() {
      try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
        server.enqueue(Reply.text("answer one"), Reply.text("answer two"));
        RunResult r = new LoopRuns().against(server).run(session(false));
        assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
        String second = server.requests().get(1).body();
        assertThat(second).contains("question 1").contains("answer one").contains("question 2");
      }
    }

    @Test
    void edgeC_freshContextTrueStartsANewSessionEachPass() {
      try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
        server.enqueue(Reply.text("answer one"), Reply.text("answer two"));
        RunResult r = new LoopRuns().against(server).run(session(true));
        assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
        String second = server.requests().get(1).body();
        assertThat(second).contains("question 2").doesNotContain("question 1").doesNotContain("answer one");
      }
    }

    @Test
    void edgeC_freshContextTrueStillSharesTheSessionWithinOnePass() {
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
    void edgeC_mockScriptIsConsumedInCallOrderEvenWithFreshContext() {
      LoopRuns runs = new LoopRuns();
      RunResult r = runs.run("""
          defaults: {model: "openai:gpt-4o-mini"}
          mock: {responses: ["first", "second", "DONE"]}
          nodes:
            - id: g
              loop_group:
                max_iterations: 3
                until: DONE
                fresh_context: true
                nodes:
                  - id: a
                    prompt: "go"
          """);
      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.nodes().get("g").get("iterations")).isEqualTo(List.of("first", "second", "DONE"));
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

    @Test
    void edgeD_withSeveralTerminalNodesTheFirstInDefinitionOrderIsTheOutput() {
      LoopRuns runs = new LoopRuns();
      RunResult r = runs.run("""
          defaults: {model: "openai:gpt-4o-mini"}
          mock:
            responses:
              left: ["left says DONE"]
              right: ["DONE"]
          nodes:
            - id: g
              loop_group:
                max_iterations: 2
                until: DONE
                on_exhausted: continue
                nodes:
                  - id: left
                    prompt: "left"
                  - id: right
                    prompt: "right"
          """);
      assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
      // Only the first terminal node's output is tested for the signal, so the right node's DONE does not count.
      assertThat(r.nodes().get("g")).containsEntry("output", "left says DONE")
          .containsEntry("exit_reason", "max_iterations").containsEntry("count", 2);
      assertThat(runs.llmCalls()).contains("g[1].left", "g[1].right", "g[2].left", "g[2].right");
    }

    @Test
    void edgeD_aSkippedFirstTerminalYieldsToTheNextThatCompleted() {
      LoopRuns runs = new LoopRuns();
      RunResult r = runs.run("""
          nodes:
            - id: g
              loop_group:
                max_iterations: 2
                nodes:
                  - id: left
                    when: "loop.iteration == 2"
                    type: transform
                    template: "left {{ loop.iteration }}"
                  - id: right
                    type: transform
                    template: "right {{ loop.iteration }}"
          """);
      assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.nodes().get("g").get("iterations")).isEqualTo(List.of("right 1", "left 2"));
    }

    @Test
    void edgeD_outputNamesTheTerminalNodeExplicitly() {
      LoopRuns runs = new LoopRuns();
      RunResult r = runs.run("""
          nodes:
            - id: g
              loop_group:
                max_iterations: 2
                until: DONE
                output: right
                nodes:
                  - id: left
                    type: transform
                    template: "left"
                  - id: right
                    type: transform
                    template: "{% if loop.iteration == 2 %}DONE{% else %}not yet{% endif %}"
          """);
      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.nodes().get("g")).containsEntry("output", "DONE").containsEntry("exit_reason", "signal")
          .containsEntry("count", 2);
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

    @Test
    void edgeE_cancellingWhileAPassRunsStopsTheLoopAsCancelled() throws Exception {
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
    void edgeE_cancellingAtAPassBoundaryStopsTheLoopAsCancelled() throws Exception {
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

    @Test
    void edgeE_aCancelNodeInsideTheBodyEndsTheRunAsCancelled() {
      LoopRuns runs = new LoopRuns();
      RunResult r = runs.run("""
          nodes:
            - id: g
              loop_group:
                max_iterations: 5
                nodes:
                  - id: a
                    type: transform
                    template: "pass {{ loop.iteration }}"
                  - id: stop
                    depends_on: [a]
                    when: "loop.iteration == 2"
                    cancel: "enough at pass {{ loop.iteration }}"
            - id: after
              depends_on: [g]
              bash: "echo must not run"
          """);
      assertThat(r.status()).isEqualTo(RunStatus.CANCELLED);
      assertThat(r.nodes().get("g")).containsEntry("exit_reason", "cancelled").containsEntry("count", 2);
      assertThat(r.nodes().get("after")).containsEntry("status", "not_run");
      assertThat(runs.started()).doesNotContain("g[3].a");
    }

    @Test
    void edgeG_signalMatchShortCircuitsUntilBash(@TempDir Path dir) {
      LoopRuns runs = new LoopRuns().in(dir);
      RunResult r = runs.run("""
          defaults: {model: "openai:gpt-4o-mini"}
          mock: {responses: ["done here <promise>DONE</promise>"]}
          nodes:
            - id: g
              loop_group:
                max_iterations: 3
                until: DONE
                until_bash: "touch until_ran; exit 1"
                nodes:
                  - id: a
                    prompt: "go"
          """);
      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.nodes().get("g")).containsEntry("exit_reason", "signal").containsEntry("count", 1);
      assertThat(dir.resolve("until_ran")).doesNotExist();
    }

    @Test
    void edgeG_untilBashRunsAfterEachPassWithoutTheSignal(@TempDir Path dir) throws Exception {
      LoopRuns runs = new LoopRuns().in(dir);
      RunResult r = runs.run("""
          defaults: {model: "openai:gpt-4o-mini"}
          mock: {responses: ["nope", "nope", "<promise>DONE</promise>"]}
          nodes:
            - id: g
              loop_group:
                max_iterations: 5
                until: DONE
                until_bash: "echo ran >> until_log; exit 1"
                nodes:
                  - id: a
                    prompt: "go"
          """);
      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.nodes().get("g")).containsEntry("exit_reason", "signal").containsEntry("count", 3);
      assertThat(Files.readAllLines(dir.resolve("until_log"))).hasSize(2);
    }

    @Test
    void edgeG_eitherTestEndsTheLoop(@TempDir Path dir) {
      LoopRuns runs = new LoopRuns().in(dir);
      RunResult r = runs.run("""
          defaults: {model: "openai:gpt-4o-mini"}
          mock: {responses: ["nope"]}
          nodes:
            - id: g
              loop_group:
                max_iterations: 5
                until: DONE
                until_bash: "test {{ loop.iteration }} -ge 2"
                nodes:
                  - id: a
                    prompt: "go"
          """);
      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.nodes().get("g")).containsEntry("exit_reason", "command").containsEntry("count", 2);
    }

    @Test
    void edgeI_maxIterationsOneRunsASingleShotThatCompletesOnTheSignal() {
      LoopRuns runs = new LoopRuns();
      RunResult r = runs.run("""
          defaults: {model: "openai:gpt-4o-mini"}
          mock: {responses: ["DONE"]}
          nodes:
            - id: g
              loop_group:
                max_iterations: 1
                until: DONE
                nodes:
                  - id: a
                    prompt: "go"
          """);
      assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.nodes().get("g")).containsEntry("count", 1).containsEntry("exit_reason", "signal");
    }

    @Test
    void edgeI_maxIterationsOneWithoutTheSignalFailsAfterOnePass() {
      LoopRuns runs = new LoopRuns();
      RunResult r = runs.run("""
          defaults: {model: "openai:gpt-4o-mini"}
          mock: {responses: ["not finished"]}
          nodes:
            - id: g
              loop_group:
                max_iterations: 1
                until: DONE
                nodes:
                  - id: a
                    prompt: "go"
          """);
      assertThat(r.status()).isEqualTo(RunStatus.FAILED);
      assertThat(r.error().code()).isEqualTo("max_iterations_exceeded");
      assertThat(runs.llmCalls()).containsExactly("g[1].a");
    }
  }

  @Nested
  class BodyInheritsTheWorkflow {
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
  }

  @Nested
  class Positions {
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
  }
}
