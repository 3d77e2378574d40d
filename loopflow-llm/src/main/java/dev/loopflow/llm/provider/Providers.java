package dev.loopflow.llm.provider;

import dev.langchain4j.http.client.sse.ServerSentEvent;
import dev.langchain4j.model.anthropic.AnthropicChatModel;
import dev.langchain4j.model.anthropic.AnthropicStreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.ollama.OllamaChatModel;
import dev.langchain4j.model.ollama.OllamaStreamingChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiChatRequestParameters;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Pattern;

/** Creates {@link ChatClient}s. */
public final class Providers {

    // Anthropic requires max_tokens; 4096 is the largest value every Claude model accepts.
    static final int ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;
    // OpenAI-compatible servers that ignore authentication still expect an Authorization header.
    static final String PLACEHOLDER_API_KEY = "not-needed";

    private Providers() {}

    /** A client for the endpoint described by {@code settings}. */
    public static ChatClient client(ProviderSettings settings) {
        Objects.requireNonNull(settings, "settings must not be null");
        return switch (settings.provider()) {
            case OPENAI -> openAi(settings);
            case ANTHROPIC -> anthropic(settings);
            case OLLAMA -> ollama(settings);
        };
    }

    /** A client configured from environment variables; see {@link ProviderSettings#fromEnvironment}. */
    public static ChatClient fromEnvironment(String provider, Map<String, String> environment) {
        return client(ProviderSettings.fromEnvironment(provider, environment));
    }

    /**
     * {@code provider: openai} (and every OpenAI-compatible server). The one place that decides which path a call
     * takes: blocking calls go through {@link OpenAiDirect} (the JDK's HTTP client, the body written and read with
     * Jackson's streaming API; see {@link OpenAiWire}), streamed calls through LangChain4j's
     * {@code OpenAiStreamingChatModel}. Both share one connection pool.
     */
    private static ChatClient openAi(ProviderSettings settings) {
        return openAi(settings, true);
    }

    /**
     * A client for {@code provider: openai} whose calls all go through LangChain4j's {@code OpenAiChatModel}: the
     * reference the direct path is checked against, not used by nodes.
     */
    static LangChainChatClient openAiThroughLangChain(ProviderSettings settings) {
        return openAi(settings, false);
    }

    private static LangChainChatClient openAi(ProviderSettings settings, boolean direct) {
        ProviderHttpClient.Builder http = ProviderHttpClient.builder().streamEnd(OpenAiStreamEnd::new);
        String key = settings.apiKey() != null ? settings.apiKey() : PLACEHOLDER_API_KEY;
        OpenAiChatModel model = OpenAiChatModel.builder()
                .httpClientBuilder(http)
                .baseUrl(settings.baseUrl())
                .apiKey(key)
                .timeout(settings.timeout())
                .maxRetries(0)
                .build();
        OpenAiStreamingChatModel streaming = OpenAiStreamingChatModel.builder()
                .httpClientBuilder(http)
                .baseUrl(settings.baseUrl())
                .apiKey(key)
                .timeout(settings.timeout())
                .build();
        return new LangChainChatClient(settings, model, streaming, openAiParameters(),
                direct ? new OpenAiDirect(http.jdk(), settings.baseUrl(), key) : null);
    }

    private static Function<ChatCall, ChatRequestParameters> openAiParameters() {
        return call -> {
            OpenAiChatRequestParameters.Builder parameters = OpenAiChatRequestParameters.builder()
                    .modelName(call.model())
                    .temperature(call.temperature());
            // Reasoning models reject the legacy max_tokens; other OpenAI-compatible servers may not know
            // max_completion_tokens, so the newer field is only used where it is required.
            if (isReasoningModel(call.model())) {
                parameters.maxCompletionTokens(call.maxTokens());
            } else {
                parameters.maxOutputTokens(call.maxTokens());
            }
            if (call.jsonSchema() != null) {
                parameters.responseFormat(Schemas.responseFormat(call.jsonSchema()));
            }
            return parameters.build();
        };
    }

    private static ChatClient anthropic(ProviderSettings settings) {
        // A complete stream ends with the message_stop event.
        ProviderHttpClient.Builder http = ProviderHttpClient.builder()
                .streamEnd(request -> new MarkerEnd(event -> "message_stop".equals(event.event()),
                        "a message_stop event"));
        AnthropicChatModel model = AnthropicChatModel.builder()
                .httpClientBuilder(http)
                .baseUrl(settings.baseUrl())
                .apiKey(settings.apiKey())
                .timeout(settings.timeout())
                .maxTokens(ANTHROPIC_DEFAULT_MAX_TOKENS)
                .maxRetries(0)
                .build();
        AnthropicStreamingChatModel streaming = AnthropicStreamingChatModel.builder()
                .httpClientBuilder(http)
                .baseUrl(settings.baseUrl())
                .apiKey(settings.apiKey())
                .timeout(settings.timeout())
                .maxTokens(ANTHROPIC_DEFAULT_MAX_TOKENS)
                .build();
        return new LangChainChatClient(settings, model, streaming, call -> {
            var parameters = ChatRequestParameters.builder()
                    .modelName(call.model())
                    .temperature(call.temperature())
                    .maxOutputTokens(call.maxTokens());
            if (call.jsonSchema() != null) {
                parameters.responseFormat(Schemas.responseFormat(Schemas.closeObjects(call.jsonSchema())));
            }
            return parameters.build();
        });
    }

    private static ChatClient ollama(ProviderSettings settings) {
        // A complete stream ends with a line whose "done" is true.
        ProviderHttpClient.Builder http = ProviderHttpClient.builder()
                .streamEnd(request -> new MarkerEnd(Providers::ollamaDone, "a line whose \"done\" is true"));
        OllamaChatModel model = OllamaChatModel.builder()
                .httpClientBuilder(http)
                .baseUrl(settings.baseUrl())
                .timeout(settings.timeout())
                .maxRetries(0)
                .build();
        OllamaStreamingChatModel streaming = OllamaStreamingChatModel.builder()
                .httpClientBuilder(http)
                .baseUrl(settings.baseUrl())
                .timeout(settings.timeout())
                .build();
        return new LangChainChatClient(settings, model, streaming, call -> {
            var parameters = ChatRequestParameters.builder()
                    .modelName(call.model())
                    .temperature(call.temperature())
                    .maxOutputTokens(call.maxTokens());
            if (call.jsonSchema() != null) {
                parameters.responseFormat(Schemas.responseFormat(call.jsonSchema()));
            }
            return parameters.build();
        });
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

    /** Whether an Ollama stream line is its last: a JSON object whose {@code done} is true. */
    static boolean ollamaDone(ServerSentEvent line) {
        String data = line.data();
        if (data == null || !data.contains("\"done\"")) {
            return false;
        }
        try {
            return JSON.readTree(data).path("done").asBoolean(false);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return false;
        }
    }

    /** OpenAI's o-series and gpt-5 family, which accept only {@code max_completion_tokens}. */
    static boolean isReasoningModel(String model) {
        String name = model.toLowerCase(Locale.ROOT);
        return REASONING_SERIES.matcher(name).matches() || name.startsWith("gpt-5");
    }

    // Compiled once: every OpenAI request asks.
    private static final Pattern REASONING_SERIES = Pattern.compile("o\\d.*");
}
