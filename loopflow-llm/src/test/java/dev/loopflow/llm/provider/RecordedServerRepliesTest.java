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

    private static final ToolSpec MEMORY_WRITE = new ToolSpec("shared_memory_write", "Stores a value under a key.",
            java.util.Map.of("type", "object", "properties", java.util.Map.of("key", java.util.Map.of("type", "string"),
                    "value", java.util.Map.of("type", "string")), "required", List.of("key", "value")));

    /** Every reply recorded from llama-server, and what the client must read from it. */
    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> llamaServerReplies() {
        String hello = "Hello, world!";
        String call = "shared_memory_write {\"key\":\"city\",\"value\":\"Paris\"}";
        return java.util.stream.Stream.of(
                org.junit.jupiter.params.provider.Arguments.of("openai-plain", Provider.OPENAI, false, hello),
                org.junit.jupiter.params.provider.Arguments.of("openai-plain-stream", Provider.OPENAI, false, hello),
                org.junit.jupiter.params.provider.Arguments.of("openai-schema", Provider.OPENAI, false,
                        "{\"answer\": 42}"),
                org.junit.jupiter.params.provider.Arguments.of("openai-tools", Provider.OPENAI, true, call),
                org.junit.jupiter.params.provider.Arguments.of("openai-tools-stream", Provider.OPENAI, true, call),
                org.junit.jupiter.params.provider.Arguments.of("openai-tools-and-schema", Provider.OPENAI, true,
                        "{\"answer\": 42}"),
                org.junit.jupiter.params.provider.Arguments.of("openai-after-tool-result", Provider.OPENAI, true,
                        "Noted: the city is Paris."),
                org.junit.jupiter.params.provider.Arguments.of("anthropic-plain", Provider.ANTHROPIC, false, hello),
                org.junit.jupiter.params.provider.Arguments.of("anthropic-plain-stream", Provider.ANTHROPIC, false,
                        hello),
                org.junit.jupiter.params.provider.Arguments.of("anthropic-tools", Provider.ANTHROPIC, true, call),
                org.junit.jupiter.params.provider.Arguments.of("anthropic-tools-stream", Provider.ANTHROPIC, true,
                        call),
                org.junit.jupiter.params.provider.Arguments.of("anthropic-cached", Provider.ANTHROPIC, false, hello),
                org.junit.jupiter.params.provider.Arguments.of("anthropic-cached-stream", Provider.ANTHROPIC, false,
                        hello));
    }

    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.MethodSource("llamaServerReplies")
    void llamaServersRepliesReadAsTheToyModelWroteThemWithTheirUsage(String name, Provider provider, boolean tools,
            String expected) {
        Reply.Recorded recorded = Reply.recorded("llama-server/" + name);
        FakeServer server = started(provider == Provider.OPENAI ? FakeOpenAiServer.start() : FakeAnthropicServer.start());
        server.defaultReply(recorded);
        ChatCall call = ChatCall.builder("toy").user("Note the city.").tools(tools ? List.of(MEMORY_WRITE) : List.of())
                .build();
        ChatClient client = client(provider, server);
        StreamingChatClientTest.Sink sink = new StreamingChatClientTest.Sink();

        ChatReply reply = recorded.streamed() ? client.stream(call, sink) : client.chat(call);

        String got = reply.toolCalls().isEmpty() ? reply.text()
                : reply.toolCalls().get(0).name() + " " + compact(reply.toolCalls().get(0).arguments());
        assertThat(got).isEqualTo(expected);
        assertThat(server.requestCount()).isEqualTo(1);
        long prompt = provider == Provider.OPENAI ? usage(recorded, "prompt_tokens")
                : usage(recorded, "input_tokens") + usage(recorded, "cache_read_input_tokens");
        assertThat(reply.inputTokens()).isEqualTo(prompt).isPositive();
        assertThat(reply.cacheReadTokens()).isEqualTo(usage(recorded,
                provider == Provider.OPENAI ? "cached_tokens" : "cache_read_input_tokens"));
        assertThat(reply.outputTokens()).isEqualTo(usage(recorded,
                provider == Provider.OPENAI ? "completion_tokens" : "output_tokens")).isPositive();
        if (recorded.streamed() && reply.toolCalls().isEmpty()) {
            assertThat(sink.joined()).isEqualTo(expected);
        }
    }

    private static String compact(String json) {
        try {
            com.fasterxml.jackson.databind.ObjectMapper m = new com.fasterxml.jackson.databind.ObjectMapper();
            return m.writeValueAsString(m.readTree(json));
        } catch (java.io.IOException e) {
            return json;
        }
    }

    @Test
    void aWrongBaseUrlsNotFoundFromLlamaServerNamesTheUrlAskedFor() {
        FakeServer server = started(FakeOpenAiServer.start());
        server.defaultReply(Reply.recorded("llama-server/openai-wrong-path"));

        assertThatThrownBy(() -> client(Provider.OPENAI, server).chat(hello()))
                .asInstanceOf(type(ProviderException.class))
                .satisfies(e -> assertThat(e.getMessage())
                        .startsWith("openai returned HTTP 404 after 1 attempt: File Not Found (POST "
                                + server.baseUrl() + "/chat/completions; is the base URL right?"));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"429", "500", "502", "503", "504"})
    void nginxsOwnErrorPagesReadAsTheirTitles(String status) {
        FakeServer server = started(FakeOpenAiServer.start());
        Reply.Recorded page = Reply.recorded("nginx/" + status);
        server.defaultReply(page);
        String title = page.text().replaceAll("(?s).*<title>(.*?)</title>.*", "$1");

        assertThatThrownBy(() -> client(Provider.OPENAI, server).chat(hello()))
                .asInstanceOf(type(ProviderException.class))
                .satisfies(e -> {
                    assertThat(e.httpStatus()).hasValue(Integer.parseInt(status));
                    assertThat(e.getMessage()).endsWith(": " + title).startsWith("openai returned HTTP " + status)
                            .doesNotContain("<").doesNotContain("nginx/1");
                    assertThat(e.attempts()).isEqualTo(3); // each of these is retried
                });
        assertThat(title).startsWith(status + " ");
    }

    @Test
    void aFastApiErrorIsReadAsItsDetail() {
        FakeServer server = started(FakeOpenAiServer.start());
        server.defaultReply(Reply.recorded("transformers-serve/openai-422-stream-options"));

        assertThatThrownBy(() -> client(Provider.OPENAI, server).stream(hello(), new StreamingChatClientTest.Sink()))
                .asInstanceOf(type(ProviderException.class))
                .satisfies(e -> {
                    assertThat(e.kind()).isEqualTo(ProviderException.Kind.CLIENT_ERROR);
                    assertThat(e.getMessage()).startsWith("openai returned HTTP 422 after 1 attempt: ")
                            .contains("stream_options").doesNotContain("{\"detail\"");
                });
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
