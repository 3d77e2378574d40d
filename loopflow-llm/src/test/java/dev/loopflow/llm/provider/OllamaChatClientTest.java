package dev.loopflow.llm.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.type;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loopflow.testkit.FakeOllamaServer;
import dev.loopflow.testkit.RecordedRequest;
import dev.loopflow.testkit.Reply;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OllamaChatClientTest {

    private static final String SCHEMA =
            "{\"type\":\"object\",\"properties\":{\"answer\":{\"type\":\"integer\"}},\"required\":[\"answer\"]}";

    private final FakeOllamaServer server = FakeOllamaServer.start();
    private final RecordingSleeper sleeper = new RecordingSleeper();
    private final ChatClient client = Providers.client(
            new ProviderSettings(Provider.OLLAMA, server.baseUrl(), null, Duration.ofSeconds(5), sleeper.policy(3)));

    @AfterEach
    void close() {
        server.close();
    }

    @Test
    void sendsModelMessagesAndOptionsWithoutStreaming() {
        client.chat(ChatCall.builder("llama3.2")
                .system("Be terse.")
                .user("Sum 2+2")
                .temperature(0.1)
                .maxTokens(20)
                .build());

        RecordedRequest request = server.lastRequest();
        assertThat(request.path()).isEqualTo("/api/chat");
        assertThat(request.header("Authorization")).isNull();
        JsonNode body = request.json();
        assertThat(body.path("model").asText()).isEqualTo("llama3.2");
        assertThat(body.path("stream").asBoolean(true)).isFalse();
        assertThat(body.at("/options/temperature").asDouble()).isEqualTo(0.1);
        assertThat(body.at("/options/num_predict").asInt()).isEqualTo(20);
        assertThat(body.at("/messages/0/role").asText()).isEqualTo("system");
        assertThat(body.at("/messages/0/content").asText()).isEqualTo("Be terse.");
        assertThat(body.at("/messages/1/role").asText()).isEqualTo("user");
        assertThat(body.at("/messages/1/content").asText()).isEqualTo("Sum 2+2");
        assertThat(body.has("format")).isFalse();
    }

    @Test
    void returnsTextAndEvalCountsAsUsage() {
        server.enqueue(Reply.text("4", 30, 2));

        ChatReply reply = client.chat(ChatCall.of("llama3.2", "Sum 2+2"));

        assertThat(reply).isEqualTo(new ChatReply("4", 30, 2, "llama3.2", "ollama", 1, List.of(), "stop"));
    }

    @Test
    void structuredOutputSendsTheSchemaAsFormat() throws Exception {
        server.enqueue(Reply.text("{\"answer\":4}"));

        ChatReply reply = client.chat(ChatCall.builder("llama3.2").user("Sum 2+2").jsonSchema(SCHEMA).build());

        assertThat(server.lastRequest().json().path("format")).isEqualTo(new ObjectMapper().readTree(SCHEMA));
        assertThat(reply.text()).isEqualTo("{\"answer\":4}");
    }

    @Test
    void serverErrorsExhaustRetries() {
        server.defaultReply(Reply.error(500, "{\"error\":\"llama runner process has terminated\"}",
                Map.of("Content-Type", "application/json")));

        assertThatThrownBy(() -> client.chat(ChatCall.of("llama3.2", "Hi")))
                .asInstanceOf(type(ProviderException.class))
                .satisfies(e -> {
                    assertThat(e.kind()).isEqualTo(ProviderException.Kind.SERVER_ERROR);
                    assertThat(e.attempts()).isEqualTo(3);
                    assertThat(e.getMessage()).isEqualTo(
                            "ollama returned HTTP 500 after 3 attempts: llama runner process has terminated");
                });
        assertThat(server.requestCount()).isEqualTo(3);
    }

    @Test
    void missingModelIsAClientErrorAndNotRetried() {
        server.enqueue(Reply.error(404, "{\"error\":\"model 'nope' not found\"}", Map.of()));

        assertThatThrownBy(() -> client.chat(ChatCall.of("nope", "Hi")))
                .asInstanceOf(type(ProviderException.class))
                .satisfies(e -> {
                    assertThat(e.kind()).isEqualTo(ProviderException.Kind.CLIENT_ERROR);
                    assertThat(e.attempts()).isEqualTo(1);
                    assertThat(e.getMessage()).contains(": model 'nope' not found (POST ").doesNotContain("base URL");
                });
    }

    @Test
    void rateLimitIsRetriedAfterTheRequestedDelay() {
        server.enqueue(Reply.rateLimited(Duration.ofSeconds(1)), Reply.text("done"));

        ChatReply reply = client.chat(ChatCall.of("llama3.2", "Hi"));

        assertThat(reply.attempts()).isEqualTo(2);
        assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(1));
    }

    @Test
    void slowAnswerTimesOut() {
        server.defaultReply(Reply.text("too late").after(Duration.ofSeconds(10)));
        ChatClient impatient = Providers.client(
                new ProviderSettings(Provider.OLLAMA, server.baseUrl(), null, Duration.ofMillis(150), RetryPolicy.none()));

        assertThatThrownBy(() -> impatient.chat(ChatCall.of("llama3.2", "Hi")))
                .asInstanceOf(type(ProviderException.class))
                .satisfies(e -> {
                    assertThat(e.kind()).isEqualTo(ProviderException.Kind.TIMEOUT);
                    assertThat(e.attempts()).isEqualTo(1);
                    assertThat(e.getMessage()).isEqualTo("ollama did not answer within 150ms (1 attempt)");
                });
    }
}
