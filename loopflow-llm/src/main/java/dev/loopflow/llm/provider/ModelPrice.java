package dev.loopflow.llm.provider;

import java.math.BigDecimal;

/**
 * List price of a model in USD per one million tokens.
 *
 * <p>Amounts are kept in canonical form (no trailing zeros) so that equal prices are equal records however
 * they were written: {@code 2.50} in one file and {@code 2.5} in another.
 */
public record ModelPrice(BigDecimal inputPerMillion, BigDecimal outputPerMillion) {

    private static final int PER_MILLION = 6;

    public ModelPrice {
        requireNonNegative("inputPerMillion", inputPerMillion);
        requireNonNegative("outputPerMillion", outputPerMillion);
        inputPerMillion = canonical(inputPerMillion);
        outputPerMillion = canonical(outputPerMillion);
    }

    public static ModelPrice of(String inputPerMillion, String outputPerMillion) {
        return new ModelPrice(new BigDecimal(inputPerMillion), new BigDecimal(outputPerMillion));
    }

    /** The exact USD cost of the given token counts; exact because decimal prices divide by 10^6 exactly. */
    public BigDecimal cost(long inputTokens, long outputTokens) {
        if (inputTokens < 0) {
            throw new IllegalArgumentException("inputTokens must be >= 0 but was " + inputTokens);
        }
        if (outputTokens < 0) {
            throw new IllegalArgumentException("outputTokens must be >= 0 but was " + outputTokens);
        }
        return inputPerMillion.multiply(BigDecimal.valueOf(inputTokens))
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
