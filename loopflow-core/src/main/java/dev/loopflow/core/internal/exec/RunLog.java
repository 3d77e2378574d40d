package dev.loopflow.core.internal.exec;

import dev.loopflow.core.spi.Usage;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a node execution journals besides its result, which the node never sees: the steps of its model calls and of
 * its end, and the keys of the run log that modules keep under it.
 *
 * <p>The calls of an execution that never got a journal row (its process died, or the run ended before the node's
 * thread reported) are in no row's usage. So every call is journaled as steps: reserved (durable before the request
 * is sent, with what the call counts if its outcome stays unknown) and ended (what it counted), and an execution
 * whose row is journaled gets an ended step after that row. A resumed run counts the calls of every execution
 * without that step from these steps ({@link RunContext.Replay}): a call still in flight at a crash counts at its
 * whole reservation, as a timed-out one does.
 *
 * <p>What must stay true: these names are in journals already written; they never change.
 */
final class RunLog {
  static final String CALL_RESERVED = "llm.reserved";
  static final String CALL_ENDED = "llm.ended";
  static final String EXECUTION_ENDED = "execution.ended";
  /** The first character of every run-log key, one no template or node can write. */
  static final String KEY_PREFIX = "\u0000";

  private RunLog() {}

  /** Whether {@code key} is a run-log key. */
  static boolean isRunLog(String key) {
    return key.startsWith(KEY_PREFIX);
  }

  /** A call's usage as its steps journal it. */
  static Map<String, Object> usageMap(Usage u) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("llm_calls", u.llmCalls());
    m.put("unpriced_calls", u.unpricedCalls());
    m.put("input_tokens", u.inputTokens());
    m.put("output_tokens", u.outputTokens());
    if (u.costUsd() != null) {
      m.put("cost_usd", u.costUsd());
    }
    return m;
  }

  /** The usage a step journaled; none when it holds none. */
  static Usage usageOf(Object o) {
    if (!(o instanceof Map<?, ?> m)) {
      return Usage.NONE;
    }
    Usage u = new Usage(number(m.get("input_tokens")), number(m.get("output_tokens")),
        m.get("cost_usd") instanceof Number n ? n.doubleValue() : null, (int) number(m.get("llm_calls")),
        (int) number(m.get("unpriced_calls")));
    return u.equals(Usage.NONE) ? Usage.NONE : u;
  }

  private static long number(Object o) {
    return o instanceof Number n ? n.longValue() : 0;
  }
}
