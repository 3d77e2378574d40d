package dev.loopflow.core.spi;

import java.util.Objects;

/**
 * LLM usage. {@code costUsd} is null when the price of a model is unknown: unknown is not free, and sums stay
 * null-aware ({@link #plus} keeps a known total and counts the unpriced calls separately).
 */
public record Usage(long inputTokens, long outputTokens, Double costUsd, int llmCalls, int unpricedCalls) {
  public static final Usage NONE = new Usage(0, 0, null, 0, 0);

  public static Usage ofCall(long inputTokens, long outputTokens, Double costUsd) {
    return new Usage(inputTokens, outputTokens, costUsd, 1, costUsd == null ? 1 : 0);
  }

  /*
   * equals and hashCode are written out, with a record's meaning (component by component, the cost compared as
   * Double.equals does): the generated ones go through method handles, which run interpreted in short runs, and
   * every journaled node compares its usage with NONE.
   */
  @Override
  public boolean equals(Object o) {
    return this == o || o instanceof Usage u && inputTokens == u.inputTokens && outputTokens == u.outputTokens
        && Objects.equals(costUsd, u.costUsd) && llmCalls == u.llmCalls && unpricedCalls == u.unpricedCalls;
  }

  @Override
  public int hashCode() {
    int h = Long.hashCode(inputTokens);
    h = 31 * h + Long.hashCode(outputTokens);
    h = 31 * h + Objects.hashCode(costUsd);
    h = 31 * h + llmCalls;
    return 31 * h + unpricedCalls;
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
