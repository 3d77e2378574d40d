package dev.loopflow.core.model;

/** Run-level spending limits; null means no limit. Checked before every LLM call. */
public record Budget(Double maxUsd, Long maxTokens, Integer maxLlmCalls) {
  public static final Budget NONE = new Budget(null, null, null);

  public boolean isEmpty() {
    return maxUsd == null && maxTokens == null && maxLlmCalls == null;
  }
}
