package dev.loopflow.core.run;

import dev.loopflow.core.spi.Usage;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a fork would do, worked out without calling anything ({@code --dry-run}): the executions it reuses from its
 * origin and what they cost there, what executes, and the most that can cost.
 *
 * @param origin the run forked
 * @param at the fork point as written
 * @param reused the position paths of the executions reused, in journal order
 * @param reusedUsage what the reused executions spent in the origin; not charged to the fork
 * @param executes what executes from the point on, one line each
 * @param maxPasses for a pass point, the most passes the loop may still run (its bound minus the passes reused);
 *     null for a node point
 * @param maxLlmCalls the most LLM calls the fork can make, from the loop's bound and the origin's busiest pass plus
 *     the calls the origin made after the loop; null when unknown
 * @param maxCostUsd the same bound on cost, from the origin's dearest pass; null when the origin's calls had no price
 */
public record ForkPlan(String origin, String at, List<String> reused, Usage reusedUsage, List<String> executes,
    Integer maxPasses, Integer maxLlmCalls, Double maxCostUsd) {
  public ForkPlan {
    reused = List.copyOf(reused);
    executes = List.copyOf(executes);
  }

  /** As the command line's and the server's JSON show it. */
  public Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("origin", origin);
    m.put("at", at);
    m.put("reused", reused);
    Map<String, Object> u = new LinkedHashMap<>();
    u.put("llm_calls", reusedUsage.llmCalls());
    u.put("input_tokens", reusedUsage.inputTokens());
    u.put("output_tokens", reusedUsage.outputTokens());
    u.put("cost_usd", reusedUsage.costUsd());
    m.put("reused_usage", u);
    m.put("executes", executes);
    m.put("max_passes", maxPasses);
    m.put("max_llm_calls", maxLlmCalls);
    m.put("max_cost_usd", maxCostUsd);
    return m;
  }
}
