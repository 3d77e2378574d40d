package dev.loopflow.core.internal.exec;

import dev.loopflow.core.ErrorCode;
import dev.loopflow.core.LoopflowException;
import dev.loopflow.core.model.Budget;
import dev.loopflow.core.model.NodePosition;
import dev.loopflow.core.spi.Usage;

/**
 * The run's usage so far and its budget. {@link #beforeCall} is checked before every LLM call: a call is
 * refused when the limit is already reached (tokens, cost) or would be passed by one more call (call count).
 */
final class Budgets {
  private final Budget budget;
  private final String owner;
  private Usage used = Usage.NONE;

  Budgets(Budget budget) {
    this(budget, null);
  }

  /** A loop's budget: {@code owner} names the loop in the error. */
  Budgets(Budget budget, String owner) {
    this.budget = budget;
    this.owner = owner;
  }

  synchronized void beforeCall(NodePosition at) {
    if (budget.isEmpty()) {
      return;
    }
    if (budget.maxLlmCalls() != null && used.llmCalls() + 1 > budget.maxLlmCalls()) {
      throw exceeded("max_llm_calls " + budget.maxLlmCalls() + " reached (" + used.llmCalls() + " calls made)", at);
    }
    if (budget.maxTokens() != null && used.totalTokens() >= budget.maxTokens()) {
      throw exceeded("max_tokens " + budget.maxTokens() + " reached (" + used.totalTokens() + " tokens used)", at);
    }
    if (budget.maxUsd() != null && used.costUsd() != null && used.costUsd() >= budget.maxUsd()) {
      throw exceeded(String.format(java.util.Locale.ROOT, "max_usd %.4f reached ($%.4f spent)", budget.maxUsd(),
          used.costUsd()), at);
    }
  }

  synchronized void add(Usage u) {
    used = used.plus(u);
  }

  synchronized Usage used() {
    return used;
  }

  private LoopflowException exceeded(String what, NodePosition at) {
    return new LoopflowException(ErrorCode.BUDGET_EXCEEDED, (owner == null ? "budget exceeded: " : "budget of "
        + owner + " exceeded: ") + what + "; the next LLM call in '" + at.path() + "' was not made", at);
  }
}
