package dev.loopflow.core.model;

/**
 * Spending limits of a run or a loop; null means no limit. Every LLM call is reserved against each budget that
 * applies to it before its request is sent (see the engine's budget ledger). Checked when created: a limit is a
 * finite number of at least zero.
 */
public record Budget(Double maxUsd, Long maxTokens, Integer maxLlmCalls) {
  public static final Budget NONE = new Budget(null, null, null);

  public Budget {
    if (maxUsd != null && (maxUsd.isNaN() || maxUsd.isInfinite() || maxUsd < 0)) {
      throw new IllegalArgumentException("budget.max_usd must be a finite number of at least 0, was " + maxUsd);
    }
    if (maxTokens != null && maxTokens < 0) {
      throw new IllegalArgumentException("budget.max_tokens must be at least 0, was " + maxTokens);
    }
    if (maxLlmCalls != null && maxLlmCalls < 0) {
      throw new IllegalArgumentException("budget.max_llm_calls must be at least 0, was " + maxLlmCalls);
    }
  }

  public boolean isEmpty() {
    return maxUsd == null && maxTokens == null && maxLlmCalls == null;
  }
}
