package dev.loopflow.llm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.testkit.FakeAnthropicServer;
import dev.loopflow.testkit.FakeOpenAiServer;
import dev.loopflow.testkit.FakeServer;
import dev.loopflow.testkit.Reply;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A run's usage, cost and budgets count what real servers report: replies recorded from llama.cpp's
 * {@code llama-server} and the stream of Hugging Face {@code transformers serve}, replayed byte for byte.
 */
class RecordedRepliesRunTest {

  private final Loopflow engine = Loopflow.builder().store(RunStore.inMemory()).build();

  private RunResult run(FakeServer server, String yaml, boolean stream, List<Event> heard) {
    return engine.run(engine.parse(yaml, "recorded.yaml"), RunOptions.builder()
        .environment(Map.of("OPENAI_BASE_URL", server.baseUrl(), "OPENAI_API_KEY", "sk-test",
            "ANTHROPIC_BASE_URL", server.rootUri().toString(), "ANTHROPIC_API_KEY", "k"))
        .option(LlmHandler.STREAM_OPTION, stream).listener(heard::add).build());
  }

  @ParameterizedTest(name = "streamed: {0}")
  @ValueSource(booleans = {false, true})
  void anthropicPromptTokensReadFromTheCacheCountAsInputAndCostTheCacheReadPrice(boolean stream) {
    Reply.Recorded recorded = Reply.recorded(stream ? "llama-server/anthropic-cached-stream"
        : "llama-server/anthropic-cached");
    long uncached = usage(recorded, "input_tokens");
    long read = usage(recorded, "cache_read_input_tokens");
    long written = usage(recorded, "cache_creation_input_tokens");
    long out = usage(recorded, "output_tokens");
    try (FakeServer server = FakeAnthropicServer.start()) {
      server.defaultReply(recorded);
      List<Event> heard = new CopyOnWriteArrayList<>();
      RunResult r = run(server, """
          prices:
            anthropic:
              toy: {input: 3.00, output: 15.00, cache_read: 0.30, cache_write: 3.75}
          budget: {max_tokens: 100000, max_usd: 1}
          nodes:
            - id: ask
              model: "anthropic:toy"
              prompt: "Say hello"
          """, stream, heard);

      assertThat(r.status()).as("%s", r.error()).isEqualTo(RunStatus.COMPLETED);
      assertThat(server.requestCount()).isEqualTo(1);
      assertThat(r.usage().inputTokens()).isEqualTo(uncached + read + written);
      assertThat(r.usage().outputTokens()).isEqualTo(out);
      BigDecimal expected = new BigDecimal("3.00").multiply(BigDecimal.valueOf(uncached))
          .add(new BigDecimal("0.30").multiply(BigDecimal.valueOf(read)))
          .add(new BigDecimal("3.75").multiply(BigDecimal.valueOf(written)))
          .add(new BigDecimal("15.00").multiply(BigDecimal.valueOf(out))).movePointLeft(6);
      assertThat(r.usage().costUsd()).isCloseTo(expected.doubleValue(), org.assertj.core.data.Offset.offset(1e-12));
      assertThat(heard).filteredOn(Event.LlmCalled.class::isInstance).map(Event.LlmCalled.class::cast)
          .singleElement().satisfies(c -> {
            assertThat(c.inputTokens()).isEqualTo(uncached + read + written);
            assertThat(c.cacheReadTokens()).isEqualTo(read);
            assertThat(c.cacheWriteTokens()).isEqualTo(written == 0 ? null : written);
          });
    }
  }

  @ParameterizedTest(name = "node timeout set: {0}")
  @ValueSource(booleans = {false, true})
  void aStreamedReplyWithoutTheDoneMarkerCompletesTheNodeWithOneRequestAndItsUsage(boolean timeout) {
    Reply.Recorded recorded = Reply.recorded("transformers-serve/openai-stream-no-done");
    try (FakeServer server = FakeOpenAiServer.start()) {
      server.defaultReply(recorded);
      List<Event> heard = new CopyOnWriteArrayList<>();
      RunResult r = run(server, """
          nodes:
            - id: ask
              model: "openai:toy"
              prompt: "Say hello"
          """ + (timeout ? "    timeout: 30s\n" : ""), true, heard);

      assertThat(r.status()).as("%s", r.error()).isEqualTo(RunStatus.COMPLETED);
      assertThat(server.requestCount()).isEqualTo(1);
      assertThat(r.usage().llmCalls()).isEqualTo(1);
      assertThat(r.usage().inputTokens()).isEqualTo(usage(recorded, "prompt_tokens"));
      assertThat(r.usage().outputTokens()).isEqualTo(usage(recorded, "completion_tokens"));
      assertThat(String.valueOf(r.output())).isNotEmpty();
      assertThat(heard).filteredOn(Event.LlmCalled.class::isInstance).map(Event.LlmCalled.class::cast)
          .singleElement().satisfies(c -> assertThat(c.attempts()).isEqualTo(1));
    }
  }

  /** A usage count as the recording holds it (the largest, for a stream that repeats it), 0 when absent. */
  static long usage(Reply.Recorded recorded, String field) {
    Matcher m = Pattern.compile("\"" + field + "\"\\s*:\\s*(\\d+)").matcher(recorded.text());
    long max = 0;
    while (m.find()) {
      max = Math.max(max, Long.parseLong(m.group(1)));
    }
    return max;
  }
}
