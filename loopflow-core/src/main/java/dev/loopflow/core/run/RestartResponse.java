package dev.loopflow.core.run;

import dev.loopflow.core.error.ErrorCode;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The engine's answer to a {@link RestartRequest}.
 *
 * @param requestSeq the request's number on the run's command bus
 * @param success whether the restart passed the policy and was carried out
 * @param errorCode why it was refused; null on success
 * @param message the refusal's message; null on success
 * @param output the output of the stage the run went back to, as text, once it has completed in the iteration the
 *     restart started ({@code Loopflow.restartResponse} reads it from the journal); null before that and for a
 *     refused request
 * @param iteration the run's restart iteration after the decision
 */
public record RestartResponse(long requestSeq, String targetStageId, boolean success, ErrorCode errorCode,
    String message, String output, int iteration) {
  public RestartResponse {
    if (success != (errorCode == null)) {
      throw new IllegalArgumentException("a response has an error code exactly when it is not a success, but "
          + "success was " + success + " and errorCode " + errorCode);
    }
  }

  /** The refusal of a request that was still pending when the run completed or was cancelled: nothing decides it. */
  public static RestartResponse runEnded(long requestSeq, String targetStageId, RunStatus status, int iteration) {
    return new RestartResponse(requestSeq, targetStageId, false, ErrorCode.RESTART_VALIDATION_FAILED,
        "restart validation failed: the run " + status.json() + " before the request was decided", null, iteration);
  }

  /** {@code {"target_stage_id", "success", "error": {"code", "message"} | null, "output", "iteration"}}. */
  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("request_seq", requestSeq);
    m.put("target_stage_id", targetStageId);
    m.put("success", success);
    if (errorCode == null) {
      m.put("error", null);
    } else {
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("code", errorCode.code());
      e.put("message", message);
      m.put("error", e);
    }
    m.put("output", output);
    m.put("iteration", iteration);
    return m;
  }

  public static RestartResponse fromMap(Map<String, ?> m) {
    ErrorCode code = null;
    String message = null;
    if (m.get("error") instanceof Map<?, ?> e) {
      try {
        code = ErrorCode.of(String.valueOf(e.get("code")));
      } catch (IllegalArgumentException unknown) {
        code = ErrorCode.RESTART_VALIDATION_FAILED;
      }
      message = e.get("message") == null ? "" : String.valueOf(e.get("message"));
    }
    return new RestartResponse(m.get("request_seq") instanceof Number n ? n.longValue() : 0,
        m.get("target_stage_id") == null ? "" : String.valueOf(m.get("target_stage_id")), code == null, code,
        message, m.get("output") == null ? null : String.valueOf(m.get("output")),
        m.get("iteration") instanceof Number n ? n.intValue() : 0);
  }
}
