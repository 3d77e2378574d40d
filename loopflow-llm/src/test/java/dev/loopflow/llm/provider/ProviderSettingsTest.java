package dev.loopflow.llm.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProviderSettingsTest {

    @Test
    void openAiFromEnvironmentUsesKeyAndDefaultUrl() {
        ProviderSettings settings = ProviderSettings.fromEnvironment("openai", Map.of("OPENAI_API_KEY", "sk-1"));

        assertThat(settings.provider()).isEqualTo(Provider.OPENAI);
        assertThat(settings.baseUrl()).isEqualTo("https://api.openai.com/v1");
        assertThat(settings.apiKey()).isEqualTo("sk-1");
        assertThat(settings.timeout()).isEqualTo(ProviderSettings.DEFAULT_TIMEOUT);
        assertThat(settings.retry().maxAttempts()).isEqualTo(3);
    }

    @Test
    void missingOpenAiKeyNamesTheVariable() {
        assertThatThrownBy(() -> ProviderSettings.fromEnvironment(Provider.OPENAI, Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("OPENAI_API_KEY is not set")
                .hasMessageContaining("OPENAI_BASE_URL");
    }

    @Test
    void blankKeyCountsAsMissing() {
        assertThatThrownBy(() -> ProviderSettings.fromEnvironment(Provider.OPENAI, Map.of("OPENAI_API_KEY", "  ")))
                .hasMessageStartingWith("OPENAI_API_KEY is not set");
    }

    @Test
    void openAiCompatibleServerNeedsNoKey() {
        ProviderSettings settings =
                ProviderSettings.fromEnvironment(Provider.OPENAI, Map.of("OPENAI_BASE_URL", "http://gpu-box:8000/v1"));

        assertThat(settings.baseUrl()).isEqualTo("http://gpu-box:8000/v1");
        assertThat(settings.apiKey()).isNull();
    }

    @Test
    void missingAnthropicKeyNamesTheVariableEvenWithACustomUrl() {
        assertThatThrownBy(() -> ProviderSettings.fromEnvironment(
                        Provider.ANTHROPIC, Map.of("ANTHROPIC_BASE_URL", "http://proxy:8080")))
                .hasMessageStartingWith("ANTHROPIC_API_KEY is not set");
    }

    @Test
    void anthropicBaseUrlFromEnvironmentGainsTheVersionPath() {
        Map<String, String> sdkStyle = Map.of("ANTHROPIC_API_KEY", "k", "ANTHROPIC_BASE_URL", "http://proxy:8080/");
        Map<String, String> withV1 = Map.of("ANTHROPIC_API_KEY", "k", "ANTHROPIC_BASE_URL", "http://proxy:8080/v1/");

        assertThat(ProviderSettings.fromEnvironment(Provider.ANTHROPIC, sdkStyle).baseUrl())
                .isEqualTo("http://proxy:8080/v1");
        assertThat(ProviderSettings.fromEnvironment(Provider.ANTHROPIC, withV1).baseUrl())
                .isEqualTo("http://proxy:8080/v1");
        assertThat(ProviderSettings.fromEnvironment(Provider.ANTHROPIC, Map.of("ANTHROPIC_API_KEY", "k")).baseUrl())
                .isEqualTo("https://api.anthropic.com/v1");
    }

    @Test
    void ollamaDefaultsToLocalhostAndTakesItsUrlFromTheEnvironment() {
        assertThat(ProviderSettings.fromEnvironment("ollama", Map.of()).baseUrl()).isEqualTo("http://localhost:11434");
        assertThat(ProviderSettings.fromEnvironment("OLLAMA", Map.of("OLLAMA_BASE_URL", "http://box:11434")).baseUrl())
                .isEqualTo("http://box:11434");
    }

    @Test
    void unknownProviderListsTheKnownOnes() {
        assertThatThrownBy(() -> ProviderSettings.fromEnvironment("gemini", Map.of()))
                .hasMessage("provider must be one of openai, anthropic, ollama but was 'gemini'");
    }

    @Test
    void constructorRejectsMissingKeyForOfficialEndpoints() {
        assertThatThrownBy(() -> ProviderSettings.of(Provider.OPENAI, null))
                .hasMessage("apiKey must be set for provider openai at https://api.openai.com/v1 "
                        + "(usually from OPENAI_API_KEY)");
        assertThatThrownBy(() -> ProviderSettings.of(Provider.ANTHROPIC, ""))
                .hasMessageStartingWith("apiKey must be set for provider anthropic");
    }

    @Test
    void constructorRejectsNonHttpUrlsAndNonPositiveTimeouts() {
        assertThatThrownBy(() -> new ProviderSettings(Provider.OLLAMA, "localhost:11434", null, null, null))
                .hasMessage("baseUrl must be an http(s) URL but was 'localhost:11434'");
        assertThatThrownBy(() -> new ProviderSettings(Provider.OLLAMA, null, null, Duration.ZERO, null))
                .hasMessage("timeout must be positive but was PT0S");
    }

    @Test
    void toStringHidesTheKey() {
        ProviderSettings settings = ProviderSettings.of(Provider.OPENAI, "sk-secret");

        assertThat(settings.toString()).doesNotContain("sk-secret").contains("apiKey=***");
    }

    @Test
    void withersReplaceOneField() {
        ProviderSettings settings = ProviderSettings.of(Provider.OPENAI, "sk-1")
                .withTimeout(Duration.ofSeconds(5))
                .withRetry(RetryPolicy.none())
                .withBaseUrl("http://localhost:1234/v1")
                .withApiKey(null);

        assertThat(settings.timeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(settings.retry().maxAttempts()).isEqualTo(1);
        assertThat(settings.apiKey()).isNull();
    }

    @Test
    void providerNamesMatchCaseInsensitively() {
        assertThat(Provider.of(" Anthropic ")).isEqualTo(Provider.ANTHROPIC);
        assertThat(Provider.OLLAMA.apiKeyVariable()).isEmpty();
        assertThat(Provider.OPENAI.apiKeyVariable()).hasValue("OPENAI_API_KEY");
    }
}
