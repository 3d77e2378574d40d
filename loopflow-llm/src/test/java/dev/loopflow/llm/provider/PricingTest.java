package dev.loopflow.llm.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PricingTest {

    private final Pricing pricing = Pricing.defaults();

    @Test
    void knownModelCostsItsListPrice() {
        // gpt-4o-mini: $0.15 in, $0.60 out per million tokens
        assertThat(pricing.cost("openai", "gpt-4o-mini", 1_000_000, 1_000_000))
                .hasValueSatisfying(cost -> assertThat(cost).isEqualByComparingTo("0.75"));
        assertThat(pricing.cost("openai", "gpt-4o-mini", 1000, 500))
                .hasValueSatisfying(cost -> assertThat(cost).isEqualByComparingTo("0.00045"));
    }

    @Test
    void datedSnapshotsPriceAsTheirFamily() {
        assertThat(pricing.price("openai", "gpt-4o-mini-2024-07-18")).isEqualTo(pricing.price("openai", "gpt-4o-mini"));
        assertThat(pricing.price("anthropic", "claude-3-5-sonnet-20241022"))
                .isEqualTo(pricing.price("anthropic", "claude-3-5-sonnet"));
        assertThat(pricing.price("anthropic", "claude-sonnet-4-20250514"))
                .isEqualTo(pricing.price("anthropic", "claude-sonnet-4"));
        assertThat(pricing.price("anthropic", "claude-3-5-haiku-latest"))
                .isEqualTo(pricing.price("anthropic", "claude-3-5-haiku"));
    }

    @Test
    void exactEntryBeatsPrefix() {
        assertThat(pricing.price("openai", "gpt-4o-2024-05-13")).hasValue(ModelPrice.of("5.00", "15.00"));
        assertThat(pricing.price("openai", "gpt-4o-2024-08-06")).hasValue(new ModelPrice(new java.math.BigDecimal("2.50"), new java.math.BigDecimal("10.00"), new java.math.BigDecimal("1.25"), null));
    }

    @Test
    void longestPrefixWins() {
        assertThat(pricing.price("anthropic", "claude-opus-4-5-20251101")).hasValue(new ModelPrice(new java.math.BigDecimal("5.00"), new java.math.BigDecimal("25.00"), new java.math.BigDecimal("0.50"), new java.math.BigDecimal("6.25")));
        assertThat(pricing.price("anthropic", "claude-opus-4-20250514")).hasValue(new ModelPrice(new java.math.BigDecimal("15.00"), new java.math.BigDecimal("75.00"), new java.math.BigDecimal("1.50"), new java.math.BigDecimal("18.75")));
    }

    @Test
    void prefixMustEndAtANameBoundary() {
        assertThat(pricing.price("openai", "gpt-4.5-preview")).isEmpty();
        assertThat(pricing.price("openai", "gpt-4o")).isNotEqualTo(pricing.price("openai", "gpt-4"));
        assertThat(pricing.price("openai", "o3-mini-2025-01-31")).hasValue(new ModelPrice(new java.math.BigDecimal("1.10"), new java.math.BigDecimal("4.40"), new java.math.BigDecimal("0.55"), null));
    }

    @Test
    void unknownModelsAndProvidersHaveNoCostRatherThanZero() {
        assertThat(pricing.cost("openai", "my-local-llama", 100, 100)).isEmpty();
        assertThat(pricing.cost("ollama", "llama3.2", 100, 100)).isEmpty();
        assertThat(pricing.cost("mistral", "mistral-large", 100, 100)).isEmpty();
        assertThat(pricing.cost(null, "gpt-4o", 1, 1)).isEmpty();
    }

    @Test
    void matchingIgnoresCase() {
        assertThat(pricing.price("OpenAI", "GPT-4o-Mini")).isEqualTo(pricing.price("openai", "gpt-4o-mini"));
    }

    @Test
    void mapOverridesAddAndReplaceEntriesWithoutChangingTheOriginal() {
        Pricing custom = pricing.withOverrides(Map.of(
                "ollama", Map.of("llama3.2", ModelPrice.of("0", "0")),
                "openai", Map.of("gpt-4o", ModelPrice.of("1", "2"))));

        assertThat(custom.cost("ollama", "llama3.2:3b", 1000, 1000))
                .hasValueSatisfying(cost -> assertThat(cost).isEqualByComparingTo(BigDecimal.ZERO));
        assertThat(custom.price("openai", "gpt-4o")).hasValue(ModelPrice.of("1", "2"));
        assertThat(custom.price("openai", "gpt-4o-mini")).isEqualTo(pricing.price("openai", "gpt-4o-mini"));
        assertThat(pricing.price("openai", "gpt-4o")).hasValue(new ModelPrice(new java.math.BigDecimal("2.50"), new java.math.BigDecimal("10.00"), new java.math.BigDecimal("1.25"), null));
        assertThat(custom.asOf()).isEqualTo(pricing.asOf()).isNotBlank();
    }

    @Test
    void yamlOverrideFileIsMerged(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("prices.yaml"), """
                providers:
                  openai:
                    my-finetune: {input: 3.00, output: 12.00}
                  ollama:
                    qwen2.5: {input: 0.1, output: 0.2}
                """);

        Pricing custom = pricing.withOverrides(file);

        assertThat(custom.price("openai", "my-finetune")).hasValue(ModelPrice.of("3.00", "12.00"));
        assertThat(custom.price("ollama", "qwen2.5:7b")).hasValue(ModelPrice.of("0.1", "0.2"));
        assertThat(custom.price("anthropic", "claude-3-haiku")).isPresent();
    }

    @Test
    void jsonOverrideFileIsMerged(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("prices.json"),
                "{\"providers\":{\"anthropic\":{\"claude-3-haiku\":{\"input\":\"0.30\",\"output\":\"1.50\"}}}}");

        assertThat(pricing.withOverrides(file).price("anthropic", "claude-3-haiku-20240307"))
                .hasValue(ModelPrice.of("0.30", "1.50"));
    }

    @Test
    void malformedOverrideNamesTheFileAndEntry(@TempDir Path dir) throws IOException {
        Path missingOutput = Files.writeString(dir.resolve("bad.yaml"), """
                providers:
                  openai:
                    gpt-x: {input: 1}
                """);
        Path noProviders = Files.writeString(dir.resolve("empty.json"), "{}");

        assertThatThrownBy(() -> pricing.withOverrides(missingOutput))
                .hasMessage("pricing file " + missingOutput + ": providers.openai.gpt-x.output "
                        + "must be a USD amount per million tokens but was null");
        assertThatThrownBy(() -> pricing.withOverrides(noProviders))
                .hasMessageContaining("must have a 'providers' object");
    }

    @Test
    void priceRejectsNegativeAmounts() {
        assertThatThrownBy(() -> ModelPrice.of("-1", "1"))
                .hasMessage("inputPerMillion must be a non-negative amount but was -1");
    }
}
