package dev.loopflow.llm.provider;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Everything needed to build a {@link ChatClient} for one provider endpoint.
 *
 * <p>{@code baseUrl} is the API root that endpoint paths are appended to: {@code https://api.openai.com/v1}
 * ({@code chat/completions} is appended), {@code https://api.anthropic.com/v1} ({@code messages}),
 * {@code http://localhost:11434} ({@code api/chat}). {@code null} selects the provider's default.
 *
 * <p>An API key is required for Anthropic, and for OpenAI at its official endpoint. An OpenAI-compatible
 * server at another URL (a local vLLM, say) may need none, so a placeholder is sent in that case.
 * {@link #toString()} never shows the key.
 *
 * @param timeout per-attempt limit on waiting for an answer, used when a {@link ChatCall} sets none;
 *                {@code null} means 60 s
 * @param retry   {@code null} means {@link RetryPolicy#defaults()}
 */
public record ProviderSettings(Provider provider, String baseUrl, String apiKey, Duration timeout, RetryPolicy retry) {

    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    public ProviderSettings {
        Objects.requireNonNull(provider, "provider must not be null");
        baseUrl = baseUrl == null || baseUrl.isBlank() ? provider.defaultBaseUrl() : baseUrl.trim();
        requireHttpUrl(baseUrl);
        apiKey = apiKey == null || apiKey.isBlank() ? null : apiKey.trim();
        if (apiKey == null && requiresKey(provider, baseUrl)) {
            throw new IllegalArgumentException("apiKey must be set for provider " + provider + " at " + baseUrl
                    + provider.apiKeyVariable().map(variable -> " (usually from " + variable + ")").orElse(""));
        }
        timeout = timeout == null ? DEFAULT_TIMEOUT : timeout;
        if (timeout.isZero() || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be positive but was " + timeout);
        }
        retry = retry == null ? RetryPolicy.defaults() : retry;
    }

    /** Settings for {@code provider} at its default URL, with default timeout and retries. */
    public static ProviderSettings of(Provider provider, String apiKey) {
        return new ProviderSettings(provider, null, apiKey, null, null);
    }

    /**
     * Settings from environment variables: {@code OPENAI_API_KEY} and {@code OPENAI_BASE_URL},
     * {@code ANTHROPIC_API_KEY} and {@code ANTHROPIC_BASE_URL}, or {@code OLLAMA_BASE_URL}.
     *
     * <p>{@code ANTHROPIC_BASE_URL} follows Anthropic's SDK convention of naming the host without
     * {@code /v1}; {@code /v1} is appended unless the URL already ends with it.
     *
     * @param environment usually {@link System#getenv()}; a map so that tests can supply their own
     * @throws IllegalArgumentException naming the missing variable when a required key is absent
     */
    public static ProviderSettings fromEnvironment(Provider provider, Map<String, String> environment) {
        Objects.requireNonNull(provider, "provider must not be null");
        Objects.requireNonNull(environment, "environment must not be null");
        String baseUrl = blankToNull(environment.get(provider.baseUrlVariable()));
        if (provider == Provider.ANTHROPIC && baseUrl != null) {
            baseUrl = withVersionPath(baseUrl);
        }
        String apiKey = provider.apiKeyVariable().map(environment::get).map(ProviderSettings::blankToNull).orElse(null);
        if (apiKey == null && requiresKey(provider, baseUrl == null ? provider.defaultBaseUrl() : baseUrl)) {
            String variable = provider.apiKeyVariable().orElseThrow();
            throw new IllegalArgumentException(variable + " is not set; provider " + provider + " needs an API key"
                    + (provider == Provider.OPENAI
                            ? " (or set " + provider.baseUrlVariable() + " to an OpenAI-compatible server that needs none)"
                            : ""));
        }
        return new ProviderSettings(provider, baseUrl, apiKey, null, null);
    }

    /** {@link #fromEnvironment(Provider, Map)} with the provider given by name, e.g. from a workflow file. */
    public static ProviderSettings fromEnvironment(String provider, Map<String, String> environment) {
        return fromEnvironment(Provider.of(provider), environment);
    }

    public ProviderSettings withBaseUrl(String baseUrl) {
        return new ProviderSettings(provider, baseUrl, apiKey, timeout, retry);
    }

    public ProviderSettings withApiKey(String apiKey) {
        return new ProviderSettings(provider, baseUrl, apiKey, timeout, retry);
    }

    public ProviderSettings withTimeout(Duration timeout) {
        return new ProviderSettings(provider, baseUrl, apiKey, timeout, retry);
    }

    public ProviderSettings withRetry(RetryPolicy retry) {
        return new ProviderSettings(provider, baseUrl, apiKey, timeout, retry);
    }

    @Override
    public String toString() {
        return "ProviderSettings[provider=" + provider + ", baseUrl=" + baseUrl
                + ", apiKey=" + (apiKey == null ? "none" : "***") + ", timeout=" + timeout + ", retry=" + retry + "]";
    }

    private static boolean requiresKey(Provider provider, String baseUrl) {
        return switch (provider) {
            case ANTHROPIC -> true;
            case OPENAI -> sameUrl(baseUrl, provider.defaultBaseUrl());
            case OLLAMA -> false;
        };
    }

    private static boolean sameUrl(String a, String b) {
        return stripTrailingSlash(a).equalsIgnoreCase(stripTrailingSlash(b));
    }

    private static String withVersionPath(String baseUrl) {
        String trimmed = stripTrailingSlash(baseUrl);
        return trimmed.endsWith("/v1") ? trimmed : trimmed + "/v1";
    }

    private static String stripTrailingSlash(String url) {
        String result = url.trim();
        while (result.endsWith("/")) {
            result = result.substring(0, result.length() - 1);
        }
        return result;
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.trim();
    }

    private static void requireHttpUrl(String baseUrl) {
        URI uri;
        try {
            uri = URI.create(baseUrl);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("baseUrl must be an http(s) URL but was '" + baseUrl + "'", e);
        }
        if (!("http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme()))
                || uri.getHost() == null) {
            throw new IllegalArgumentException("baseUrl must be an http(s) URL but was '" + baseUrl + "'");
        }
    }
}
