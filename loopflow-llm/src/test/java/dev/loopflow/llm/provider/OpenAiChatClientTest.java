package dev.loopflow.llm.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.type;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loopflow.testkit.FakeOpenAiServer;
import dev.loopflow.testkit.RecordedRequest;
import dev.loopflow.testkit.Reply;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OpenAiChatClientTest {

    private static final String SCHEMA =
            "{\"type\":\"object\",\"properties\":{\"answer\":{\"type\":\"integer\"}},\"required\":[\"answer\"]}";

    private final FakeOpenAiServer server = FakeOpenAiServer.start();
    private final RecordingSleeper sleeper = new RecordingSleeper();
    private final ChatClient client = Providers.client(
            new ProviderSettings(Provider.OPENAI, server.baseUrl(), "sk-test", Duration.ofSeconds(5), sleeper.policy(3)));

    @AfterEach
    void close() {
        server.close();
    }

    @Test
    void sendsModelMessagesTemperatureMaxTokensAndBearerKey() {
        client.chat(ChatCall.builder("gpt-4o-mini")
                .system("Be terse.")
                .user("Hi")
                .assistant("Hello")
                .user("Sum 2+2")
                .temperature(0.2)
                .maxTokens(50)
                .build());

        RecordedRequest request = server.lastRequest();
        assertThat(request.method()).isEqualTo("POST");
        assertThat(request.path()).isEqualTo("/v1/chat/completions");
        assertThat(request.header("Authorization")).isEqualTo("Bearer sk-test");
        JsonNode body = request.json();
        assertThat(body.path("model").asText()).isEqualTo("gpt-4o-mini");
        assertThat(body.path("temperature").asDouble()).isEqualTo(0.2);
        assertThat(body.path("max_tokens").asInt()).isEqualTo(50);
        assertThat(body.path("messages")).hasSize(4);
        assertThat(body.at("/messages/0/role").asText()).isEqualTo("system");
        assertThat(body.at("/messages/0/content").asText()).isEqualTo("Be terse.");
        assertThat(body.at("/messages/1/role").asText()).isEqualTo("user");
        assertThat(body.at("/messages/1/content").asText()).isEqualTo("Hi");
        assertThat(body.at("/messages/2/role").asText()).isEqualTo("assistant");
        assertThat(body.at("/messages/3/content").asText()).isEqualTo("Sum 2+2");
        assertThat(body.has("response_format")).isFalse();
    }

    @Test
    void returnsTextUsageAndAnsweringModel() {
        server.enqueue(Reply.text("4", 17, 1));

        ChatReply reply = client.chat(ChatCall.of("gpt-4o-mini", "Sum 2+2"));

        assertThat(reply).isEqualTo(new ChatReply("4", 17, 1, "gpt-4o-mini", "openai", 1, List.of(), "stop"));
        assertThat(reply.totalTokens()).isEqualTo(18);
    }

    @Test
    void leavesUnsetParametersToTheProvider() {
        client.chat(ChatCall.of("gpt-4o-mini", "Hi"));

        JsonNode body = server.lastRequest().json();
        assertThat(body.has("temperature")).isFalse();
        assertThat(body.has("max_tokens")).isFalse();
    }

    @Test
    void reasoningModelsGetMaxCompletionTokens() {
        client.chat(ChatCall.builder("o3-mini").user("Hi").maxTokens(64).build());

        JsonNode body = server.lastRequest().json();
        assertThat(body.path("max_completion_tokens").asInt()).isEqualTo(64);
        assertThat(body.has("max_tokens")).isFalse();
    }

    @Test
    void structuredOutputSendsTheSchemaAsResponseFormat() throws Exception {
        server.enqueue(Reply.text("{\"answer\":4}"));

        ChatReply reply = client.chat(ChatCall.builder("gpt-4o-mini").user("Sum 2+2").jsonSchema(SCHEMA).build());

        JsonNode format = server.lastRequest().json().path("response_format");
        assertThat(format.path("type").asText()).isEqualTo("json_schema");
        assertThat(format.at("/json_schema/name").asText()).isEqualTo("output");
        assertThat(format.at("/json_schema/schema")).isEqualTo(new ObjectMapper().readTree(SCHEMA));
        assertThat(reply.text()).isEqualTo("{\"answer\":4}");
    }

    @Test
    void rateLimitIsRetriedAfterTheRequestedDelay() {
        server.enqueue(Reply.rateLimited(Duration.ofSeconds(1)), Reply.text("done"));

        ChatReply reply = client.chat(ChatCall.of("gpt-4o-mini", "Hi"));

        assertThat(reply.text()).isEqualTo("done");
        assertThat(reply.attempts()).isEqualTo(2);
        assertThat(server.requestCount()).isEqualTo(2);
        assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(1));
    }

    @Test
    void retryAfterMillisecondsHeaderIsPreferred() {
        server.enqueue(
                Reply.error(429, "{\"error\":{\"message\":\"slow down\"}}",
                        Map.of("retry-after-ms", "250", "Retry-After", "1")),
                Reply.text("done"));

        client.chat(ChatCall.of("gpt-4o-mini", "Hi"));

        assertThat(sleeper.sleeps()).containsExactly(Duration.ofMillis(250));
    }

    @Test
    void serverErrorsExhaustRetriesWithAClearError() {
        server.defaultReply(Reply.serverError());

        assertThatThrownBy(() -> client.chat(ChatCall.of("gpt-4o-mini", "Hi")))
                .asInstanceOf(type(ProviderException.class))
                .satisfies(e -> {
                    assertThat(e.kind()).isEqualTo(ProviderException.Kind.SERVER_ERROR);
                    assertThat(e.httpStatus()).hasValue(500);
                    assertThat(e.attempts()).isEqualTo(3);
                    assertThat(e.provider()).isEqualTo("openai");
                    assertThat(e.retryable()).isTrue();
                    assertThat(e.getMessage()).isEqualTo("openai returned HTTP 500 after 3 attempts: "
                            + "The server had an error while processing your request");
                });
        assertThat(server.requestCount()).isEqualTo(3);
        assertThat(sleeper.sleeps()).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
    }

    @Test
    void authenticationFailureIsNotRetried() {
        server.enqueue(Reply.error(401, "Incorrect API key provided"));

        assertThatThrownBy(() -> client.chat(ChatCall.of("gpt-4o-mini", "Hi")))
                .asInstanceOf(type(ProviderException.class))
                .satisfies(e -> {
                    assertThat(e.kind()).isEqualTo(ProviderException.Kind.AUTH);
                    assertThat(e.attempts()).isEqualTo(1);
                    assertThat(e.getMessage())
                            .isEqualTo("openai returned HTTP 401 after 1 attempt: Incorrect API key provided");
                });
        assertThat(server.requestCount()).isEqualTo(1);
        assertThat(sleeper.sleeps()).isEmpty();
    }

    @Test
    void unknownModelIsAClientError() {
        server.enqueue(Reply.error(404, "The model `gpt-9` does not exist"));

        assertThatThrownBy(() -> client.chat(ChatCall.of("gpt-9", "Hi")))
                .asInstanceOf(type(ProviderException.class))
                .satisfies(e -> {
                    assertThat(e.kind()).isEqualTo(ProviderException.Kind.CLIENT_ERROR);
                    assertThat(e.httpStatus()).hasValue(404);
                });
    }

    @Test
    void slowAnswerTimesOutOnEveryAttempt() {
        server.defaultReply(Reply.text("too late").after(Duration.ofSeconds(10)));
        ChatClient impatient = Providers.client(new ProviderSettings(
                Provider.OPENAI, server.baseUrl(), "sk-test", Duration.ofSeconds(5), sleeper.policy(2)));

        // The message names the call's 200 ms, not the settings' 5 s: each attempt gave up at the call's timeout.
        assertThatThrownBy(() -> impatient.chat(
                        ChatCall.builder("gpt-4o-mini").user("Hi").timeout(Duration.ofMillis(200)).build()))
                .asInstanceOf(type(ProviderException.class))
                .satisfies(e -> {
                    assertThat(e.kind()).isEqualTo(ProviderException.Kind.TIMEOUT);
                    assertThat(e.httpStatus()).isEmpty();
                    assertThat(e.attempts()).isEqualTo(2);
                    assertThat(e.getMessage()).isEqualTo("openai did not answer within 200ms (2 attempts)");
                });
        assertThat(server.requestCount()).isEqualTo(2);
    }

    @Test
    void settingsTimeoutAppliesWhenTheCallSetsNone() {
        server.defaultReply(Reply.text("too late").after(Duration.ofSeconds(10)));
        ChatClient impatient = Providers.client(new ProviderSettings(
                Provider.OPENAI, server.baseUrl(), "sk-test", Duration.ofMillis(200), RetryPolicy.none()));

        assertThatThrownBy(() -> impatient.chat(ChatCall.of("gpt-4o-mini", "Hi")))
                .asInstanceOf(type(ProviderException.class))
                .extracting(ProviderException::kind)
                .isEqualTo(ProviderException.Kind.TIMEOUT);
    }

    @Test
    void unreachableServerIsANetworkError() {
        String baseUrl = server.baseUrl();
        server.close();
        ChatClient client = Providers.client(
                new ProviderSettings(Provider.OPENAI, baseUrl, "sk-test", Duration.ofSeconds(2), sleeper.policy(2)));

        assertThatThrownBy(() -> client.chat(ChatCall.of("gpt-4o-mini", "Hi")))
                .asInstanceOf(type(ProviderException.class))
                .satisfies(e -> {
                    assertThat(e.kind()).isEqualTo(ProviderException.Kind.NETWORK);
                    assertThat(e.attempts()).isEqualTo(2);
                    assertThat(e.getMessage()).startsWith("openai could not be reached at " + baseUrl + " after 2 attempts");
                });
    }

    @Test
    void malformedSuccessIsAnInvalidResponse() {
        server.enqueue(Reply.raw(200, "this is not json"));

        assertThatThrownBy(() -> client.chat(ChatCall.of("gpt-4o-mini", "Hi")))
                .asInstanceOf(type(ProviderException.class))
                .satisfies(e -> {
                    assertThat(e.kind()).isEqualTo(ProviderException.Kind.INVALID_RESPONSE);
                    assertThat(e.attempts()).isEqualTo(1);
                });
    }

    @Test
    void compatibleServerWithoutKeyGetsAPlaceholderKey() {
        ChatClient keyless = Providers.fromEnvironment("openai", Map.of("OPENAI_BASE_URL", server.baseUrl()));

        keyless.chat(ChatCall.of("llama-3.1-8b", "Hi"));

        assertThat(server.lastRequest().header("Authorization")).isEqualTo("Bearer not-needed");
    }

    @Test
    void oneClientServesManyConcurrentCalls() throws Exception {
        server.defaultReply(Reply.text("pong").after(Duration.ofMillis(100)));
        int calls = 100;

        try (var executor = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            var futures = new java.util.ArrayList<java.util.concurrent.Future<ChatReply>>();
            for (int i = 0; i < calls; i++) {
                String model = "gpt-4o-mini-" + i;
                futures.add(executor.submit(() -> client.chat(ChatCall.of(model, "ping"))));
            }
            for (int i = 0; i < calls; i++) {
                assertThat(futures.get(i).get().model()).isEqualTo("gpt-4o-mini-" + i);
            }
        }
        assertThat(server.requestCount()).isEqualTo(calls);
    }
}
