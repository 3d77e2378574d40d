package dev.loopflow.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

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

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(150));
        assertThat(contentOf(response)).isEqualTo("late");
    }

    @Test
    void servesHundredsOfSlowRequestsConcurrently() throws Exception {
        server.defaultReply(Reply.text("slow").after(Duration.ofMillis(300)));
        int calls = 300;

        long start = System.nanoTime();
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<HttpResponse<String>>> futures = new ArrayList<>();
            for (int i = 0; i < calls; i++) {
                futures.add(clients.submit(() -> Http.post(server.baseUrl() + "/chat/completions", "{}")));
            }
            for (Future<HttpResponse<String>> future : futures) {
                assertThat(future.get().statusCode()).isEqualTo(200);
            }
        }

        // Served one after another this would take 90 s; concurrently it is about one delay.
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
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
    void closeIsIdempotentAndDoesNotWaitForDelayedReplies() throws Exception {
        server.enqueue(Reply.text("never").after(Duration.ofSeconds(30)));
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

        long start = System.nanoTime();
        server.close();
        server.close();

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        caller.join(Duration.ofSeconds(5));
    }

    private static String contentOf(HttpResponse<String> response) {
        return Http.json(response).at("/choices/0/message/content").asText();
    }
}
