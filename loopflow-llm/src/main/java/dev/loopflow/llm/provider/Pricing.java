package dev.loopflow.llm.provider;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Converts token usage into USD cost.
 *
 * <p>The bundled table ({@code dev/loopflow/llm/provider/pricing.json}) holds public list prices for
 * common OpenAI and Anthropic models as of {@link #asOf()}; prices change, so users can override or extend it.
 * A model resolves to the entry with exactly its name, else to the longest entry that is a prefix of it at a
 * name boundary ({@code -}, {@code :}, {@code @}, {@code /} or {@code _} follows): dated snapshots
 * such as {@code gpt-4o-mini-2024-07-18} price as {@code gpt-4o-mini}, while {@code gpt-4o} and {@code gpt-4.5} never
 * match {@code gpt-4}. Matching ignores case. Unknown models, and local (Ollama) models unless configured, have
 * no cost: empty, never zero, so that "free" and "unknown" stay distinguishable.
 *
 * <p>Override files have the bundled file's shape, as JSON or YAML:
 * <pre>{@code
 * providers:
 *   openai:
 *     my-finetune: {input: 3.00, output: 12.00}
 *   ollama:
 *     llama3.2: {input: 0, output: 0}
 * }</pre>
 * Instances are immutable and thread-safe.
 */
public interface Pricing {

    /** The bundled price table. */
    static Pricing defaults() {
        return TablePricing.DEFAULTS;
    }

    /** A table with no prices, for callers that want only their own. */
    static Pricing empty() {
        return TablePricing.EMPTY;
    }

    /** This table with {@code prices} (provider → model → price) added or replacing existing entries. */
    Pricing withOverrides(Map<String, Map<String, ModelPrice>> prices);

    /**
     * This table with the prices of {@code file} added or replacing existing entries; {@code .json} files are
     * read as JSON, anything else as YAML.
     *
     * @throws dev.loopflow.core.error.LoopflowException with code {@code usage} when the file cannot be read
     * @throws IllegalArgumentException naming the file and entry when the content is malformed
     */
    Pricing withOverrides(Path file);

    Optional<ModelPrice> price(String provider, String model);

    /** The USD cost of a call, empty when the model has no known price. */
    default Optional<BigDecimal> cost(String provider, String model, long inputTokens, long outputTokens) {
        return price(provider, model).map(price -> price.cost(inputTokens, outputTokens));
    }

    /** The date the bundled prices were last checked, e.g. {@code 2025-11-30}; overrides do not change it. */
    String asOf();
}
