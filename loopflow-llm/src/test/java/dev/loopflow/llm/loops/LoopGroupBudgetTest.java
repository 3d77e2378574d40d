package dev.loopflow.llm.loops;

import static dev.loopflow.llm.loops.LoopRuns.fixture;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.llm.loops.LoopRuns.Expect;
import dev.loopflow.testkit.FakeOpenAiServer;
import dev.loopflow.testkit.Reply;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Costs and budgets across loop_group passes: every pass's tokens and cost add up into the loop's usage and the
 * run's; a budget on the loop or the run is checked before every LLM call and stops the run with budget_exceeded
 * and the loop with exit_reason budget, without making the call.
 */
class LoopGroupBudgetTest {
  /** openai:gpt-4o-mini: $0.15 per million input tokens, $0.60 per million output tokens. */
  static double price(long in, long out) {
    return in * 0.15 / 1_000_000 + out * 0.60 / 1_000_000;
  }

  FakeOpenAiServer server;

  @BeforeEach
  void startServer() {
    server = FakeOpenAiServer.start();
  }

  @AfterEach
  void stopServer() {
    server.close();
  }

  LoopRuns runs() {
    return new LoopRuns().against(server);
  }

  /** Group g (at most 10 passes, until DONE) spending under {@code budget}; its body is the llm node a ("try"). */
  private static String tries(String budget) {
    return """
        defaults: {model: "openai:gpt-4o-mini"}
        nodes:
          - id: g
            loop_group:
              max_iterations: 10
              until: DONE
              budget: BUDGET
              nodes:
                - id: a
                  prompt: "try"
        """.replace("BUDGET", budget);
  }

  /** A row: what it shows, the reply every request gets (null: the fake server's default), the workflow, the run. */
  private static Arguments row(String behaviour, Reply reply, String yaml, Expect expect) {
    return Arguments.of(behaviour, reply, yaml, expect);
  }

