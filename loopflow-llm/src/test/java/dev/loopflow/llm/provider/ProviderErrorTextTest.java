package dev.loopflow.llm.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.type;

import dev.loopflow.testkit.FakeAnthropicServer;
import dev.loopflow.testkit.FakeOllamaServer;
import dev.loopflow.testkit.FakeOpenAiServer;
import dev.loopflow.testkit.FakeServer;
import dev.loopflow.testkit.Reply;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A failed call's one-line message says what happened in words a user can act on: no Java class names for a refused
 * or dropped connection, the URL that was asked for a 404, and the title of a proxy's HTML error page instead of its
 * markup.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProviderErrorTextTest {

    private final List<FakeServer> servers = new ArrayList<>();
    private final RecordingSleeper sleeper = new RecordingSleeper();

    @AfterEach
    void close() {
        servers.forEach(FakeServer::close);
    }

    static Stream<Arguments> calls() {
        List<Arguments> out = new ArrayList<>();
        for (Provider p : Provider.values()) {
            out.add(Arguments.of(p, false));
            out.add(Arguments.of(p, true));
        }
        return out.stream();
    }

    private static Supplier<FakeServer> fake(Provider p) {
        return switch (p) {
            case OPENAI -> FakeOpenAiServer::start;
            case ANTHROPIC -> FakeAnthropicServer::start;
            case OLLAMA -> FakeOllamaServer::start;
        };
    }

    private ChatClient client(Provider provider, String baseUrl) {
        return Providers.client(new ProviderSettings(provider, baseUrl, provider == Provider.OLLAMA ? null : "sk-test",
                Duration.ofSeconds(10), sleeper.policy(2)));
    }

    private static ChatReply call(ChatClient client, boolean streamed) {
        ChatCall call = ChatCall.of("m-1", "hello");
        return streamed ? client.stream(call, new StreamingChatClientTest.Sink()) : client.chat(call);
    }

    @ParameterizedTest(name = "{0} streamed={1}")
    @MethodSource("calls")
    void aRefusedConnectionIsSaidInWordsWithNoClassName(Provider provider, boolean streamed) throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort(); // free once closed: nothing listens there
        }
        String base = "http://127.0.0.1:" + port + (provider == Provider.OLLAMA ? "" : "/v1");

        assertThatThrownBy(() -> call(client(provider, base), streamed))
                .asInstanceOf(type(ProviderException.class))
                .satisfies(e -> {
                    assertThat(e.kind()).isEqualTo(ProviderException.Kind.NETWORK);
                    assertThat(e.getMessage()).contains("could not be reached at " + base)
                            .contains("connection refused")
                            .doesNotContain("Exception").doesNotContain("java.");
                });
    }

    @ParameterizedTest(name = "{0} streamed={1}")
    @MethodSource("calls")
    void aNotFoundNamesTheUrlThatWasAskedFor(Provider provider, boolean streamed) {
        FakeServer server = fake(provider).get();
        servers.add(server);
        server.defaultReply(Reply.error(404, "File Not Found", Map.of("Content-Type", "text/plain")));

        assertThatThrownBy(() -> call(client(provider, server.baseUrl()), streamed))
                .asInstanceOf(type(ProviderException.class))
                .satisfies(e -> {
                    assertThat(e.kind()).isEqualTo(ProviderException.Kind.CLIENT_ERROR);
                    assertThat(e.getMessage()).contains("HTTP 404")
                            .contains("POST " + server.rootUri() + server.lastRequest().path())
                            .contains("is the base URL right?");
                });
    }

    /** Error pages as nginx writes them, and what a user should read of each. */
    static Stream<Arguments> htmlPages() {
        String nginx = "<html>\r\n<head><title>%s</title></head>\r\n<body>\r\n<center><h1>%s</h1></center>\r\n"
                + "<hr><center>nginx/1.22.1</center>\r\n</body>\r\n</html>\r\n";
        List<Arguments> out = new ArrayList<>();
        for (String status : List.of("429 Too Many Requests", "500 Internal Server Error", "502 Bad Gateway",
                "503 Service Temporarily Unavailable", "504 Gateway Time-out")) {
            out.add(Arguments.of(Integer.parseInt(status.substring(0, 3)), nginx.formatted(status, status), status));
        }
        out.add(Arguments.of(502, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><TITLE>\n  Bad "
                + "gateway &amp; such\n</TITLE><style>body{}</style></head><body><p>" + "x".repeat(5000)
                + "</p></body></html>", "Bad gateway & such"));
        out.add(Arguments.of(503, "<html><body><h1>Service Unavailable</h1><p>Try again.</p></body></html>",
                "Service Unavailable Try again."));
        out.add(Arguments.of(500, "<html><head><title></title></head><body></body></html>",
                "(an HTML page with no text)"));
        return out.stream();
    }

    @ParameterizedTest(name = "{0} -> {2}")
    @MethodSource("htmlPages")
    void aProxysHtmlErrorPageIsReadAsItsTitle(int status, String page, String expected) {
        FakeServer server = FakeOpenAiServer.start();
        servers.add(server);
        server.defaultReply(Reply.error(status, page, Map.of("Content-Type", "text/html")));

        assertThatThrownBy(() -> call(client(Provider.OPENAI, server.baseUrl()), false))
                .asInstanceOf(type(ProviderException.class))
                .satisfies(e -> assertThat(e.getMessage()).endsWith(": " + expected).doesNotContain("<")
                        .doesNotContain("\n"));
    }
}
