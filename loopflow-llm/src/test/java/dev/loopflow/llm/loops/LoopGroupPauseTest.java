package dev.loopflow.llm.loops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.testkit.FakeOpenAiServer;
import dev.loopflow.testkit.Reply;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Interactive loop_group: the run pauses after each pass that did not finish,
 * and a resume feeds the person's answer to the next pass as loop.user_input / $LOOP_USER_INPUT. A resume restores
 * what already ran from the journal: completed body executions are not repeated and the previous pass's outputs
 * ($LOOP_PREV) are still there.
 */
class LoopGroupPauseTest {
  FakeOpenAiServer server;
  @TempDir Path dir;

  @BeforeEach
  void startServer() {
    server = FakeOpenAiServer.start();
  }

  @AfterEach
  void stopServer() {
    server.close();
  }

  LoopRuns runs() {
    return new LoopRuns().against(server).in(dir);
  }

  /** implement (llm) -> test (shell, logs every execution) -> review (llm); pauses between passes. */
  static final String FIX = """
      name: interactive-fix
      defaults: {model: "openai:gpt-4o-mini"}
      nodes:
        - id: fix
          loop_group:
            max_iterations: 3
            until: TESTS_PASS
            interactive: true
            gate_message: "Pass {{ loop.iteration }} of {{ loop.max }} done: {{ review.text }}. Feedback?"
            nodes:
              - id: implement
                prompt: "Implement. Feedback=<$LOOP_USER_INPUT> also=<{{ loop.user_input }}> prev=<$LOOP_PREV.review.output>"
              - id: test
                depends_on: [implement]
                bash: 'echo "test pass {{ loop.iteration }}" >> test_log; echo ok'
              - id: review
                depends_on: [test]
                prompt: "Review {{ implement.text }}"
      """;

  private String request(int i) {
    return server.requests().get(i).body();
  }

