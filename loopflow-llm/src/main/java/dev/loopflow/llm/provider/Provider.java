package dev.loopflow.llm.provider;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/** The provider wire protocols loopflow speaks, with their conventional defaults and environment variables. */
public enum Provider {
    /** OpenAI Chat Completions, also spoken by OpenAI-compatible servers (vLLM, LM Studio, LiteLLM, ...). */
    OPENAI("openai", "https://api.openai.com/v1", "OPENAI_API_KEY", "OPENAI_BASE_URL"),
    /** Anthropic Messages API. */
    ANTHROPIC("anthropic", "https://api.anthropic.com/v1", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
    /** Ollama's native chat API; no key. */
    OLLAMA("ollama", "http://localhost:11434", null, "OLLAMA_BASE_URL");

    private final String id;
    private final String defaultBaseUrl;
    private final String apiKeyVariable;
    private final String baseUrlVariable;

    Provider(String id, String defaultBaseUrl, String apiKeyVariable, String baseUrlVariable) {
        this.id = id;
        this.defaultBaseUrl = defaultBaseUrl;
        this.apiKeyVariable = apiKeyVariable;
        this.baseUrlVariable = baseUrlVariable;
    }

    /** The lower-case name used in workflow files, in messages and in {@link ChatReply#provider()}. */
    public String id() {
        return id;
    }

    /** The API root clients append endpoint paths to; for OpenAI and Anthropic it includes {@code /v1}. */
    public String defaultBaseUrl() {
        return defaultBaseUrl;
    }

    /** The environment variable holding the API key; empty for providers that take none. */
    public Optional<String> apiKeyVariable() {
        return Optional.ofNullable(apiKeyVariable);
    }

    public String baseUrlVariable() {
        return baseUrlVariable;
    }

    /** The provider named {@code name}, case-insensitively. */
    public static Provider of(String name) {
        if (name != null) {
            String wanted = name.trim().toLowerCase(Locale.ROOT);
            for (Provider provider : values()) {
                if (provider.id.equals(wanted)) {
                    return provider;
                }
            }
        }
        throw new IllegalArgumentException("provider must be one of "
                + Arrays.stream(values()).map(Provider::id).collect(Collectors.joining(", "))
                + " but was " + (name == null ? "null" : "'" + name + "'"));
    }

    @Override
    public String toString() {
        return id;
    }
}
