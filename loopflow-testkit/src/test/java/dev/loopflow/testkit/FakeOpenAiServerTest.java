package dev.loopflow.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class FakeOpenAiServerTest {

    private final FakeOpenAiServer server = FakeOpenAiServer.start();

    @AfterEach
    void close() {
        server.close();
    }

    @Test
    void baseUrlIncludesV1OnLoopback() {
        assertThat(server.baseUrl()).isEqualTo("http://127.0.0.1:" + server.port() + "/v1");
        assertThat(server.rootUri().toString()).isEqualTo("http://127.0.0.1:" + server.port());
    }

    @Test
    void answersQueuedTextInChatCompletionShape() {
        server.enqueue(Reply.text("Hello!", 12, 3));

        HttpResponse<String> response = Http.post(server.baseUrl() + "/chat/completions",
                "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}");

        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode json = Http.json(response);
        assertThat(json.path("object").asText()).isEqualTo("chat.completion");
        assertThat(json.path("model").asText()).isEqualTo("gpt-4o-mini");
        assertThat(json.at("/choices/0/message/content").asText()).isEqualTo("Hello!");
        assertThat(json.at("/choices/0/message/role").asText()).isEqualTo("assistant");
        assertThat(json.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
        assertThat(json.at("/usage/prompt_tokens").asLong()).isEqualTo(12);
        assertThat(json.at("/usage/completion_tokens").asLong()).isEqualTo(3);
        assertThat(json.at("/usage/total_tokens").asLong()).isEqualTo(15);
    }

    @Test
    void acceptsPathWithoutV1() {
        HttpResponse<String> response = Http.post(server.rootUri() + "/chat/completions", "{\"model\":\"m\"}");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(Http.json(response).at("/choices/0/message/content").asText()).isEqualTo("ok");
    }

    @Test
    void recordsRequestsInArrivalOrderWithHeadersAndJsonBody() {
        Http.post(server.baseUrl() + "/chat/completions", "{\"model\":\"first\"}", "Authorization", "Bearer sk-1");
        Http.post(server.baseUrl() + "/chat/completions", "{\"model\":\"second\"}");

        List<RecordedRequest> requests = server.requests();
        assertThat(server.requestCount()).isEqualTo(2);
        assertThat(requests).extracting(RecordedRequest::model).containsExactly("first", "second");
        RecordedRequest first = requests.get(0);
        assertThat(first.method()).isEqualTo("POST");
        assertThat(first.path()).isEqualTo("/v1/chat/completions");
        assertThat(first.header("authorization")).isEqualTo("Bearer sk-1");
        assertThat(first.header("AUTHORIZATION")).isEqualTo("Bearer sk-1");
        assertThat(first.headers()).containsKey("authorization");
        assertThat(first.body()).isEqualTo("{\"model\":\"first\"}");
        assertThat(server.lastRequest().model()).isEqualTo("second");
    }

    @Test
    void queueThenResponderThenDefault() {
        server.enqueue(Reply.text("queued"));
        server.respondWith(request -> request.model().equals("echo") ? Reply.text("echoed") : null);
        server.defaultReply(Reply.text("fallback"));

        assertThat(contentOf(Http.post(server.baseUrl() + "/chat/completions", "{\"model\":\"echo\"}")))
                .isEqualTo("queued");
        assertThat(contentOf(Http.post(server.baseUrl() + "/chat/completions", "{\"model\":\"echo\"}")))
                .isEqualTo("echoed");
        assertThat(contentOf(Http.post(server.baseUrl() + "/chat/completions", "{\"model\":\"other\"}")))
                .isEqualTo("fallback");
    }

    @Test
    void failingResponderIsReportedAsA500() {
        server.respondWith(request -> {
            throw new IllegalStateException("boom");
        });

        HttpResponse<String> response = Http.post(server.baseUrl() + "/chat/completions", "{}");

        assertThat(response.statusCode()).isEqualTo(500);
        assertThat(Http.json(response).at("/error/message").asText()).contains("boom");
    }

    @Test
    void sendsScriptedErrorsWithHeaders() {
        server.enqueue(Reply.rateLimited(Duration.ofSeconds(1)), Reply.serverError());

        HttpResponse<String> limited = Http.post(server.baseUrl() + "/chat/completions", "{}");
        HttpResponse<String> failed = Http.post(server.baseUrl() + "/chat/completions", "{}");

        assertThat(limited.statusCode()).isEqualTo(429);
        assertThat(limited.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(Http.json(limited).at("/error/message").asText()).isEqualTo("Rate limit reached");
        assertThat(failed.statusCode()).isEqualTo(500);
    }

    @Test
    void delayedReplyArrivesAfterTheDelay() {
        server.enqueue(Reply.text("late").after(Duration.ofMillis(150)));

        long start = System.nanoTime();
        HttpResponse<String> response = Http.post(server.baseUrl() + "/chat/completions", "{}");

        // A lower bound only: a loaded machine can make the reply later, never earlier.
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(150));
        assertThat(contentOf(response)).isEqualTo("late");
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES) // a hang guard only
    void servesHundredsOfSlowRequestsConcurrently() throws Exception {
        int calls = 300;
        // Every reply waits until all calls have arrived: served one after another, the first would wait forever
        // (the latch's bound turns that into a 500 and a failure). No clock is read, so load cannot fail it.
        CountDownLatch arrived = new CountDownLatch(calls);
        server.respondWith(request -> {
            arrived.countDown();
            try {
                if (!arrived.await(2, TimeUnit.MINUTES)) {
                    throw new IllegalStateException(arrived.getCount() + " calls never arrived while others waited");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Reply.text("slow").after(Duration.ofMillis(300));
        });

        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<HttpResponse<String>>> futures = new ArrayList<>();
            for (int i = 0; i < calls; i++) {
                futures.add(clients.submit(() -> Http.post(server.baseUrl() + "/chat/completions", "{}")));
            }
            for (Future<HttpResponse<String>> future : futures) {
                HttpResponse<String> response = future.get();
                assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
                assertThat(contentOf(response)).isEqualTo("slow");
            }
        }

        assertThat(server.requestCount()).isEqualTo(calls);
    }

    @Test
    void unknownPathIs404AndStillRecorded() {
        HttpResponse<String> response = Http.get(server.baseUrl() + "/models");

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(server.lastRequest().path()).isEqualTo("/v1/models");
    }

    @Test
    void resetForgetsRequestsAndScript() {
        server.enqueue(Reply.text("queued")).defaultReply(Reply.text("changed"));
        Http.get(server.baseUrl() + "/models");

        server.reset();

        assertThat(server.requestCount()).isZero();
        assertThat(contentOf(Http.post(server.baseUrl() + "/chat/completions", "{}"))).isEqualTo("ok");
    }

    @Test
    void lastRequestOnFreshServerNamesTheServer() {
        assertThatThrownBy(server::lastRequest).hasMessageContaining("has received no request");
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES) // a hang guard only: the reply below is a day away
    void closeIsIdempotentAndDoesNotWaitForDelayedReplies() throws Exception {
        server.enqueue(Reply.text("never").after(Duration.ofDays(1)));
        Thread caller = Thread.ofVirtual().start(() -> {
            try {
                Http.post(server.baseUrl() + "/chat/completions", "{}");
            } catch (RuntimeException expected) {
                // the connection is closed under the caller
            }
        });
        while (server.requestCount() == 0) {
            Thread.sleep(5);
        }

        server.close();
        server.close();

        caller.join();
        assertThat(caller.isAlive()).as("the caller was answered or cut off, not left waiting a day").isFalse();
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES) // a hang guard only
    void aKeptAliveConnectionStaysOpenWhileHundredsAreIdle_bugTheServerClosedItAndTheNextRequestGotNoBytes()
            throws Exception {
        // More keep-alive connections than the JDK server keeps idle by default (200). The JDK's client reuses an
        // idle connection for the next request and never retries a POST, so a connection the server drops after
        // its reply is a request that fails with "header parser received no bytes" once the client reuses it;
        // that is how a loaded machine, where a burst of calls no longer starts all at once, lost a slow call.
        int connections = 260;
        CountDownLatch arrived = new CountDownLatch(connections);
        server.respondWith(request -> {
            // Holds every first reply until all connections are open, so that all of them go idle together.
            arrived.countDown();
            try {
                arrived.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Reply.text("first");
        });
        List<Socket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < connections; i++) {
                Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port());
                sockets.add(socket);
                sendCompletion(socket);
            }
            for (Socket socket : sockets) {
                assertThat(readResponse(socket)).as("first reply").contains("\"first\"");
            }
            server.respondWith(request -> Reply.text("second"));

            int closed = 0;
            for (Socket socket : sockets) {
                try {
                    sendCompletion(socket);
                    if (!readResponse(socket).contains("\"second\"")) {
                        closed++;
                    }
                } catch (IOException e) {
                    closed++; // reset by the server
                }
            }
            assertThat(closed).as("kept-alive connections the server closed under its client").isZero();
        } finally {
            for (Socket socket : sockets) {
                socket.close();
            }
        }
    }

    private static void sendCompletion(Socket socket) throws IOException {
        socket.getOutputStream().write(("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}").getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
    }

    /** One HTTP/1.1 response read off the socket (status line, headers and a Content-Length body); "" at EOF. */
    private static String readResponse(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                return head.toString();
            }
            head.append((char) b);
        }
        Matcher length = Pattern.compile("(?i)content-length: *(\\d+)").matcher(head);
        byte[] body = length.find() ? in.readNBytes(Integer.parseInt(length.group(1))) : new byte[0];
        return head + new String(body, StandardCharsets.UTF_8);
    }

    private static String contentOf(HttpResponse<String> response) {
        return Http.json(response).at("/choices/0/message/content").asText();
    }
}
