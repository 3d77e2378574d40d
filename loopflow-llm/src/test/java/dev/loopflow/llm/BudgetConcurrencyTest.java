package dev.loopflow.llm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.llm.provider.ChatCall;
import dev.loopflow.testkit.FakeOllamaServer;
import dev.loopflow.testkit.FakeOpenAiServer;
import dev.loopflow.testkit.FakeServer;
import dev.loopflow.testkit.RecordedRequest;
import dev.loopflow.testkit.Reply;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Budgets under real concurrency: parallel llm nodes and iterator items racing for the last calls of a budget, the
 * run's and a loop's, against the mock provider and a fake OpenAI server that counts what reaches it. Each race is
 * run many times. Where the server holds its replies until the first call was refused (a latch, never a sleep),
 * every call that won its reservation is still under way when the others ask, so the count is exact.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BudgetConcurrencyTest {
  private static final int ROUNDS = 15;
  final Loopflow engine = Loopflow.create();

  /**
   * Six llm nodes that depend only on a first node, so all six are ready at once under the default concurrency of 8
   * (nodes that declare no dependencies at all run in list order).
   */
  private static String sixParallel(String head, String model) {
    return head + "nodes:\n" + parallelNodes("  ", model, "", "p");
  }

  private static String parallelNodes(String indent, String model, String extra, String prompt) {
    StringBuilder y = new StringBuilder(indent).append("- {id: go, type: transform, template: \"go\"}\n");
    for (int i = 1; i <= 6; i++) {
      y.append(indent).append("- {id: n").append(i).append(", depends_on: [go], model: \"").append(model)
          .append("\"").append(extra).append(", prompt: \"").append(prompt).append("\"}\n");
    }
    return y.toString();
  }

  /** An iterator over 20 one-letter items, 8 at a time, each item one llm call with {@code max_tokens: 100}. */
  private static String iterator(String head, String iteratorExtra, String model) {
    return head + """
        nodes:
          - {id: each, type: iterator, items: "{{ input.items }}", concurrency: 8%s}
          - {id: ask, model: "%s", max_tokens: 100, prompt: "x {{ loop.item }}"}
          - {id: collect, type: aggregator}
        edges:
          - {from: each, to: ask}
          - {from: ask, to: collect}
        """.formatted(iteratorExtra, model);
  }

  private static final List<String> ITEMS = List.of("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m",
      "n", "o", "p", "q", "r", "s", "t");

  /** The prompt bound reserved for {@code x <letter>} (one user message, no system prompt). */
  private static long promptBound() {
    return LlmCalls.promptTokensAtMost(ChatCall.of("m", "x a"));
  }

  private RunResult run(String yaml, FakeServer server, Consumer<Event> listener) {
    Workflow wf = engine.parse(yaml, "t.yaml");
    return engine.run(wf, options(server, listener));
  }

  private static RunOptions options(FakeServer server, Consumer<Event> listener) {
    Map<String, String> env = new HashMap<>();
    env.put("PATH", System.getenv("PATH"));
    if (server instanceof FakeOpenAiServer s) {
      env.put("OPENAI_BASE_URL", s.baseUrl());
      env.put("OPENAI_API_KEY", "sk-test");
    } else if (server instanceof FakeOllamaServer s) {
      env.put("OLLAMA_BASE_URL", s.baseUrl());
    }
    return RunOptions.builder().inputs(Map.of("items", ITEMS)).environment(env).listener(listener::accept).build();
  }

  private static long calls(List<Event> events) {
    return events.stream().filter(Event.LlmCalled.class::isInstance).count();
  }

  /**
   * Replies only once the run has refused a call for budget (or after 30 s, so a broken ledger fails the test
   * instead of hanging it): until then every call that got through is under way.
   */
  private static Consumer<Event> holdRepliesUntilARefusal(FakeServer server, Reply reply) {
    CountDownLatch refused = new CountDownLatch(1);
    server.respondWith(req -> {
      try {
        refused.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return reply;
    });
    return e -> {
      if (e instanceof Event.NodeFailed f && "budget_exceeded".equals(f.errorCode())) {
        refused.countDown();
      }
    };
  }

  // ---------------------------------------------------------------------------------------------------------------
  // max_llm_calls

  @Test
  void parallelMockCallsStopAtExactlyMaxLlmCalls() {
    for (int round = 0; round < ROUNDS; round++) {
      List<Event> events = new CopyOnWriteArrayList<>();
      RunResult r = run(sixParallel("budget: {max_llm_calls: 2}\n", "mock:m"), null, events::add);
      assertThat(r.status()).as("round %d", round).isEqualTo(RunStatus.FAILED);
      assertThat(r.error().code()).isEqualTo("budget_exceeded");
      assertThat(r.error().message()).contains("max_llm_calls 2 reached");
      assertThat(calls(events)).as("answers the mock gave, round %d", round).isEqualTo(2);
      assertThat(r.usage().llmCalls()).isEqualTo(2);
    }
  }

  @Test
  void concurrentCallsToAServerNeverPassMaxLlmCalls_bugNoReservation() {
    for (int round = 0; round < ROUNDS; round++) {
      try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
        // Slow replies keep the first calls under way while the others ask: without a reservation all six went out.
        server.defaultReply(Reply.text("ok").after(Duration.ofMillis(200)));
        RunResult r = run(sixParallel("budget: {max_llm_calls: 2}\n", "openai:gpt-4o-mini"), server, e -> { });
        assertThat(r.error().code()).as("round %d", round).isEqualTo("budget_exceeded");
        // The refusal fails the run and interrupts the two calls that got through, which may stop them before their
        // requests leave (then they do not count; the mock test above counts exactly). Every request that reached
        // the server is counted, and never more than two.
        assertThat(server.requestCount()).as("requests, round %d", round)
            .isLessThanOrEqualTo(r.usage().llmCalls());
        assertThat(r.usage().llmCalls()).isLessThanOrEqualTo(2);
      }
    }
  }

  @Test
  void concurrentIteratorItemsNeverPassMaxLlmCalls_bugNoReservation() {
    for (int round = 0; round < ROUNDS; round++) {
      try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
        Consumer<Event> hold = holdRepliesUntilARefusal(server, Reply.text("ok", 20, 5));
        RunResult r = run(iterator("budget: {max_llm_calls: 2}\n", "", "openai:gpt-4o-mini"), server, hold);
        assertThat(r.status()).as("round %d", round).isEqualTo(RunStatus.FAILED);
        assertThat(r.error().code()).isEqualTo("budget_exceeded");
        assertThat(server.requestCount()).as("requests, round %d", round).isEqualTo(2);
        assertThat(r.usage().llmCalls()).isEqualTo(2);
        assertThat(r.nodes().get("each")).containsEntry("exit_reason", "budget");
      }
    }
  }

  @Test
  void continueOnErrorDoesNotForgiveASpentBudget_bugIteratorSwallowedTheBudgetStop() {
    for (int round = 0; round < ROUNDS; round++) {
      try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
        Consumer<Event> hold = holdRepliesUntilARefusal(server, Reply.text("ok", 20, 5));
        RunResult r = run(iterator("budget: {max_llm_calls: 2}\n", ", continue_on_error: true",
            "openai:gpt-4o-mini"), server, hold);
        assertThat(r.status()).as("round %d", round).isEqualTo(RunStatus.FAILED);
        assertThat(r.error().code()).isEqualTo("budget_exceeded");
        assertThat(server.requestCount()).isEqualTo(2);
        assertThat(r.nodes().get("each")).containsEntry("exit_reason", "budget");
      }
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // max_tokens and max_usd

  @Test
  void concurrentCallsNeverPassMaxTokens_bugNoReservation() {
    long reserved = promptBound() + 100; // the prompt's bound plus the node's max_tokens
    long limit = 2 * reserved + promptBound() - 1; // a third call's prompt no longer fits
    for (int round = 0; round < ROUNDS; round++) {
      try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
        // Each call uses all it reserved, so however the items interleave a third call never fits.
        Consumer<Event> hold = holdRepliesUntilARefusal(server, Reply.text("ok", promptBound(), 100));
        RunResult r = run(iterator("budget: {max_tokens: " + limit + "}\n", "", "openai:gpt-4o-mini"), server, hold);
        assertThat(r.error().code()).as("round %d", round).isEqualTo("budget_exceeded");
        assertThat(r.error().message()).contains("max_tokens " + limit + " would be passed");
        assertThat(server.requestCount()).as("requests, round %d", round).isEqualTo(2);
        assertThat(server.requests()).allSatisfy(req -> assertThat(maxTokens(req)).isEqualTo(100));
        assertThat(r.usage().totalTokens()).isEqualTo(2 * reserved).isLessThanOrEqualTo(limit);
      }
    }
  }

  @Test
  void concurrentCallsNeverPassMaxUsd_bugNoReservation() {
    // gpt-4o-mini: $0.15 per million prompt tokens, $0.60 per million reply tokens.
    double reserved = (promptBound() * 0.15 + 100 * 0.60) / 1_000_000;
    double limit = 2 * reserved + promptBound() * 0.15 / 1_000_000 / 2; // a third call's prompt no longer fits
    for (int round = 0; round < ROUNDS; round++) {
      try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
        Consumer<Event> hold = holdRepliesUntilARefusal(server, Reply.text("ok", promptBound(), 100));
        RunResult r = run(iterator("budget: {max_usd: " + plain(limit) + "}\n", "", "openai:gpt-4o-mini"), server,
            hold);
        assertThat(r.error().code()).as("round %d", round).isEqualTo("budget_exceeded");
        assertThat(r.error().message()).contains("max_usd").contains("would be passed");
        assertThat(server.requestCount()).as("requests, round %d", round).isEqualTo(2);
        assertThat(r.usage().costUsd()).isEqualTo(2 * reserved, within());
        assertThat(r.usage().costUsd()).isLessThanOrEqualTo(limit);
      }
    }
  }

  @Test
  void concurrentParallelNodesNeverPassMaxTokensOrMaxUsd_bugNoReservation() {
    long reserved = promptBound() + 100;
    double usdPerCall = (promptBound() * 0.15 + 100 * 0.60) / 1_000_000;
    List<String> budgets = List.of("{max_tokens: " + (2 * reserved + promptBound() - 1) + "}",
        "{max_usd: " + plain(2 * usdPerCall + promptBound() * 0.15 / 1_000_000 / 2) + "}");
    for (String budget : budgets) {
      for (int round = 0; round < ROUNDS; round++) {
        try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
          Consumer<Event> hold = holdRepliesUntilARefusal(server, Reply.text("ok", promptBound(), 100));
          RunResult r = run("budget: " + budget + "\nnodes:\n"
              + parallelNodes("  ", "openai:gpt-4o-mini", ", max_tokens: 100", "x a"), server, hold);
          assertThat(r.error().code()).as("%s, round %d", budget, round).isEqualTo("budget_exceeded");
          assertThat(r.error().message()).contains("would be passed");
          // The refusal fails the run and interrupts the two calls under way (see the max_llm_calls test).
          assertThat(server.requestCount()).as("%s, round %d", budget, round)
              .isLessThanOrEqualTo(r.usage().llmCalls());
          assertThat(r.usage().llmCalls()).isLessThanOrEqualTo(2);
          assertThat(server.requests()).allSatisfy(req -> assertThat(maxTokens(req)).isEqualTo(100));
          assertThat(r.usage().totalTokens()).isLessThanOrEqualTo(2 * reserved);
        }
      }
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Loop budgets

  @Test
  void concurrentCallsNeverPassALoopGroupsMaxLlmCalls_bugNoReservation() {
    String yaml = """
        nodes:
          - id: g
            loop_group:
              max_iterations: 3
              budget: {max_llm_calls: 2}
              nodes:
        %s""";
    for (int round = 0; round < ROUNDS; round++) {
      List<Event> events = new CopyOnWriteArrayList<>();
      RunResult r = run(yaml.formatted(parallelNodes("          ", "mock:m", "", "p")), null, events::add);
      assertThat(r.error().code()).as("round %d", round).isEqualTo("budget_exceeded");
      assertThat(r.error().message()).contains("budget of loop_group 'g' exceeded: max_llm_calls 2 reached");
      assertThat(calls(events)).as("answers the mock gave, round %d", round).isEqualTo(2);
      assertThat(r.nodes().get("g")).containsEntry("exit_reason", "budget");

      try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
        Consumer<Event> hold = holdRepliesUntilARefusal(server, Reply.text("ok", 20, 5));
        RunResult s = run(yaml.formatted(parallelNodes("          ", "openai:gpt-4o-mini", "", "p")), server, hold);
        assertThat(s.error().code()).as("round %d", round).isEqualTo("budget_exceeded");
        assertThat(server.requestCount()).as("requests, round %d", round).isLessThanOrEqualTo(s.usage().llmCalls());
        assertThat(s.usage().llmCalls()).isLessThanOrEqualTo(2);
      }
    }
  }

  @Test
  void concurrentItemsNeverPassTheIteratorsOwnMaxLlmCalls_bugNoReservation() {
    for (int round = 0; round < ROUNDS; round++) {
      try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
        Consumer<Event> hold = holdRepliesUntilARefusal(server, Reply.text("ok", 20, 5));
        RunResult r = run(iterator("", ", budget: {max_llm_calls: 2}", "openai:gpt-4o-mini"), server, hold);
        assertThat(r.error().code()).as("round %d", round).isEqualTo("budget_exceeded");
        assertThat(r.error().message()).contains("budget of iterator 'each' exceeded");
        assertThat(server.requestCount()).as("requests, round %d", round).isEqualTo(2);
        assertThat(r.nodes().get("each")).containsEntry("exit_reason", "budget");
      }
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // What a request is sent with, and what happens when a provider reports more than was reserved

  @Test
  void underATokenBudgetACallWithoutMaxTokensIsSentWhatTheBudgetLeaves() {
    long bound = LlmCalls.promptTokensAtMost(ChatCall.of("m", "hi"));
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.defaultReply(Reply.text("ok", 5, 5));
      run("budget: {max_tokens: 300}\nnodes:\n  - {id: a, model: \"openai:gpt-4o-mini\", prompt: \"hi\"}\n", server,
          e -> { });
      assertThat(maxTokens(server.lastRequest())).isEqualTo(300 - bound);
      run("budget: {max_tokens: 100000}\nnodes:\n  - {id: a, model: \"openai:gpt-4o-mini\", prompt: \"hi\"}\n",
          server, e -> { });
      assertThat(maxTokens(server.lastRequest())).isEqualTo(4096);
      run("budget: {max_llm_calls: 5}\nnodes:\n  - {id: a, model: \"openai:gpt-4o-mini\", prompt: \"hi\"}\n",
          server, e -> { });
      assertThat(server.lastRequest().json().has("max_tokens")).as("no token budget: no limit added").isFalse();
    }
  }

  @Test
  void aReplyBeyondItsReservationThatPassesTheLimitFailsTheRun() {
    // The mock reports its script's usage and ignores max_tokens, as a provider that overshoots would.
    RunResult r = run("""
        budget: {max_tokens: 200}
        nodes:
          - id: a
            model: "mock:m"
            max_tokens: 50
            prompt: "hi"
            mock: [{text: "a very long reply", input_tokens: 10, output_tokens: 400}]
          - {id: b, depends_on: [a], model: "mock:m", prompt: "again"}
        """, null, e -> { });
    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("budget_exceeded");
    assertThat(r.error().node()).isEqualTo("a");
    assertThat(r.error().message()).contains("max_tokens 200 passed (410 tokens used)").contains("used 410 tokens");
    assertThat(r.usage().totalTokens()).isEqualTo(410);
    assertThat(r.nodes().get("b")).containsEntry("status", "not_run");
  }

  @Test
  void aFailedCallCountsAsACallButSpendsNoTokens() {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.defaultReply(Reply.error(400, "bad request"));
      RunResult r = run("""
          budget: {max_llm_calls: 1, max_tokens: 100000}
          nodes:
            - {id: a, model: "openai:gpt-4o-mini", prompt: "hi", allow_failure: true}
            - {id: b, depends_on: [a], model: "openai:gpt-4o-mini", prompt: "again"}
          """, server, e -> { });
      assertThat(r.error().code()).isEqualTo("budget_exceeded");
      assertThat(r.error().node()).isEqualTo("b");
      assertThat(server.requestCount()).isEqualTo(1);
      assertThat(r.usage().llmCalls()).isEqualTo(1);
      assertThat(r.usage().totalTokens()).isZero();
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // A model whose price is known only at run time

  @Test
  void aModelChosenAtRunTimeWithoutPriceFailsTheCallUnderMaxUsd() {
    try (FakeOllamaServer server = FakeOllamaServer.start()) {
      RunResult r = run("budget: {max_usd: 1}\nnodes:\n  - {id: a, model: auto, prompt: \"hi\"}\n", server, e -> { });
      assertThat(r.status()).isEqualTo(RunStatus.FAILED);
      assertThat(r.error().code()).isEqualTo("node_failed");
      assertThat(r.error().message()).contains("model 'ollama:llama3.2' has no known price")
          .contains("max_usd of the run's budget").contains("was not made").contains("prices:");
      assertThat(server.requestCount()).isZero();

      RunResult priced = run("""
          budget: {max_usd: 1}
          prices: {ollama: {llama3.2: {input: 1, output: 2}}}
          nodes:
            - {id: a, model: auto, prompt: "hi"}
          """, server, e -> { });
      assertThat(priced.status()).as(String.valueOf(priced.error())).isEqualTo(RunStatus.COMPLETED);
      Usage u = priced.usage();
      assertThat(u.costUsd()).isEqualTo((u.inputTokens() * 1.0 + u.outputTokens() * 2.0) / 1_000_000, within());

      RunResult noUsdLimit = run("budget: {max_llm_calls: 3}\nnodes:\n  - {id: a, model: auto, prompt: \"hi\"}\n",
          server, e -> { });
      assertThat(noUsdLimit.status()).isEqualTo(RunStatus.COMPLETED);
      assertThat(noUsdLimit.usage().costUsd()).as("unknown, not free").isNull();
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Resume

  @Test
  void failedCallsBeforeAResumeStillCount_bugResumeForgotFailedExecutions() throws Exception {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.defaultReply(Reply.text("not json", 10, 10));
      Workflow wf = engine.parse("""
          budget: {max_llm_calls: 2}
          nodes:
            - id: a
              model: "openai:gpt-4o-mini"
              prompt: "give me json"
              output_schema: {type: object}
          """, "t.yaml");
      RunResult first = engine.run(wf, options(server, e -> { }));
      assertThat(first.error().code()).isEqualTo("node_failed");
      RunResult second = engine.resume(wf, first.runId(), (String) null, options(server, e -> { })).await();
      assertThat(second.error().code()).isEqualTo("node_failed");
      assertThat(second.usage().llmCalls()).as("both attempts' calls").isEqualTo(2);
      RunResult third = engine.resume(wf, first.runId(), (String) null, options(server, e -> { })).await();
      assertThat(third.error().code()).isEqualTo("budget_exceeded");
      assertThat(third.error().message()).contains("max_llm_calls 2 reached (2 calls made)");
      assertThat(server.requestCount()).isEqualTo(2);
    }
  }

  @Test
  void journalRowsAddUpToTheRunsUsage_bugStoppedLoopRowRepeatedItsBodysUsage() {
    RunResult r = run("""
        nodes:
          - id: first
            model: "mock:m"
            prompt: "before"
          - id: g
            depends_on: [first]
            loop_group:
              max_iterations: 5
              budget: {max_llm_calls: 2}
              nodes:
                - {id: a, model: "mock:m", prompt: "try"}
        """, null, e -> { });
    assertThat(r.error().code()).isEqualTo("budget_exceeded");
    Usage sum = Usage.NONE;
    for (NodeExecution row : engine.store().nodeExecutions(r.runId())) {
      sum = sum.plus(row.usage());
    }
    assertThat(sum.llmCalls()).isEqualTo(3);
    assertThat(sum).isEqualTo(r.usage());
  }

  @Test
  void aResumedRunStartsFromWhatItsJournalSaysWasSpent() throws Exception {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      Workflow wf = engine.parse("""
          budget: {max_llm_calls: 2}
          nodes:
            - {id: a, model: "openai:gpt-4o-mini", prompt: "1"}
            - {id: b, depends_on: [a], model: "openai:gpt-4o-mini", prompt: "2"}
            - {id: c, depends_on: [b], model: "openai:gpt-4o-mini", prompt: "3"}
          """, "t.yaml");
      RunResult first = engine.run(wf, options(server, e -> { }));
      assertThat(first.error().code()).isEqualTo("budget_exceeded");
      RunResult again = engine.resume(wf, first.runId(), (String) null, options(server, e -> { })).await();
      assertThat(again.error().code()).isEqualTo("budget_exceeded");
      assertThat(again.error().node()).isEqualTo("c");
      assertThat(again.usage().llmCalls()).isEqualTo(2);
      assertThat(server.requestCount()).isEqualTo(2);
    }
  }

  private static String plain(double usd) {
    return java.math.BigDecimal.valueOf(usd).toPlainString();
  }

  private static int maxTokens(RecordedRequest req) {
    return req.json().get("max_tokens").asInt();
  }

  private static org.assertj.core.data.Offset<Double> within() {
    return org.assertj.core.data.Offset.offset(1e-12);
  }
}
