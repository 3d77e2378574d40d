package dev.loopflow.llm.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.type;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.testkit.FakeAnthropicServer;
import dev.loopflow.testkit.FakeOllamaServer;
import dev.loopflow.testkit.FakeOpenAiServer;
import dev.loopflow.testkit.FakeServer;
import dev.loopflow.testkit.Reply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A streamed call, on each provider's real streaming wire format, gives the reply a blocking call gives, hands its
 * text over in order as it arrives, and fails, retries, times out and cancels as a blocking call does.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StreamingChatClientTest {

    private static final String SCHEMA =
            "{\"type\":\"object\",\"properties\":{\"answer\":{\"type\":\"integer\"}},\"required\":[\"answer\"]}";

    private final List<FakeServer> servers = new ArrayList<>();
    private final RecordingSleeper sleeper = new RecordingSleeper();

    @AfterEach
    void close() {
        servers.forEach(FakeServer::close);
    }

    static Stream<Arguments> providers() {
        return Stream.of(
                Arguments.of(Provider.OPENAI, (Supplier<FakeServer>) FakeOpenAiServer::start),
                Arguments.of(Provider.ANTHROPIC, (Supplier<FakeServer>) FakeAnthropicServer::start),
                Arguments.of(Provider.OLLAMA, (Supplier<FakeServer>) FakeOllamaServer::start));
    }

    private FakeServer server(Supplier<FakeServer> start) {
        FakeServer s = start.get();
        servers.add(s);
        return s;
    }

    private ChatClient client(Provider provider, FakeServer server, int attempts) {
        return Providers.client(new ProviderSettings(provider, server.baseUrl(),
                provider == Provider.OLLAMA ? null : "sk-test", Duration.ofSeconds(10), sleeper.policy(attempts)));
    }

    /** Collects what a stream hands over. */
    static final class Sink implements ChatClient.TextStream {
        final List<String> deltas = new ArrayList<>();
        int restarts;
        final Thread caller = Thread.currentThread();
        boolean otherThread;

        @Override
        public synchronized void text(String delta) {
            otherThread |= Thread.currentThread() != caller;
            deltas.add(delta);
        }

        @Override
        public synchronized void restarted() {
            restarts++;
        }

        String joined() {
            return String.join("", deltas);
        }
    }

    @ParameterizedTest
    @MethodSource("providers")
    void aStreamedTextReplyIsTheBlockingReplyDeliveredInPieces(Provider provider, Supplier<FakeServer> start) {
        FakeServer server = server(start);
        ChatClient client = client(provider, server, 3);
        String text = "The capital of France is Paris, a city on the Seine.";
        server.enqueue(Reply.text(text, 21, 13), Reply.text(text, 21, 13));

        ChatReply blocking = client.chat(ChatCall.of("m-1", "Capital?"));
        Sink sink = new Sink();
        ChatReply streamed = client.stream(ChatCall.of("m-1", "Capital?"), sink);

        assertThat(streamed).isEqualTo(blocking);
        assertThat(streamed.text()).isEqualTo(text);
        assertThat(streamed.inputTokens()).isEqualTo(21);
        assertThat(streamed.outputTokens()).isEqualTo(13);
        assertThat(sink.joined()).isEqualTo(text);
        assertThat(sink.deltas).hasSizeGreaterThan(3);
        assertThat(sink.otherThread).as("text is handed over on the calling thread").isFalse();
        assertThat(server.lastRequest().json().path("stream").asBoolean()).isTrue();
        assertThat(server.streamsSent()).isEqualTo(1);
    }

    @ParameterizedTest
    @MethodSource("providers")
    void aStreamedToolCallReplyIsTheBlockingReply(Provider provider, Supplier<FakeServer> start) {
        FakeServer server = server(start);
        ChatClient client = client(provider, server, 3);
        Reply.ToolCalls calls = new Reply.ToolCalls(List.of(
                new Reply.Call(provider == Provider.OLLAMA ? null : "call_a", "lookup", "{\"city\":\"Paris\",\"n\":2}"),
                new Reply.Call(provider == Provider.OLLAMA ? null : "call_b", "note", "{\"text\":\"a \\\"quoted\\\" é\"}")),
                "Let me check.", 30, 9);
        server.enqueue(calls, calls);
        ChatCall call = ChatCall.builder("m-1").user("Where?").tools(List.of(
                new ToolSpec("lookup", "Looks up", Map.of("type", "object")),
                new ToolSpec("note", "Notes", Map.of("type", "object")))).build();

        ChatReply blocking = client.chat(call);
        Sink sink = new Sink();
        ChatReply streamed = client.stream(call, sink);

        assertThat(streamed).isEqualTo(blocking);
        assertThat(streamed.toolCalls()).extracting(ToolCall::name).containsExactly("lookup", "note");
        assertThat(streamed.toolCalls().get(0).arguments()).contains("Paris");
        assertThat(sink.joined()).isEqualTo("Let me check.");
    }

    @ParameterizedTest
    @MethodSource("providers")
    void aStreamedStructuredReplyIsTheBlockingReply(Provider provider, Supplier<FakeServer> start) {
        FakeServer server = server(start);
        ChatClient client = client(provider, server, 3);
        server.enqueue(Reply.text("{\"answer\":42}"), Reply.text("{\"answer\":42}"));
        ChatCall call = ChatCall.builder("m-1").user("Answer?").jsonSchema(SCHEMA).build();

        ChatReply blocking = client.chat(call);
        ChatReply streamed = client.stream(call, new Sink());

        assertThat(streamed).isEqualTo(blocking);
        assertThat(streamed.text()).contains("42");
    }

    @ParameterizedTest
    @MethodSource("providers")
    void aStreamThatBreaksOffIsNotSentAgainAndItsTextIsDeclaredVoid(Provider provider, Supplier<FakeServer> start) {
        FakeServer server = server(start);
        ChatClient client = client(provider, server, 3);
        String text = "A long answer that will be cut off in the middle of its stream.";
        server.enqueue(Reply.streamed(Reply.text(text, 5, 7)).cutAfter(5), Reply.text(text, 5, 7));
        Sink sink = new Sink();

        assertThatThrownBy(() -> client.stream(ChatCall.of("m-1", "Go"), sink))
                .asInstanceOf(type(ProviderException.class))
                .satisfies(e -> {
                    assertThat(e.kind()).isEqualTo(ProviderException.Kind.CUT_OFF);
                    assertThat(e.attempts()).isEqualTo(1);
                    assertThat(e.httpStatus()).isEmpty();
                    assertThat(e.getMessage()).contains("was cut off after 5 events, before ")
                            .contains("the server closed the connection")
                            .doesNotContain("could not be reached");
                });
        assertThat(server.requestCount()).isEqualTo(1);
        assertThat(sink.restarts).isEqualTo(sink.deltas.isEmpty() ? 0 : 1);
        assertThat(text).startsWith(sink.joined());
    }

    @ParameterizedTest
    @MethodSource("providers")
    void aTransientErrorBeforeTheFirstTokenIsRetriedLikeABlockingCall(Provider provider, Supplier<FakeServer> start) {
        FakeServer server = server(start);
        ChatClient client = client(provider, server, 3);
        server.enqueue(Reply.rateLimited(Duration.ofSeconds(2)), Reply.serverError(), Reply.text("fine"));
        Sink sink = new Sink();

        ChatReply reply = client.stream(ChatCall.of("m-1", "Go"), sink);

        assertThat(reply.text()).isEqualTo("fine");
        assertThat(reply.attempts()).isEqualTo(3);
        assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(2), Duration.ofMillis(200));
        assertThat(sink.restarts).isZero();
        assertThat(sink.joined()).isEqualTo("fine");
    }

    @ParameterizedTest
    @MethodSource("providers")
    void aPermanentErrorIsNotRetried(Provider provider, Supplier<FakeServer> start) {
        FakeServer server = server(start);
        ChatClient client = client(provider, server, 3);
        server.enqueue(Reply.error(401, "bad key"));

        assertThatThrownBy(() -> client.stream(ChatCall.of("m-1", "Go"), new Sink()))
                .asInstanceOf(type(ProviderException.class))
                .satisfies(e -> {
                    assertThat(e.kind()).isEqualTo(ProviderException.Kind.AUTH);
                    assertThat(e.httpStatus()).hasValue(401);
                    assertThat(e.attempts()).isEqualTo(1);
                });
    }

    @ParameterizedTest
    @MethodSource("providers")
    void aStreamSlowerThanTheTimeoutTimesOutAndItsConnectionIsClosed(Provider provider,
            Supplier<FakeServer> start) throws Exception {
        FakeServer server = server(start);
        ChatClient client = client(provider, server, 1);
        server.enqueue(Reply.streamed(Reply.text("slow ".repeat(200))).inChunksOf(5).pausing(Duration.ofMillis(50)));

        assertThatThrownBy(() -> client.stream(ChatCall.builder("m-1").user("Go").timeout(Duration.ofMillis(600))
                .build(), new Sink()))
                .asInstanceOf(type(ProviderException.class))
                .satisfies(e -> {
                    assertThat(e.kind()).isEqualTo(ProviderException.Kind.TIMEOUT);
                    assertThat(e.code()).isEqualTo(ErrorCode.TIMEOUT);
                });
        awaitAbandoned(server);
    }

    @ParameterizedTest
    @MethodSource("providers")
    void interruptingTheCallerStopsTheStreamAndClosesItsConnection(Provider provider, Supplier<FakeServer> start)
            throws Exception {
        FakeServer server = server(start);
        ChatClient client = client(provider, server, 3);
        server.enqueue(Reply.streamed(Reply.text("word ".repeat(400))).inChunksOf(5).pausing(Duration.ofMillis(20)));
        CountDownLatch firstText = new CountDownLatch(1);
        List<String> seen = new ArrayList<>();
        Thread[] caller = new Thread[1];
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        caller[0] = Thread.ofVirtual().start(() -> {
            try {
                client.stream(ChatCall.of("m-1", "Go"), delta -> {
                    seen.add(delta);
                    firstText.countDown();
                });
                outcome.complete(null);
            } catch (Throwable t) {
                outcome.complete(t);
            }
        });
        assertThat(firstText.await(20, TimeUnit.SECONDS)).isTrue();
        caller[0].interrupt();

        Throwable thrown = outcome.get(20, TimeUnit.SECONDS);
        assertThat(thrown).asInstanceOf(type(ProviderException.class)).satisfies(e -> {
            assertThat(e.kind()).isEqualTo(ProviderException.Kind.CANCELLED);
            assertThat(e.code()).isEqualTo(ErrorCode.CANCELLED);
            assertThat(e.attempts()).isEqualTo(1);
        });
        awaitAbandoned(server);
        assertThat(server.requestCount()).isEqualTo(1);
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({
            "overloaded_error, SERVER_ERROR, 2",
            "api_error, SERVER_ERROR, 2",
            "rate_limit_error, RATE_LIMITED, 2",
            "invalid_request_error, CLIENT_ERROR, 1",
            "authentication_error, AUTH, 1"})
    void anAnthropicErrorEventInsideAStreamIsClassifiedLikeItsHttpStatus(String type, ProviderException.Kind kind,
            int attempts) {
        FakeServer server = server(FakeAnthropicServer::start);
        ChatClient client = client(Provider.ANTHROPIC, server, 2);
        String stream = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\","
                + "\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m-1\",\"content\":[],"
                + "\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n"
                + "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"" + type
                + "\",\"message\":\"trouble\"}}\n\n";
        server.defaultReply(new Reply.Http(200, stream, Map.of("Content-Type", "text/event-stream")));

        assertThatThrownBy(() -> client.stream(ChatCall.of("m-1", "Go"), new Sink()))
                .asInstanceOf(type(ProviderException.class))
                .satisfies(e -> {
                    assertThat(e.kind()).isEqualTo(kind);
                    assertThat(e.attempts()).isEqualTo(attempts);
                    assertThat(e.getMessage()).contains("trouble");
                });
        assertThat(server.requestCount()).isEqualTo(attempts);
    }

    /** The fake notices a closed connection on its next write. */
    static void awaitAbandoned(FakeServer server) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (server.streamsAbandoned() == 0 && System.nanoTime() < end) {
            Thread.sleep(20);
        }
        assertThat(server.streamsAbandoned()).as("streams whose connection the client closed").isEqualTo(1);
    }
}
