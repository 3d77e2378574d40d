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

  public RestartRequest {
    requesterStageId = requesterStageId == null || requesterStageId.isBlank() ? EXTERNAL : requesterStageId;
    targetStageId = targetStageId == null ? "" : targetStageId;
    reason = reason == null ? "" : reason;
    parameters = parameters == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
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

  private static String str(Object o) {
    return o == null ? null : String.valueOf(o);
  }
}
