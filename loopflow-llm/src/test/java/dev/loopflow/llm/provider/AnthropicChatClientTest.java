package dev.loopflow.llm.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.type;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loopflow.testkit.FakeAnthropicServer;
import dev.loopflow.testkit.RecordedRequest;
import dev.loopflow.testkit.Reply;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AnthropicChatClientTest {

    private static final String SCHEMA = "{\"type\":\"object\",\"properties\":{"
            + "\"city\":{\"type\":\"string\"},"
            + "\"stops\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}}"
            + "},\"required\":[\"city\"]}";

    private final FakeAnthropicServer server = FakeAnthropicServer.start();
    private final RecordingSleeper sleeper = new RecordingSleeper();
    private final ChatClient client = Providers.client(new ProviderSettings(
            Provider.ANTHROPIC, server.baseUrl(), "sk-ant-test", Duration.ofSeconds(5), sleeper.policy(3)));

    @AfterEach
    void close() {
        server.close();
    }

    @Test
    void sendsSystemTopLevelWithKeyAndVersionHeaders() {
        client.chat(ChatCall.builder("claude-3-5-haiku-latest")
                .system("Be terse.")
                .user("Hi")
                .assistant("Hello")
                .user("Sum 2+2")
                .temperature(0.3)
                .maxTokens(100)
                .build());

        RecordedRequest request = server.lastRequest();
        assertThat(request.path()).isEqualTo("/v1/messages");
        assertThat(request.header("x-api-key")).isEqualTo("sk-ant-test");
        assertThat(request.header("anthropic-version")).isEqualTo("2023-06-01");
        assertThat(request.header("Authorization")).isNull();
        JsonNode body = request.json();
        assertThat(body.path("model").asText()).isEqualTo("claude-3-5-haiku-latest");
        assertThat(body.path("max_tokens").asInt()).isEqualTo(100);
        assertThat(body.path("temperature").asDouble()).isEqualTo(0.3);
        assertThat(body.path("system").toString()).contains("Be terse.");
        assertThat(body.path("messages")).hasSize(3);
        assertThat(body.at("/messages/0/role").asText()).isEqualTo("user");
        assertThat(body.at("/messages/1/role").asText()).isEqualTo("assistant");
        assertThat(body.at("/messages/2/content").toString()).contains("Sum 2+2");
    }

    @Test
    void maxTokensDefaultsBecauseAnthropicRequiresIt() {
        client.chat(ChatCall.of("claude-sonnet-4-20250514", "Hi"));

        assertThat(server.lastRequest().json().path("max_tokens").asInt())
                .isEqualTo(Providers.ANTHROPIC_DEFAULT_MAX_TOKENS);
    }

    @Test
    void returnsTextUsageAndAnsweringModel() {
        server.enqueue(Reply.text("4", 25, 2));

        ChatReply reply = client.chat(ChatCall.of("claude-3-5-haiku-latest", "Sum 2+2"));

        assertThat(reply).isEqualTo(new ChatReply("4", 25, 2, "claude-3-5-haiku-latest", "anthropic", 1, List.of(), "stop"));
    }

    @Test
    void structuredOutputSendsAClosedSchemaAsOutputConfig() {
        server.enqueue(Reply.text("{\"city\":\"Paris\",\"stops\":[]}"));

        ChatReply reply = client.chat(ChatCall.builder("claude-sonnet-4-5").user("Plan").jsonSchema(SCHEMA).build());

        JsonNode format = server.lastRequest().json().at("/output_config/format");
        assertThat(format.path("type").asText()).isEqualTo("json_schema");
        JsonNode schema = format.path("schema");
        assertThat(schema.at("/properties/city/type").asText()).isEqualTo("string");
        assertThat(schema.at("/required/0").asText()).isEqualTo("city");
        assertThat(schema.path("additionalProperties").asBoolean(true)).isFalse();
        assertThat(schema.at("/properties/stops/items/additionalProperties").asBoolean(true)).isFalse();
        assertThat(server.lastRequest().json().has("tools")).isFalse();
        assertThat(reply.text()).isEqualTo("{\"city\":\"Paris\",\"stops\":[]}");
    }

    @Test
    void rateLimitIsRetriedAfterTheRequestedDelay() {
        server.enqueue(Reply.rateLimited(Duration.ofSeconds(1)), Reply.text("done"));

        ChatReply reply = client.chat(ChatCall.of("claude-3-5-haiku-latest", "Hi"));

        assertThat(reply.attempts()).isEqualTo(2);
        assertThat(server.requestCount()).isEqualTo(2);
        assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(1));
    }

    @Test
    void retryAfterAsHttpDateIsMeasuredAgainstTheClock() {
        Instant now = Instant.parse("2025-06-01T12:00:00Z");
        String inThreeSeconds = DateTimeFormatter.RFC_1123_DATE_TIME.format(now.plusSeconds(3).atZone(ZoneOffset.UTC));
        ChatClient clocked = Providers.client(new ProviderSettings(Provider.ANTHROPIC, server.baseUrl(), "sk-ant-test",
                null, sleeper.policy(3).toBuilder().clock(Clock.fixed(now, ZoneOffset.UTC)).build()));
        server.enqueue(Reply.error(429, "{}", Map.of("Retry-After", inThreeSeconds)), Reply.text("done"));

        clocked.chat(ChatCall.of("claude-3-5-haiku-latest", "Hi"));

        assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(3));
    }

    @Test
    void overloadedIsRetriedAsAServerError() {
        server.enqueue(Reply.error(529, "Overloaded"), Reply.error(529, "Overloaded"), Reply.error(529, "Overloaded"));

        assertThatThrownBy(() -> client.chat(ChatCall.of("claude-3-5-haiku-latest", "Hi")))
                .asInstanceOf(type(ProviderException.class))
                .satisfies(e -> {
                    assertThat(e.kind()).isEqualTo(ProviderException.Kind.SERVER_ERROR);
                    assertThat(e.httpStatus()).hasValue(529);
                    assertThat(e.attempts()).isEqualTo(3);
                    assertThat(e.getMessage()).isEqualTo("anthropic returned HTTP 529 after 3 attempts: Overloaded");
                });
        assertThat(server.requestCount()).isEqualTo(3);
    }

    @Test
    void slowAnswerTimesOut() {
        server.defaultReply(Reply.text("too late").after(Duration.ofSeconds(10)));

        assertThatThrownBy(() -> client.chat(ChatCall.builder("claude-3-5-haiku-latest")
                        .user("Hi")
                        .timeout(Duration.ofMillis(150))
                        .build()))
                .asInstanceOf(type(ProviderException.class))
                .satisfies(e -> {
                    assertThat(e.kind()).isEqualTo(ProviderException.Kind.TIMEOUT);
                    assertThat(e.attempts()).isEqualTo(3);
                });
    }

    @Test
    void toolUseAnswerIsReturnedAsItsJsonArguments() throws Exception {
        // Proxies and older deployments may deliver structured output as a forced tool call.
        server.enqueue(Reply.raw(200, """
                {"id":"msg_1","type":"message","role":"assistant","model":"claude-3-5-haiku-latest",
                 "content":[{"type":"tool_use","id":"toolu_1","name":"emit","input":{"city":"Oslo"}}],
                 "stop_reason":"tool_use","usage":{"input_tokens":5,"output_tokens":3}}
                """));

        ChatReply reply = client.chat(ChatCall.of("claude-3-5-haiku-latest", "Plan"));

        assertThat(new ObjectMapper().readTree(reply.text())).isEqualTo(new ObjectMapper().readTree("{\"city\":\"Oslo\"}"));
        assertThat(reply.outputTokens()).isEqualTo(3);
    }
}
