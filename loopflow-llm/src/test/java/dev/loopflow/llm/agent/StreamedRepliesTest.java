package dev.loopflow.llm.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.llm.LlmHandler;
import dev.loopflow.testkit.FakeAnthropicServer;
import dev.loopflow.testkit.FakeOllamaServer;
import dev.loopflow.testkit.FakeOpenAiServer;
import dev.loopflow.testkit.FakeServer;
import dev.loopflow.testkit.Reply;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * llm and agent nodes with the run option {@code llm.stream}: on every provider (the fakes speak each real streaming
 * wire format) and the mock, a streamed run's results, usage and tool calls are the unstreamed run's; the text
 * arrives as ephemeral {@code node.streaming} events; cancelling stops the stream; budgets hold; a stream that
 * breaks off is retried and never passes for a complete reply; hostile replies neither break nor flood anything.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StreamedRepliesTest {
  record Provider(String name, Supplier<FakeServer> start, String model) {
    @Override
    public String toString() {
      return name;
    }

    boolean mock() {
      return start == null;
    }
  }

  static final Provider MOCK = new Provider("mock", null, "mock:scripted");

  static Stream<Arguments> fakes() {
    return Stream.of(
        Arguments.of(new Provider("openai", FakeOpenAiServer::start, "openai:gpt-4o-mini")),
        Arguments.of(new Provider("anthropic", FakeAnthropicServer::start, "anthropic:claude-sonnet-4-5")),
        Arguments.of(new Provider("ollama", FakeOllamaServer::start, "ollama:fake-model")));
  }

  static Stream<Arguments> providers() {
    return Stream.concat(fakes(), Stream.of(Arguments.of(MOCK)));
  }

  /** One engine and store; each run gets the provider's environment, and streams or not. */
  static final class Runs {
    final Loopflow engine;
    final Map<String, String> env = new HashMap<>();

    Runs(Provider p, FakeServer server, Clock clock) {
      engine = Loopflow.builder().store(RunStore.inMemory()).clock(clock).build();
      if (server != null) {
        switch (p.name()) {
          case "openai" -> env.put("OPENAI_BASE_URL", server.baseUrl());
          case "anthropic" -> env.put("ANTHROPIC_BASE_URL", server.rootUri().toString());
          default -> env.put("OLLAMA_BASE_URL", server.baseUrl());
        }
        env.put("OPENAI_API_KEY", "sk-test-key-0000000000");
        env.put("ANTHROPIC_API_KEY", "k");
      }
    }

    Runs(Provider p, FakeServer server) {
      this(p, server, Clock.systemUTC());
    }

    RunOptions opts(boolean stream, List<Event> heard) {
      return RunOptions.builder().environment(env).option(LlmHandler.STREAM_OPTION, stream).listener(heard::add)
          .build();
    }

    Heard run(String yaml, boolean stream) {
      List<Event> heard = new CopyOnWriteArrayList<>();
      Workflow wf = engine.parse(yaml, "streamed.yaml");
      RunResult r = engine.run(wf, opts(stream, heard));
      return new Heard(r, heard, engine.store().events(r.runId()));
    }
  }

  record Heard(RunResult result, List<Event> events, List<Event> journaled) {
    List<Event.NodeStreaming> streamed() {
      return events.stream().filter(Event.NodeStreaming.class::isInstance).map(Event.NodeStreaming.class::cast)
          .toList();
    }

    String text(int reply) {
      return streamed().stream().filter(s -> s.reply() == reply).map(Event.NodeStreaming::tokens)
          .collect(Collectors.joining());
    }
  }

  private static String llmWorkflow(Provider p, List<String> mock) {
    return """
        nodes:
          - id: ask
            type: llm
            model: "%s"
            prompt: "Tell me about Paris."
        """.formatted(p.model()) + mockBlock(p, mock);
  }

  private static String agentWorkflow(Provider p, List<String> mock, String budget) {
    return (budget == null ? "" : "budget: " + budget + "\n") + """
        nodes:
          - id: agent
            type: agent
            model: "%s"
            prompt: "Note the city, then answer."
            tools: [shared_memory_write]
        """.formatted(p.model()) + mockBlock(p, mock);
  }

  /** The mock's script as the node's mock: list (YAML flow items). */
  private static String mockBlock(Provider p, List<String> items) {
    if (!p.mock()) {
      return "";
    }
    return "    mock:\n" + items.stream().map(i -> "      - " + i + "\n").collect(Collectors.joining());
  }

  private static final String ANSWER = "Paris is the capital of France; it sits on the Seine and has about two "
      + "million people.";

  @ParameterizedTest(name = "{0}")
  @MethodSource("providers")
  void aStreamedLlmNodeHasTheUnstreamedResultAndUsage(Provider p) {
    try (FakeServer server = p.mock() ? null : p.start().get()) {
      if (server != null) {
        server.defaultReply(Reply.text(ANSWER, 40, 22));
      }
      Runs runs = new Runs(p, server);
      String yaml = llmWorkflow(p, List.of("{text: \"" + ANSWER + "\", input_tokens: 40, output_tokens: 22}"));

      Heard plain = runs.run(yaml, false);
      Heard streamed = runs.run(yaml, true);

      assertThat(plain.result().status()).as("%s", plain.result().error()).isEqualTo(RunStatus.COMPLETED);
      assertThat(streamed.result().status()).as("%s", streamed.result().error()).isEqualTo(RunStatus.COMPLETED);
      assertThat(streamed.result().nodes()).isEqualTo(plain.result().nodes());
      assertThat(streamed.result().output()).isEqualTo(ANSWER);
      assertThat(streamed.result().usage()).isEqualTo(plain.result().usage());
      assertThat(plain.streamed()).isEmpty();
      assertThat(streamed.streamed()).isNotEmpty().allMatch(s -> s.nodeId().equals("ask") && s.reply() == 1);
      assertThat(streamed.text(1)).isEqualTo(ANSWER);
      assertThat(streamed.journaled()).noneMatch(e -> e instanceof Event.NodeStreaming);
      // The reply's text, then its call, then the node's completion.
      List<String> types = streamed.events().stream().map(Event::type).toList();
      assertThat(types.lastIndexOf("node.streaming")).isLessThan(types.indexOf("llm.call"));
      assertThat(types.indexOf("llm.call")).isLessThan(types.indexOf("node.completed"));
      if (server != null) {
        assertThat(server.streamsSent()).isEqualTo(1);
        assertThat(server.requests().get(1).json().path("stream").asBoolean()).isTrue();
        assertThat(server.requests().get(0).json().path("stream").asBoolean(false)).isFalse();
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("providers")
  void aStreamedAgentWithAToolCallHasTheUnstreamedResultUsageAndCalls(Provider p) {
    try (FakeServer server = p.mock() ? null : p.start().get()) {
      if (server != null) {
        server.respondWith(q -> q.toolResults().isEmpty()
            ? new Reply.ToolCalls(List.of(new Reply.Call(p.name().equals("ollama") ? null : "call_1",
                "shared_memory_write", "{\"key\":\"city\",\"value\":\"Paris\"}")),
                "I will note it first.", 30, 12)
            : Reply.text("Noted: Paris.", 55, 4));
      }
      Runs runs = new Runs(p, server);
      String yaml = agentWorkflow(p, List.of(
          "{text: \"I will note it first.\", tool_calls: [{name: shared_memory_write, arguments: {key: city, value: "
              + "Paris}}], input_tokens: 30, output_tokens: 12}",
          "{text: \"Noted: Paris.\", input_tokens: 55, output_tokens: 4}"), null);

      Heard plain = runs.run(yaml, false);
      Heard streamed = runs.run(yaml, true);

      assertThat(plain.result().status()).as("%s", plain.result().error()).isEqualTo(RunStatus.COMPLETED);
      assertThat(streamed.result().status()).as("%s", streamed.result().error()).isEqualTo(RunStatus.COMPLETED);
      assertThat(streamed.result().nodes()).isEqualTo(plain.result().nodes());
      assertThat(streamed.result().usage()).isEqualTo(plain.result().usage());
      assertThat(streamed.result().usage().llmCalls()).isEqualTo(2);
      assertThat(AgentRuns.toolCalls(streamed.result(), "agent")).hasSize(1)
          .allSatisfy(c -> assertThat(c).containsEntry("name", "shared_memory_write"));
      // Each turn is a reply of its own.
      assertThat(streamed.text(1)).isEqualTo("I will note it first.");
      assertThat(streamed.text(2)).isEqualTo("Noted: Paris.");
      assertThat(streamed.journaled()).noneMatch(e -> e instanceof Event.NodeStreaming);
      // The journaled steps are the same in both runs.
      assertThat(steps(streamed)).isEqualTo(steps(plain));
    }
  }

  private static List<Map<String, Object>> steps(Heard h) {
    return h.journaled().stream().filter(Event.NodeStep.class::isInstance).map(e -> ((Event.NodeStep) e).step())
        .toList();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("providers")
  void aBudgetOfCallsHoldsForStreamedReplies(Provider p) {
    try (FakeServer server = p.mock() ? null : p.start().get()) {
      if (server != null) {
        server.defaultReply(Reply.toolCalls(Reply.call("shared_memory_write", "{\"key\":\"k\",\"value\":\"v\"}")));
      }
      Runs runs = new Runs(p, server);
      String yaml = agentWorkflow(p, List.of("{tool_calls: [{name: shared_memory_write, arguments: {key: k, value: "
          + "v}}]}"), "{max_llm_calls: 2}");

      Heard plain = runs.run(yaml, false);
      Heard streamed = runs.run(yaml, true);

      assertThat(streamed.result().status()).isEqualTo(RunStatus.FAILED);
      assertThat(streamed.result().error().code()).isEqualTo(plain.result().error().code())
          .isEqualTo(dev.loopflow.core.error.ErrorCode.BUDGET_EXCEEDED.code());
      assertThat(streamed.result().usage()).isEqualTo(plain.result().usage());
      assertThat(streamed.result().usage().llmCalls()).isEqualTo(2);
      if (server != null) {
        assertThat(server.requestCount()).isEqualTo(4); // two per run, none past the budget
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fakes")
  void cancellingTheRunMidStreamStopsTheStreamAndTheRunEndsCancelled(Provider p) throws Exception {
    try (FakeServer server = p.start().get()) {
      server.defaultReply(Reply.streamed(Reply.text("a slow and endless answer ".repeat(200))).inChunksOf(6)
          .pausing(Duration.ofMillis(10)));
      Runs runs = new Runs(p, server);
      CountDownLatch streaming = new CountDownLatch(1);
      List<Event> heard = new CopyOnWriteArrayList<>();
      RunHandle handle = runs.engine.start(runs.engine.parse(llmWorkflow(p, List.of()), "streamed.yaml"),
          RunOptions.builder().environment(runs.env).option(LlmHandler.STREAM_OPTION, true).listener(e -> {
            heard.add(e);
            if (e instanceof Event.NodeStreaming) {
              streaming.countDown();
            }
          }).build());

      assertThat(streaming.await(60, TimeUnit.SECONDS)).as("a streamed event arrived").isTrue();
      handle.cancel("enough");
      RunResult r = handle.await();

      assertThat(r.status()).isEqualTo(RunStatus.CANCELLED);
      awaitAbandoned(server);
      assertThat(server.requestCount()).as("a cancelled stream is not retried").isEqualTo(1);
      // Nothing of the node is published after it was cancelled.
      List<String> types = heard.stream().map(Event::type).toList();
      assertThat(types.lastIndexOf("node.streaming")).isLessThan(types.indexOf("node.cancelled"));
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fakes")
  void aStreamThatBreaksOffIsNotSentAgainButANodeRetryMakesANewCallWhoseReplyIsTheResult(Provider p) {
    String text = "A reply long enough to be broken off part way through its stream, and then sent again in full "
        + "by the node's retry, which completes.";
    try (FakeServer server = p.start().get()) {
      server.enqueue(Reply.streamed(Reply.text(text, 9, 30)).cutAfter(9), Reply.text(text, 9, 30));
      Heard h = new Runs(p, server).run(llmWorkflow(p, List.of()).replace("type: llm\n",
          "type: llm\n    retry: {max_attempts: 2, delay: 1ms}\n"), true);

      assertThat(h.result().status()).as("%s", h.result().error()).isEqualTo(RunStatus.COMPLETED);
      assertThat(h.result().output()).isEqualTo(text);
      assertThat(server.requestCount()).isEqualTo(2);
      // The cut call is sent, its usage unknown: it counts as a call, at its reservation.
      assertThat(h.result().usage().llmCalls()).isEqualTo(2);
      // What the cut reply streamed, then the whole reply of the node's second attempt.
      assertThat(h.text(1)).endsWith(text).hasSizeGreaterThan(text.length());
      assertThat(h.events().stream().filter(Event.LlmCalled.class::isInstance).map(Event.LlmCalled.class::cast))
          .singleElement().satisfies(c -> assertThat(c.attempts()).isEqualTo(1));
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fakes")
  void aStreamThatBreaksOffFailsTheNodeAfterOneRequestAndNeverPassesForAReply(Provider p) {
    try (FakeServer server = p.start().get()) {
      server.defaultReply(Reply.streamed(Reply.text("cut short every time, every single time")).cutAfter(5));
      Heard h = new Runs(p, server).run(llmWorkflow(p, List.of()), true);

      assertThat(h.result().status()).isEqualTo(RunStatus.FAILED);
      assertThat(h.result().error().code()).isEqualTo(dev.loopflow.core.error.ErrorCode.NODE_FAILED.code());
      assertThat(h.result().error().message()).contains("streamed reply from").contains("was cut off after 5 events")
          .doesNotContain("could not be reached");
      assertThat(server.requestCount()).isEqualTo(1);
    }
  }

  static Stream<Arguments> hostileReplies() {
    List<Arguments> out = new ArrayList<>();
    Map<String, String> replies = new java.util.LinkedHashMap<>();
    replies.put("terminal escapes", "\u001b[2J\u001b[H\u001b]0;owned\u0007fake prompt$ \r\u001b[1A\u001b[2K"
        + "\b\b\u0000\u009b31mred");
    replies.put("line breaks", "one\ntwo\r\nthree\rfour\u2028five\u0085six");
    replies.put("surrogates and bidi", "\uD83D\uDE00 \u202Egnp.exe\u202C \uD83D\uDC4D".repeat(20));
    replies.put("one megabyte", "m".repeat(1 << 20));
    for (Arguments f : fakes().toList()) {
      replies.forEach((what, text) -> out.add(Arguments.of(f.get()[0], what, text)));
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("hostileReplies")
  void aHostileReplyIsStreamedWholeWithoutFloodingListeners(Provider p, String what, String text) {
    try (FakeServer server = p.start().get()) {
      // Large pieces for the large reply, so the test stays fast; a clock that does not move, so only the amount
      // of waiting text publishes before the end of the reply.
      server.defaultReply(Reply.streamed(Reply.text(text, 3, 3)).inChunksOf(text.length() > 10_000 ? 65_536 : 3));
      Clock still = Clock.fixed(Instant.parse("2025-01-01T00:00:00Z"), ZoneOffset.UTC);
      Heard h = new Runs(p, server, still).run(llmWorkflow(p, List.of()), true);

      assertThat(h.result().status()).as("%s", h.result().error()).isEqualTo(RunStatus.COMPLETED);
      assertThat(h.result().output()).isEqualTo(text);
      assertThat(h.text(1)).isEqualTo(text);
      assertThat(h.streamed()).hasSizeLessThanOrEqualTo(text.length() / 8192 + 2);
    }
  }

  /** The fake notices a closed connection on its next write. */
  static void awaitAbandoned(FakeServer server) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (server.streamsAbandoned() == 0 && System.nanoTime() < end) {
      Thread.sleep(20);
    }
    assertThat(server.streamsAbandoned()).as("streams whose connection the client closed").isEqualTo(1);
  }

  @Test
  void theMockStreamsItsScriptedReplyInPieces() {
    Heard h = new Runs(MOCK, null).run(llmWorkflow(MOCK, List.of("\"" + ANSWER + "\"")), true);

    assertThat(h.result().output()).isEqualTo(ANSWER);
    assertThat(h.text(1)).isEqualTo(ANSWER);
    assertThat(h.streamed()).allMatch(s -> s.reply() == 1);
  }
}