  @Test
  void pausesAfterAPassThatDidNotFinishWithTheGateMessageRendered() {
    server.enqueue(Reply.text("impl 1"), Reply.text("needs work"));
    LoopRuns runs = runs();
    RunResult r = runs.run(FIX);

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.PAUSED);
    assertThat(r.waiting().path()).isEqualTo("fix[1].gate");
    assertThat(r.waiting().message()).isEqualTo("Pass 1 of 3 done: needs work. Feedback?");
    assertThat(runs.all(Event.RunPaused.class)).singleElement().satisfies(e -> {
      assertThat(e.node().path()).isEqualTo("fix[1].gate");
      assertThat(e.message()).isEqualTo("Pass 1 of 3 done: needs work. Feedback?");
    });
    assertThat(runs.all(Event.LoopCompleted.class)).isEmpty();
    assertThat(runs.started()).noneMatch(p -> p.startsWith("fix[2]"));
    assertThat(r.nodes().get("fix").get("status")).isNotEqualTo("completed");
    assertThat(server.requestCount()).isEqualTo(2);
  }

  @Test
  void withoutAGateMessageADefaultMessageNamesTheLoopAndPass() {
    server.enqueue(Reply.text("nope"));
    RunResult r = runs().run("""
        defaults: {model: "openai:gpt-4o-mini"}
        nodes:
          - id: fix
            loop_group:
              max_iterations: 3
              until: DONE
              interactive: true
              nodes:
                - id: a
                  prompt: "go"
        """);
    assertThat(r.status()).isEqualTo(RunStatus.PAUSED);
    assertThat(r.waiting().path()).isEqualTo("fix[1].gate");
    assertThat(r.waiting().message()).contains("fix").contains("1").isNotBlank();
  }

  @Test
  void resumeFeedsTheAnswerToTheNextPassAsUserInput() {
    server.enqueue(Reply.text("impl 1"), Reply.text("needs work"), Reply.text("impl 2"), Reply.text("TESTS_PASS"));
    LoopRuns runs = runs();
    Workflow wf = runs.parse(FIX);
    RunResult paused = runs.run(wf);
    assertThat(paused.status()).isEqualTo(RunStatus.PAUSED);

    RunResult r = runs.resume(wf, paused, "handle empty input");

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.runId()).isEqualTo(paused.runId());
    assertThat(request(0)).contains("Feedback=<> also=<>");
    assertThat(request(2)).contains("Feedback=<handle empty input> also=<handle empty input>");
    assertThat(r.nodes().get("fix")).containsEntry("count", 2).containsEntry("exit_reason", "signal")
        .containsEntry("output", "TESTS_PASS");
    assertThat(r.nodes().get("fix").get("iterations")).isEqualTo(List.of("needs work", "TESTS_PASS"));
  }

  @Test
  void loopPrevOfThePassBeforeThePauseStillResolvesAfterResume() {
    // $LOOP_PREV must not resolve to '' on the first pass after a resume.
    server.enqueue(Reply.text("impl 1"), Reply.text("needs work: add tests"), Reply.text("impl 2"),
        Reply.text("TESTS_PASS"));
    LoopRuns runs = runs();
    Workflow wf = runs.parse(FIX);
    RunResult paused = runs.run(wf);

    RunResult r = runs.resume(wf, paused, "ok");

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(request(0)).contains("prev=<>");
    assertThat(request(2)).contains("prev=<needs work: add tests>");
  }

  @Test
  void completedBodyExecutionsAreNotRepeatedAfterResume() throws Exception {
    server.enqueue(Reply.text("impl 1"), Reply.text("needs work"), Reply.text("impl 2"), Reply.text("TESTS_PASS"));
    LoopRuns runs = runs();
    Workflow wf = runs.parse(FIX);
    RunResult paused = runs.run(wf);
    assertThat(Files.readAllLines(dir.resolve("test_log"))).containsExactly("test pass 1");
    runs.clearEvents();

    RunResult r = runs.resume(wf, paused, "go on");

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(server.requestCount()).isEqualTo(4);
    assertThat(Files.readAllLines(dir.resolve("test_log"))).containsExactly("test pass 1", "test pass 2");
    assertThat(runs.started()).noneMatch(p -> p.startsWith("fix[1]."));
    assertThat(runs.llmCalls()).containsExactly("fix[2].implement", "fix[2].review");
    assertThat(runs.all(Event.LoopStarted.class)).isEmpty();
    assertThat(runs.all(Event.LoopIteration.class)).extracting(Event.LoopIteration::iteration).containsExactly(2);
  }

  @Test
  void resumedRunReportsTheSameUsageAsAnUninterruptedOne() {
    server.enqueue(Reply.text("impl 1", 100, 10), Reply.text("needs work", 200, 20), Reply.text("impl 2", 300, 30),
        Reply.text("TESTS_PASS", 400, 40));
    LoopRuns runs = runs();
    Workflow wf = runs.parse(FIX);
    RunResult paused = runs.run(wf);
    assertThat(paused.usage().llmCalls()).isEqualTo(2);

    RunResult r = runs.resume(wf, paused, "go on");

    assertThat(r.usage().inputTokens()).isEqualTo(1000);
    assertThat(r.usage().outputTokens()).isEqualTo(100);
    assertThat(r.usage().llmCalls()).isEqualTo(4);
    assertThat(LoopRuns.usageOf(r, "fix")).containsEntry("input_tokens", 1000L).containsEntry("output_tokens", 100L)
        .containsEntry("llm_calls", 4);
    assertThat(runs.all(Event.LoopCompleted.class)).singleElement().satisfies(e -> {
      assertThat(e.llmCalls()).isEqualTo(4);
      assertThat(e.inputTokens()).isEqualTo(1000);
      assertThat(e.iterationsRun()).isEqualTo(2);
    });
  }

  @Test
  void stateWrittenByBodyNodesBeforeThePauseIsThereAfterResume() {
    LoopRuns runs = runs();
    Workflow wf = runs.parse("""
        nodes:
          - id: fix
            loop_group:
              max_iterations: 2
              interactive: true
              gate_message: "more?"
              nodes:
                - id: first_only
                  when: "loop.iteration == 1"
                  type: transform
                  template: "written in pass {{ loop.iteration }}"
                  output: early
                - id: every
                  type: transform
                  template: "pass {{ loop.iteration }}"
                  output: latest
        """);
    RunResult paused = runs.run(wf);
    assertThat(paused.state()).containsEntry("early", "written in pass 1").containsEntry("latest", "pass 1");
    RunResult r = runs.resume(wf, paused, "go");
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.state()).containsEntry("early", "written in pass 1").containsEntry("latest", "pass 2");
  }

  @Test
  void resumingTwiceCarriesEachAnswerToThePassAfterItsGate() {
    server.enqueue(Reply.text("i1"), Reply.text("r1"), Reply.text("i2"), Reply.text("r2"), Reply.text("i3"),
        Reply.text("TESTS_PASS"));
    LoopRuns runs = runs();
    Workflow wf = runs.parse(FIX);
    RunResult first = runs.run(wf);
    assertThat(first.waiting().path()).isEqualTo("fix[1].gate");

    RunResult second = runs.resume(wf, first, "answer one");
    assertThat(second.status()).as(String.valueOf(second.error())).isEqualTo(RunStatus.PAUSED);
    assertThat(second.waiting().path()).isEqualTo("fix[2].gate");
    assertThat(second.waiting().message()).isEqualTo("Pass 2 of 3 done: r2. Feedback?");

    RunResult third = runs.resume(wf, second, "answer two");
    assertThat(third.status()).as(String.valueOf(third.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(third.nodes().get("fix")).containsEntry("count", 3).containsEntry("exit_reason", "signal");
    assertThat(server.requestCount()).isEqualTo(6);
    assertThat(request(2)).contains("Feedback=<answer one>").contains("prev=<r1>");
    assertThat(request(4)).contains("Feedback=<answer two>").contains("prev=<r2>");
    assertThat(runs.all(Event.RunPaused.class)).extracting(e -> e.node().path())
        .containsExactly("fix[1].gate", "fix[2].gate");
  }

  @Test
  void maxIterationsOneInteractiveNeverPauses() {
    server.enqueue(Reply.text("not yet"));
    LoopRuns runs = runs();
    RunResult r = runs.run("""
        defaults: {model: "openai:gpt-4o-mini"}
        nodes:
          - id: fix
            loop_group:
              max_iterations: 1
              until: DONE
              interactive: true
              gate_message: "again?"
              nodes:
                - id: a
                  prompt: "go"
        """);
    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("max_iterations_exceeded");
    assertThat(runs.all(Event.RunPaused.class)).isEmpty();
  }

  @Test
  void interactiveGroupWithoutATestPausesBetweenPassesButNotAfterTheLast() {
    server.enqueue(Reply.text("one"), Reply.text("two"));
    LoopRuns runs = runs();
    Workflow wf = runs.parse("""
        defaults: {model: "openai:gpt-4o-mini"}
        nodes:
          - id: fix
            loop_group:
              max_iterations: 2
              interactive: true
              gate_message: "continue?"
              nodes:
                - id: a
                  prompt: "go {{ loop.user_input }}"
        """);
    RunResult paused = runs.run(wf);
    assertThat(paused.status()).isEqualTo(RunStatus.PAUSED);
    RunResult r = runs.resume(wf, paused, "yes");
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.nodes().get("fix")).containsEntry("count", 2).containsEntry("exit_reason", "max_iterations")
        .containsEntry("output", "two");
    assertThat(runs.all(Event.RunPaused.class)).hasSize(1);
  }

  @Test
  void aPassThatSignalsDoesNotPause() {
    server.enqueue(Reply.text("<promise>TESTS_PASS</promise>"));
    LoopRuns runs = runs();
    RunResult r = runs.run("""
        defaults: {model: "openai:gpt-4o-mini"}
        nodes:
          - id: fix
            loop_group:
              max_iterations: 3
              until: TESTS_PASS
              interactive: true
              gate_message: "again?"
              nodes:
                - id: a
                  prompt: "go"
        """);
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(runs.all(Event.RunPaused.class)).isEmpty();
  }

  @Test
  void untilBashThatSucceedsAfterAPassDoesNotPause() {
    LoopRuns runs = runs();
    RunResult r = runs.run("""
        nodes:
          - id: fix
            loop_group:
              max_iterations: 3
              until_bash: "true"
              interactive: true
              gate_message: "again?"
              nodes:
                - id: a
                  bash: "echo work"
        """);
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.nodes().get("fix")).containsEntry("exit_reason", "command").containsEntry("count", 1);
    assertThat(runs.all(Event.RunPaused.class)).isEmpty();
  }

  @Test
  void userInputReachesShellCommandsAsDataAndPromptsLiterally() throws Exception {
    server.enqueue(Reply.text("first"), Reply.text("second"));
    LoopRuns runs = runs().input("secret", "s3cr3t");
    Workflow wf = runs.parse("""
        input: {secret: string}
        defaults: {model: "openai:gpt-4o-mini"}
        nodes:
          - id: fix
            loop_group:
              max_iterations: 2
              interactive: true
              gate_message: "input?"
              nodes:
                - id: ask
                  prompt: "user said <$LOOP_USER_INPUT>"
                - id: sh
                  depends_on: [ask]
                  bash: 'echo "got:$LOOP_USER_INPUT" > got.txt; echo $LOOP_USER_INPUT'
        """);
    RunResult paused = runs.run(wf);
    String evil = "$(touch pwned1); `touch pwned2` {{ input.secret }} $LOOP_PREV.ask.output ' \"";

    RunResult r = runs.resume(wf, paused, evil);

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(Files.readString(dir.resolve("got.txt")).strip()).isEqualTo("got:" + evil);
    assertThat(r.nodes().get("fix").get("output")).isEqualTo(evil);
    assertThat(dir.resolve("pwned1")).doesNotExist();
    assertThat(dir.resolve("pwned2")).doesNotExist();
    String body = server.requests().get(1).json().path("messages").toString();
    assertThat(body).contains("{{ input.secret }}").contains("$LOOP_PREV.ask.output").doesNotContain("s3cr3t");
  }

  @Test
  void userInputIsOnlyTheAnswerToTheGateJustBeforeThePass() {
    server.enqueue(Reply.text("a"), Reply.text("b"), Reply.text("c"));
    LoopRuns runs = runs();
    Workflow wf = runs.parse("""
        defaults: {model: "openai:gpt-4o-mini"}
        nodes:
          - id: fix
            loop_group:
              max_iterations: 3
              interactive: true
              gate_message: "input?"
              nodes:
                - id: ask
                  prompt: "pass {{ loop.iteration }} input <{{ loop.user_input }}>"
        """);
    RunResult p1 = runs.run(wf);
    RunResult p2 = runs.resume(wf, p1, "first answer");
    RunResult r = runs.resume(wf, p2, "second answer");
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(request(0)).contains("pass 1 input <>");
    assertThat(request(1)).contains("pass 2 input <first answer>");
    assertThat(request(2)).contains("pass 3 input <second answer>");
  }

  @Test
  void aCompletedRunCannotBeResumed() {
    server.enqueue(Reply.text("impl"), Reply.text("TESTS_PASS"));
    LoopRuns runs = runs();
    Workflow wf = runs.parse(FIX);
    RunResult done = runs.run(wf);
    assertThat(done.status()).isEqualTo(RunStatus.COMPLETED);
    assertThatThrownBy(() -> runs.engine.resume(wf, done.runId(), "more", runs.options()))
        .isInstanceOf(LoopflowException.class).hasMessageContaining("completed");
  }

  @Test
  void nodesAfterTheGroupRunOnlyOnceTheResumedGroupFinishes() {
    server.enqueue(Reply.text("nope"), Reply.text("DONE"));
    LoopRuns runs = runs();
    Workflow wf = runs.parse("""
        defaults: {model: "openai:gpt-4o-mini"}
        nodes:
          - id: before
            bash: "echo before >> order_log; echo before"
          - id: fix
            depends_on: [before]
            loop_group:
              max_iterations: 3
              until: DONE
              interactive: true
              gate_message: "more?"
              nodes:
                - id: a
                  prompt: "go"
          - id: after
            depends_on: [fix]
            bash: 'echo "after {{ fix.output }}" >> order_log; echo after'
        """);
    RunResult paused = runs.run(wf);
    assertThat(paused.nodes().get("after")).containsEntry("status", "not_run");
    RunResult r = runs.resume(wf, paused, "again");
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.nodes().get("after")).containsEntry("status", "completed");
    assertThat(r.nodes().get("before")).containsEntry("status", "completed");
    try {
      assertThat(Files.readAllLines(dir.resolve("order_log"))).containsExactly("before", "after DONE");
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void untilCommandsOfPassesBeforeThePauseAreNotRerunOnResume() throws Exception {
    LoopRuns runs = runs();
    Workflow wf = runs.parse("""
        nodes:
          - id: fix
            loop_group:
              max_iterations: 3
              until_bash: 'echo "until after pass {{ loop.iteration }}" >> until_log; test {{ loop.iteration }} -ge 2'
              interactive: true
              gate_message: "more?"
              nodes:
                - id: a
                  bash: "echo work"
        """);
    RunResult paused = runs.run(wf);
    assertThat(paused.status()).isEqualTo(RunStatus.PAUSED);
    RunResult r = runs.resume(wf, paused, "go");
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.nodes().get("fix")).containsEntry("exit_reason", "command").containsEntry("count", 2);
    assertThat(Files.readAllLines(dir.resolve("until_log"))).containsExactly("until after pass 1",
        "until after pass 2");
  }

  @Test
  void aBodyNodeNamedLikeTheUntilCommandIsNotRerunOnResume() throws Exception {
    LoopRuns runs = runs();
    Workflow wf = runs.parse("""
        nodes:
          - id: fix
            loop_group:
              max_iterations: 3
              until_bash: "exit 1"
              interactive: true
              gate_message: "more?"
              nodes:
                - id: fix_until
                  bash: 'echo "body pass {{ loop.iteration }}" >> body_log; echo body'
        """);
    RunResult paused = runs.run(wf);
    RunResult r = runs.resume(wf, paused, "go");
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.PAUSED);
    assertThat(Files.readAllLines(dir.resolve("body_log"))).containsExactly("body pass 1", "body pass 2");
  }

  // ---------------------------------------------------------------------------------------------------------
  // What a resume must restore besides node results: LLM sessions and the mock script's position.

  @Test
  void llmSessionContinuesAcrossAPauseWhenFreshContextIsFalse() {
    server.enqueue(Reply.text("answer one"), Reply.text("answer two"));
    LoopRuns runs = runs();
    Workflow wf = runs.parse("""
        defaults: {model: "openai:gpt-4o-mini"}
        nodes:
          - id: fix
            loop_group:
              max_iterations: 2
              interactive: true
              gate_message: "more?"
              nodes:
                - id: chat
                  session: conv
                  prompt: "question {{ loop.iteration }}"
        """);
    RunResult paused = runs.run(wf);
    RunResult r = runs.resume(wf, paused, "go");
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(request(1)).contains("question 2").contains("question 1").contains("answer one");
  }

  @Test
  void freshContextStillStartsANewSessionForThePassAfterAResume() {
    server.enqueue(Reply.text("answer one"), Reply.text("answer two"));
    LoopRuns runs = runs();
    Workflow wf = runs.parse("""
        defaults: {model: "openai:gpt-4o-mini"}
        nodes:
          - id: fix
            loop_group:
              max_iterations: 2
              fresh_context: true
              interactive: true
              gate_message: "more?"
              nodes:
                - id: chat
                  session: conv
                  prompt: "question {{ loop.iteration }}"
        """);
    RunResult paused = runs.run(wf);
    RunResult r = runs.resume(wf, paused, "go");
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(request(1)).contains("question 2").doesNotContain("question 1").doesNotContain("answer one");
  }

  @Test
  void mockScriptPositionSurvivesAResume() {
    LoopRuns runs = new LoopRuns();
    Workflow wf = runs.parse("""
        defaults: {model: "openai:gpt-4o-mini"}
        mock: {responses: ["first reply", "DONE"]}
        nodes:
          - id: fix
            loop_group:
              max_iterations: 3
              until: DONE
              interactive: true
              gate_message: "more?"
              nodes:
                - id: a
                  prompt: "go"
        """);
    RunResult paused = runs.run(wf);
    assertThat(paused.status()).isEqualTo(RunStatus.PAUSED);
    RunResult r = runs.resume(wf, paused, "next");
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.nodes().get("fix")).containsEntry("count", 2).containsEntry("output", "DONE");
    assertThat(r.nodes().get("fix").get("iterations")).isEqualTo(List.of("first reply", "DONE"));
  }
}
