package dev.loopflow.core.run;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A request that the run go back to an earlier stage (node) and run again from there.
 *
 * @param requesterStageId who asks: a stage (node) id, or {@code external} for a request from outside the run
 * @param targetStageId the stage to run again
 * @param reason why, for people and logs
 * @param parameters optional values for the restarted stage (its templates see them as {@code restart.parameters})
 * @param iteration the run's restart iteration when the request was made (0 when the requester does not know)
 * @param timestampMs when the request was made, Unix milliseconds
 */
public record RestartRequest(String requesterStageId, String targetStageId, String reason,
    Map<String, String> parameters, int iteration, long timestampMs) {
  /** The requester of a request from outside the run. */
  public static final String EXTERNAL = "external";

  /** Ids longer than this are cut (no node id is this long, so such a target is never found). */
  public static final int MAX_ID_CHARS = 256;
  /** Reasons longer than this are cut, ending with an ellipsis. */
  public static final int MAX_TEXT_CHARS = 4096;
  /** Parameter values longer than this are cut, ending with an ellipsis. */
  public static final int MAX_VALUE_CHARS = 1024;
  /** Parameters beyond this many are dropped (all of them together stay far below a command's size limit). */
  public static final int MAX_PARAMETERS = 32;

  /*
   * A request may come from a model's reply or another process: it is bounded here, once, so that a hostile one
   * cannot fill the bus, the journal or a terminal. Cutting keeps the request decidable and the cut visible.
   */
  public RestartRequest {
    requesterStageId = requesterStageId == null || requesterStageId.isBlank() ? EXTERNAL
        : cut(requesterStageId, MAX_ID_CHARS);
    targetStageId = targetStageId == null ? "" : cut(targetStageId, MAX_ID_CHARS);
    reason = reason == null ? "" : cut(reason, MAX_TEXT_CHARS);
    Map<String, String> p = new LinkedHashMap<>();
    if (parameters != null) {
      for (Map.Entry<String, String> e : parameters.entrySet()) {
        if (p.size() == MAX_PARAMETERS) {
          break;
        }
        p.put(cut(String.valueOf(e.getKey()), MAX_ID_CHARS), e.getValue() == null ? ""
            : cut(e.getValue(), MAX_VALUE_CHARS));
      }
    }
    parameters = java.util.Collections.unmodifiableMap(p);
    if (iteration < 0) {
      throw new IllegalArgumentException("iteration must be >= 0 but was " + iteration);
    }
  }

  /** The request as the command bus carries it. */
  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("requester_stage_id", requesterStageId);
    m.put("target_stage_id", targetStageId);
    m.put("reason", reason);
    m.put("parameters", new LinkedHashMap<>(parameters));
    m.put("iteration", iteration);
    m.put("timestamp_ms", timestampMs);
    return m;
  }

  /** Reads {@link #toMap()}'s form; missing or mistyped fields read as absent. */
  public static RestartRequest fromMap(Map<String, ?> m) {
    Map<String, String> params = new LinkedHashMap<>();
    if (m.get("parameters") instanceof Map<?, ?> p) {
      p.forEach((k, v) -> params.put(String.valueOf(k), v == null ? "" : String.valueOf(v)));
    }
    return new RestartRequest(str(m.get("requester_stage_id")), str(m.get("target_stage_id")),
        str(m.get("reason")), params, m.get("iteration") instanceof Number n ? Math.max(0, n.intValue()) : 0,
        m.get("timestamp_ms") instanceof Number n ? n.longValue() : 0L);
  }

  private static String cut(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max - 1) + "…";
  }

  private static String str(Object o) {
    return o == null ? null : String.valueOf(o);
  }
}
