package dev.loopflow.llm.provider;

import java.math.BigDecimal;

/**
 * List price of a model in USD per one million tokens: prompt ({@code input}) and reply ({@code output}) tokens,
 * and, where the provider prices its prompt cache apart, prompt tokens read from the cache ({@code cacheRead}) and
 * written to it ({@code cacheWrite}). A null cache rate means such tokens cost the input rate.
 *
 * <p>Amounts are kept in canonical form (no trailing zeros) so that equal prices are equal records however
 * they were written: {@code 2.50} in one file and {@code 2.5} in another.
 */
public record ModelPrice(BigDecimal inputPerMillion, BigDecimal outputPerMillion, BigDecimal cacheReadPerMillion,
        BigDecimal cacheWritePerMillion) {

    private static final int PER_MILLION = 6;

    public ModelPrice {
        requireNonNegative("inputPerMillion", inputPerMillion);
        requireNonNegative("outputPerMillion", outputPerMillion);
        if (cacheReadPerMillion != null) {
            requireNonNegative("cacheReadPerMillion", cacheReadPerMillion);
            cacheReadPerMillion = canonical(cacheReadPerMillion);
        }
        if (cacheWritePerMillion != null) {
            requireNonNegative("cacheWritePerMillion", cacheWritePerMillion);
            cacheWritePerMillion = canonical(cacheWritePerMillion);
        }
        inputPerMillion = canonical(inputPerMillion);
        outputPerMillion = canonical(outputPerMillion);
    }

    /** A price with no cache rates of its own. */
    public ModelPrice(BigDecimal inputPerMillion, BigDecimal outputPerMillion) {
        this(inputPerMillion, outputPerMillion, null, null);
    }

    public static ModelPrice of(String inputPerMillion, String outputPerMillion) {
        return new ModelPrice(new BigDecimal(inputPerMillion), new BigDecimal(outputPerMillion));
    }

    /** The exact USD cost of the given token counts, every prompt token at the input rate. */
    public BigDecimal cost(long inputTokens, long outputTokens) {
        return cost(inputTokens, outputTokens, 0, 0);
    }

    /**
     * The exact USD cost of a call whose {@code inputTokens} include {@code cacheReadTokens} read from the prompt
     * cache and {@code cacheWriteTokens} written to it; exact because decimal prices divide by 10^6 exactly.
     */
    public BigDecimal cost(long inputTokens, long outputTokens, long cacheReadTokens, long cacheWriteTokens) {
        if (inputTokens < 0) {
            throw new IllegalArgumentException("inputTokens must be >= 0 but was " + inputTokens);
        }
        if (outputTokens < 0) {
            throw new IllegalArgumentException("outputTokens must be >= 0 but was " + outputTokens);
        }
        if (cacheReadTokens < 0 || cacheWriteTokens < 0 || cacheReadTokens + cacheWriteTokens > inputTokens) {
            throw new IllegalArgumentException("cacheReadTokens and cacheWriteTokens must be >= 0 and together at most "
                    + "inputTokens (" + inputTokens + ") but were " + cacheReadTokens + " and " + cacheWriteTokens);
        }
        BigDecimal read = cacheReadPerMillion != null ? cacheReadPerMillion : inputPerMillion;
        BigDecimal write = cacheWritePerMillion != null ? cacheWritePerMillion : inputPerMillion;
        return inputPerMillion.multiply(BigDecimal.valueOf(inputTokens - cacheReadTokens - cacheWriteTokens))
                .add(read.multiply(BigDecimal.valueOf(cacheReadTokens)))
                .add(write.multiply(BigDecimal.valueOf(cacheWriteTokens)))
                .add(outputPerMillion.multiply(BigDecimal.valueOf(outputTokens)))
                .movePointLeft(PER_MILLION);
    }

    private static BigDecimal canonical(BigDecimal amount) {
        BigDecimal stripped = amount.stripTrailingZeros();
        // stripTrailingZeros turns 10 into 1E+1; keep integers plain.
        return stripped.scale() < 0 ? stripped.setScale(0) : stripped;
    }

    private static void requireNonNegative(String field, BigDecimal value) {
        if (value == null || value.signum() < 0) {
            throw new IllegalArgumentException(field + " must be a non-negative amount but was " + value);
        }
    }
}