  static Stream<Arguments> budgetStops() {
    Reply halfAThousand = Reply.text("not yet", 1000, 500);
    return Stream.of(
        row("loopBudgetReachedInsideTheLoopStopsBeforeTheNextCall", null,
            fixture("budget/loop_calls_with_prep_and_after.yaml"),
            Expect.failed("budget_exceeded").errorAt("g[3].a").errorSays("loop_group 'g'", "max_llm_calls 2")
                .requests(2).llmCalls("g[1].a", "g[2].a")
                .node("g", "status", "failed", "exit_reason", "budget", "count", 3).usage("g", "llm_calls", 2)
                .node("after", "status", "not_run").loopsCompleted("g:budget")),
        row("loopBudgetCountsOnlyTheLoopsOwnCalls", null, fixture("budget/loop_calls_after_outer_call.yaml"),
            Expect.failed("budget_exceeded").requests(3).llmCalls("outer", "g[1].a", "g[2].a")),
        row("runBudgetReachedInsideTheLoopEndsTheLoopWithExitReasonBudget", null, fixture("budget/run_calls.yaml"),
            Expect.failed("budget_exceeded").requests(3).node("g", "exit_reason", "budget")
                .check((runs, r) -> assertThat(r.usage().llmCalls()).isEqualTo(3))),
        row("loopCostBudgetStopsOnceTheSpendReachesIt", halfAThousand, tries("{max_usd: 0.0008}"),
            Expect.failed("budget_exceeded").errorSays("max_usd").requests(2).node("g", "exit_reason", "budget")
                .check((runs, r) -> assertThat((Double) LoopRuns.usageOf(r, "g").get("cost_usd"))
                    .isCloseTo(2 * price(1000, 500), within(1e-12)))),
        row("loopTokenBudgetStopsOnceTheTokensReachIt", halfAThousand, tries("{max_tokens: 3000}"),
            Expect.failed("budget_exceeded").errorSays("max_tokens").requests(2).node("g", "exit_reason", "budget")),
        row("budgetIsCheckedBeforeEveryCallEvenMidPass", null, fixture("budget/loop_calls_mid_pass.yaml"),
            Expect.failed("budget_exceeded").errorAt("g[2].review")
                .llmCalls("g[1].implement", "g[1].review", "g[2].implement").requests(3)),
        row("allowFailureOnTheCallingNodeDoesNotTurnABudgetStopIntoSuccess", null, fixture("budget/allow_failure.yaml"),
            Expect.failed("budget_exceeded").requests(1).node("g", "exit_reason", "budget")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("budgetStops")
  void budgetStopsTheRun(String behaviour, Reply reply, String yaml, Expect expect) {
    if (reply != null) {
      server.defaultReply(reply);
    }
    runs().verify(behaviour, yaml, Map.of(), expect);
  }

  @Test
  void costAndTokensOfEveryPassAddUpInTheLoopAndTheRun() {
    server.enqueue(Reply.text("the plan", 2000, 1000), Reply.text("draft", 1000, 500), Reply.text("better", 1000, 500),
        Reply.text("DONE", 1000, 500));
    LoopRuns runs = runs();
    RunResult r = runs.run("""
        defaults: {model: "openai:gpt-4o-mini"}
        nodes:
          - id: plan
            prompt: "plan"
          - id: g
            depends_on: [plan]
            loop_group:
              max_iterations: 5
              until: DONE
              nodes:
                - id: write
                  prompt: "write {{ loop.iteration }}"
        """);

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.nodes().get("g")).containsEntry("count", 3);
    Map<String, Object> loop = LoopRuns.usageOf(r, "g");
    assertThat(loop).containsEntry("input_tokens", 3000L).containsEntry("output_tokens", 1500L)
        .containsEntry("llm_calls", 3);
    assertThat((Double) loop.get("cost_usd")).isCloseTo(3 * price(1000, 500), within(1e-12));

    assertThat(r.usage().inputTokens()).isEqualTo(5000);
    assertThat(r.usage().outputTokens()).isEqualTo(2500);
    assertThat(r.usage().llmCalls()).isEqualTo(4);
    assertThat(r.usage().costUsd()).isCloseTo(price(2000, 1000) + 3 * price(1000, 500), within(1e-12));

    assertThat(runs.all(Event.LoopCompleted.class)).singleElement().satisfies(e -> {
      assertThat(e.inputTokens()).isEqualTo(3000);
      assertThat(e.outputTokens()).isEqualTo(1500);
      assertThat(e.llmCalls()).isEqualTo(3);
      assertThat(e.costUsd()).isCloseTo(3 * price(1000, 500), within(1e-12));
    });
    assertThat(runs.all(Event.NodeCompleted.class)).filteredOn(e -> e.node().path().equals("g")).singleElement()
        .satisfies(e -> {
          assertThat(e.inputTokens()).isEqualTo(3000);
          assertThat(e.costUsd()).isCloseTo(3 * price(1000, 500), within(1e-12));
        });
    double sumOfCalls = runs.all(Event.LlmCalled.class).stream().mapToDouble(Event.LlmCalled::costUsd).sum();
    assertThat(r.usage().costUsd()).isCloseTo(sumOfCalls, within(1e-12));
  }

  @Test
  void usageOfEveryBodyNodeInEveryPassCountsTowardsTheLoop() {
    LoopRuns runs = new LoopRuns();
    RunResult r = runs.run("""
        defaults: {model: "openai:gpt-4o-mini"}
        mock:
          responses:
            implement: [{text: "code", input_tokens: 10, output_tokens: 1}]
            review: [{text: "again", input_tokens: 100, output_tokens: 20}, {text: "DONE", input_tokens: 1000, output_tokens: 300}]
        nodes:
          - id: g
            loop_group:
              max_iterations: 4
              until: DONE
              nodes:
                - id: implement
                  prompt: "implement"
                - id: review
                  depends_on: [implement]
                  prompt: "review"
        """);
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(LoopRuns.usageOf(r, "g")).containsEntry("input_tokens", 1120L).containsEntry("output_tokens", 322L)
        .containsEntry("llm_calls", 4).containsEntry("cost_usd", 0.0);
    assertThat(r.usage().inputTokens()).isEqualTo(1120);
    assertThat(r.usage().llmCalls()).isEqualTo(4);
  }

  @Test
  void spendBeforeAPauseCountsTowardsTheLoopBudgetAfterResume() {
    server.defaultReply(Reply.text("not yet"));
    LoopRuns runs = runs();
    Workflow wf = runs.parse("""
        defaults: {model: "openai:gpt-4o-mini"}
        nodes:
          - id: g
            loop_group:
              max_iterations: 5
              until: DONE
              interactive: true
              gate_message: "more?"
              budget: {max_llm_calls: 2}
              nodes:
                - id: a
                  prompt: "try"
        """);
    RunResult p1 = runs.run(wf);
    assertThat(p1.status()).isEqualTo(RunStatus.PAUSED);
    RunResult p2 = runs.resume(wf, p1, "again");
    assertThat(p2.status()).as(String.valueOf(p2.error())).isEqualTo(RunStatus.PAUSED);
    RunResult r = runs.resume(wf, p2, "again");
    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("budget_exceeded");
    assertThat(server.requestCount()).isEqualTo(2);
    assertThat(r.nodes().get("g")).containsEntry("exit_reason", "budget");
  }

  @Test
  void runBudgetCountsSpendBeforeAPause() {
    server.defaultReply(Reply.text("not yet"));
    LoopRuns runs = runs();
    Workflow wf = runs.parse("""
        budget: {max_llm_calls: 1}
        defaults: {model: "openai:gpt-4o-mini"}
        nodes:
          - id: g
            loop_group:
              max_iterations: 5
              until: DONE
              interactive: true
              gate_message: "more?"
              nodes:
                - id: a
                  prompt: "try"
        """);
    RunResult p1 = runs.run(wf);
    RunResult r = runs.resume(wf, p1, "again");
    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("budget_exceeded");
    assertThat(server.requestCount()).isEqualTo(1);
  }
}
