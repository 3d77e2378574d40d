package dev.loopflow.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FakeOllamaServerTest {

    private final FakeOllamaServer server = FakeOllamaServer.start();

    @AfterEach
    void close() {
        server.close();
    }

    @Test
    void baseUrlIsTheRoot() {
        assertThat(server.baseUrl()).isEqualTo("http://127.0.0.1:" + server.port());
    }

    @Test
    void answersChatInNonStreamingShape() {
        server.enqueue(Reply.text("Hallo", 7, 2));

        HttpResponse<String> response = Http.post(server.baseUrl() + "/api/chat",
                "{\"model\":\"llama3.2\",\"stream\":false,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}");

        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode json = Http.json(response);
        assertThat(json.path("model").asText()).isEqualTo("llama3.2");
        assertThat(json.at("/message/role").asText()).isEqualTo("assistant");
        assertThat(json.at("/message/content").asText()).isEqualTo("Hallo");
        assertThat(json.path("done").asBoolean()).isTrue();
        assertThat(json.path("prompt_eval_count").asLong()).isEqualTo(7);
        assertThat(json.path("eval_count").asLong()).isEqualTo(2);
        assertThat(server.lastRequest().json().at("/messages/0/content").asText()).isEqualTo("Hi");
    }

    @Test
    void listsAFakeModelOnTags() {
        HttpResponse<String> response = Http.get(server.baseUrl() + "/api/tags");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(Http.json(response).at("/models/0/name").asText()).isEqualTo("fake-model:latest");
    }

    @Test
    void scriptedErrorsAreSentVerbatim() {
        server.enqueue(Reply.error(404, "{\"error\":\"model 'x' not found\"}",
                java.util.Map.of("Content-Type", "application/json")));

        HttpResponse<String> response = Http.post(server.baseUrl() + "/api/chat", "{\"model\":\"x\"}");

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(Http.json(response).path("error").asText()).isEqualTo("model 'x' not found");
    }
}
