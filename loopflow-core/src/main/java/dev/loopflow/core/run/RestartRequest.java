package dev.loopflow.core.run;

import java.util.Collections;
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
  /** Parameters beyond this many are dropped. */
  public static final int MAX_PARAMETERS = 32;
  /**
   * Parameters are also dropped from the first one whose key and value would bring their total over this many bytes
   * as JSON text (a character may take up to 6, as an escape).
   */
  public static final int MAX_PARAMETERS_JSON_BYTES = 16 * 1024;

  /*
   * A request may come from a model's reply or another process: it is bounded here, once, so that a hostile one
   * cannot fill the bus, the journal or a terminal. Cutting keeps the request decidable and the cut visible.
   * What must stay true: a request at every limit, in the characters that take the most room as JSON, fits a command
   * payload of the store (64 KiB as UTF-8 JSON): ids 2 x 256 and the reason 4096 characters at 6 bytes each, plus
   * the parameters' byte budget, plus the field names, stay below it.
   */
  public RestartRequest {
    requesterStageId = requesterStageId == null || requesterStageId.isBlank() ? EXTERNAL
        : cut(requesterStageId, MAX_ID_CHARS);
    targetStageId = targetStageId == null ? "" : cut(targetStageId, MAX_ID_CHARS);
    reason = reason == null ? "" : cut(reason, MAX_TEXT_CHARS);
    Map<String, String> p = new LinkedHashMap<>();
    if (parameters != null) {
      int bytes = 0;
      for (Map.Entry<String, String> e : parameters.entrySet()) {
        String k = cut(String.valueOf(e.getKey()), MAX_ID_CHARS);
        String v = e.getValue() == null ? "" : cut(e.getValue(), MAX_VALUE_CHARS);
        bytes += jsonBytes(k) + jsonBytes(v);
        if (p.size() == MAX_PARAMETERS || bytes > MAX_PARAMETERS_JSON_BYTES) {
          break;
        }
        p.put(k, v);
      }
    }
    parameters = Collections.unmodifiableMap(p);
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

  /** {@code s} within {@code max} characters, cut before a character (never between the halves of one). */
  private static String cut(String s, int max) {
    if (s.length() <= max) {
      return s;
    }
    int end = max - 1;
    if (Character.isHighSurrogate(s.charAt(end - 1))) {
      end--;
    }
    return s.substring(0, end) + "…";
  }

  /** The bytes {@code s} takes as a JSON string literal in UTF-8, or more (a surrogate is counted as an escape). */
  private static int jsonBytes(String s) {
    int n = 2;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      n += c < 0x20 || Character.isSurrogate(c) ? 6 : c == '"' || c == '\\' ? 2 : c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
    }
    return n;
  }

  private static String str(Object o) {
    return o == null ? null : String.valueOf(o);
  }
}
