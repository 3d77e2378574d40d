package dev.loopflow.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FakeAnthropicServerTest {

    private final FakeAnthropicServer server = FakeAnthropicServer.start();

    @AfterEach
    void close() {
        server.close();
    }

    @Test
    void baseUrlFollowsTheV1SlashConvention() {
        assertThat(server.baseUrl()).isEqualTo("http://127.0.0.1:" + server.port() + "/v1/");
    }

    @Test
    void answersInMessagesApiShape() {
        server.enqueue(Reply.text("Bonjour", 21, 4));

        HttpResponse<String> response = Http.post(server.baseUrl() + "messages",
                "{\"model\":\"claude-3-5-haiku-latest\",\"max_tokens\":100,"
                        + "\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}",
                "x-api-key", "sk-ant", "anthropic-version", "2023-06-01");

        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode json = Http.json(response);
        assertThat(json.path("type").asText()).isEqualTo("message");
        assertThat(json.path("role").asText()).isEqualTo("assistant");
        assertThat(json.path("id").asText()).startsWith("msg_");
        assertThat(json.path("model").asText()).isEqualTo("claude-3-5-haiku-latest");
        assertThat(json.at("/content/0/type").asText()).isEqualTo("text");
        assertThat(json.at("/content/0/text").asText()).isEqualTo("Bonjour");
        assertThat(json.path("stop_reason").asText()).isEqualTo("end_turn");
        assertThat(json.at("/usage/input_tokens").asLong()).isEqualTo(21);
        assertThat(json.at("/usage/output_tokens").asLong()).isEqualTo(4);
        assertThat(server.lastRequest().header("x-api-key")).isEqualTo("sk-ant");
        assertThat(server.lastRequest().header("anthropic-version")).isEqualTo("2023-06-01");
    }

    @Test
    void answersToolRequestsWithToolUseCarryingTheScriptedJson() {
        server.enqueue(Reply.text("{\"answer\":42}"));

        JsonNode json = Http.json(Http.post(server.rootUri() + "/v1/messages",
                "{\"model\":\"claude-sonnet-4\",\"tools\":[{\"name\":\"other\"},{\"name\":\"emit\"}],"
                        + "\"tool_choice\":{\"type\":\"tool\",\"name\":\"emit\"},\"messages\":[]}"));

        assertThat(json.at("/content/0/type").asText()).isEqualTo("tool_use");
        assertThat(json.at("/content/0/name").asText()).isEqualTo("emit");
        assertThat(json.at("/content/0/input/answer").asInt()).isEqualTo(42);
        assertThat(json.path("stop_reason").asText()).isEqualTo("tool_use");
    }

    @Test
    void wrapsNonObjectToolInput() {
        server.enqueue(Reply.text("plain words"));

        JsonNode json = Http.json(Http.post(server.rootUri() + "/messages",
                "{\"model\":\"m\",\"tools\":[{\"name\":\"emit\"}],\"tool_choice\":{\"type\":\"any\"},\"messages\":[]}"));

        assertThat(json.at("/content/0/name").asText()).isEqualTo("emit");
        assertThat(json.at("/content/0/input/value").asText()).isEqualTo("plain words");
    }
}
