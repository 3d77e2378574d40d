package dev.loopflow.core.spi;

/**
 * LLM usage. {@code costUsd} is null when the price of a model is unknown: unknown is not free, and sums stay
 * null-aware ({@link #plus} keeps a known total and counts the unpriced calls separately).
 */
public record Usage(long inputTokens, long outputTokens, Double costUsd, int llmCalls, int unpricedCalls) {
  public static final Usage NONE = new Usage(0, 0, null, 0, 0);

  public static Usage ofCall(long inputTokens, long outputTokens, Double costUsd) {
    return new Usage(inputTokens, outputTokens, costUsd, 1, costUsd == null ? 1 : 0);
  }

  public long totalTokens() {
    return inputTokens + outputTokens;
  }

  public Usage plus(Usage o) {
    if (o == null || o == NONE) {
      return this;
    }
    if (this == NONE) {
      return o;
    }
    // Not a nested conditional: mixing Double and double there unboxes a null cost (two unpriced calls threw).
    Double cost;
    if (costUsd == null) {
      cost = o.costUsd;
    } else if (o.costUsd == null) {
      cost = costUsd;
    } else {
      cost = Double.valueOf(costUsd.doubleValue() + o.costUsd.doubleValue());
    }
    return new Usage(inputTokens + o.inputTokens, outputTokens + o.outputTokens, cost, llmCalls + o.llmCalls,
        unpricedCalls + o.unpricedCalls);
  }
}
