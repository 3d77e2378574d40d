package dev.loopflow.core.model;

/**
 * Spending limits of a run or a loop; null means no limit. Every LLM call is reserved against each budget that
 * applies to it before its request is sent (see the engine's budget ledger).
 */
public record Budget(Double maxUsd, Long maxTokens, Integer maxLlmCalls) {
  public static final Budget NONE = new Budget(null, null, null);

  public boolean isEmpty() {
    return maxUsd == null && maxTokens == null && maxLlmCalls == null;
  }
}
