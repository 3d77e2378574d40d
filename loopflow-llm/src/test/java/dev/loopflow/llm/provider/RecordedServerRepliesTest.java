package dev.loopflow.llm.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.type;

import dev.loopflow.testkit.FakeAnthropicServer;
import dev.loopflow.testkit.FakeOpenAiServer;
import dev.loopflow.testkit.FakeServer;
import dev.loopflow.testkit.Reply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The provider clients read what real server software sends: replies recorded from llama.cpp's {@code llama-server}
 * and nginx, and the stream of Hugging Face {@code transformers serve}, replayed byte for byte (see
 * {@code bench/providers/README.md} for how each was made).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RecordedServerRepliesTest {

    private final List<FakeServer> servers = new ArrayList<>();
    private final RecordingSleeper sleeper = new RecordingSleeper();

    @AfterEach
    void close() {
        servers.forEach(FakeServer::close);
    }

    private <S extends FakeServer> S started(S server) {
        servers.add(server);
        return server;
    }

    private ChatClient client(Provider provider, FakeServer server) {
        return Providers.client(new ProviderSettings(provider, server.baseUrl(), "sk-test", Duration.ofSeconds(10),
                sleeper.policy(3)));
    }

    private static ChatCall hello() {
        return ChatCall.of("toy", "Say hello");
    }

    @Test
    void aStreamThatEndsWithItsFinishReasonAndUsageButNoDoneMarkerIsACompleteReplyFromOneRequest() {
        FakeServer server = started(FakeOpenAiServer.start());
        server.defaultReply(Reply.recorded("transformers-serve/openai-stream-no-done"));
        StreamingChatClientTest.Sink sink = new StreamingChatClientTest.Sink();

        ChatReply reply = client(Provider.OPENAI, server).stream(hello(), sink);

        assertThat(server.requestCount()).isEqualTo(1);
        assertThat(reply.attempts()).isEqualTo(1);
        assertThat(reply.text()).isNotEmpty().isEqualTo(sink.joined());
        assertThat(reply.finishReason()).isEqualTo("stop");
        assertThat(reply.inputTokens()).isPositive();
        assertThat(reply.outputTokens()).isPositive();
        assertThat(sink.restarts).isZero();
    }

    @Test
    void aStreamCutOffBeforeItsFinishReasonIsNotSentAgainAndSaysItWasCutOff() {
        FakeServer server = started(FakeOpenAiServer.start());
        Reply.Recorded whole = Reply.recorded("transformers-serve/openai-stream-no-done");
        Reply.Recorded cut = whole.firstEvents(whole.eventCount() - 1);
        server.defaultReply(cut);

        assertThatThrownBy(() -> client(Provider.OPENAI, server).stream(hello(), new StreamingChatClientTest.Sink()))
                .asInstanceOf(type(ProviderException.class))
                .satisfies(e -> {
                    assertThat(e.kind()).isEqualTo(ProviderException.Kind.CUT_OFF);
                    assertThat(e.retryable()).isFalse();
                    assertThat(e.attempts()).isEqualTo(1);
                    assertThat(e.getMessage())
                            .startsWith("openai's streamed reply from " + server.baseUrl() + " was cut off after "
                                    + (whole.eventCount() - 1) + " events, before a chunk with a finish_reason")
                            .doesNotContain("could not be reached");
                });
        assertThat(server.requestCount()).isEqualTo(1);
    }

    @Test
    void aStreamWhoseUsageChunkWasAskedForButNeverCameIsCutOffNotAReplyWithNoUsage() {
        FakeServer server = started(FakeOpenAiServer.start());
        // The finish_reason chunk without its usage, then the end of the body.
        String finish = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"toy\",\"choices\":[{"
                + "\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\n";
        server.defaultReply(new Reply.Recorded("finish without usage", 200,
                java.util.Map.of("content-type", List.of("text/event-stream")),
                finish.getBytes(java.nio.charset.StandardCharsets.UTF_8)));

        assertThatThrownBy(() -> client(Provider.OPENAI, server).stream(hello(), new StreamingChatClientTest.Sink()))
                .asInstanceOf(type(ProviderException.class))
                .satisfies(e -> {
                    assertThat(e.kind()).isEqualTo(ProviderException.Kind.CUT_OFF);
                    assertThat(e.getMessage()).contains("before the usage chunk it asked for");
                });
        assertThat(server.lastRequest().json().path("stream_options").path("include_usage").asBoolean())
                .as("the streamed request asks for usage").isTrue();
    }

    @ParameterizedTest(name = "streamed: {0}")
    @ValueSource(booleans = {false, true})
    void anthropicCachedPromptTokensCountAsInputTokens(boolean streamed) {
        FakeServer server = started(FakeAnthropicServer.start());
        Reply.Recorded recorded = Reply.recorded(streamed
                ? "llama-server/anthropic-cached-stream" : "llama-server/anthropic-cached");
        long uncached = usage(recorded, "input_tokens");
        long read = usage(recorded, "cache_read_input_tokens");
        long written = usage(recorded, "cache_creation_input_tokens");
        assertThat(read).as("the recording's prompt was read from the server's cache").isPositive();
        server.defaultReply(recorded);
        ChatClient client = client(Provider.ANTHROPIC, server);

        ChatReply reply = streamed ? client.stream(hello(), new StreamingChatClientTest.Sink()) : client.chat(hello());

        assertThat(reply.inputTokens()).isEqualTo(uncached + read + written);
        assertThat(reply.cacheReadTokens()).isEqualTo(read);
        assertThat(reply.cacheWriteTokens()).isEqualTo(written);
        assertThat(reply.outputTokens()).isPositive();
        assertThat(server.requestCount()).isEqualTo(1);
    }

    /** A usage count as the recording holds it (the largest, for a stream that repeats it), 0 when absent. */
    static long usage(Reply.Recorded recorded, String field) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"" + field + "\"\\s*:\\s*(\\d+)")
                .matcher(recorded.text());
        long max = 0;
        while (m.find()) {
            max = Math.max(max, Long.parseLong(m.group(1)));
        }
        return max;
    }
}
