package dev.loopflow.core.run;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a paused run waits for. The engine writes it when the run pauses and it is journaled with the run, so the
 * result object, {@code loopflow show} and {@code loopflow resume} all read the same answer.
 *
 * @param kind an approval (answered approve or reject) or a loop gate's free-text input
 * @param node the node the person answers: the approval node, or for a gate the {@code loop_group}
 * @param path the position the run waits at, for example {@code fix[2].gate} (events use the same path)
 * @param loop the innermost loop the waiting point sits in (for a gate, its loop_group), or null at the top level
 * @param iteration that loop's pass (for a gate, the pass just finished), or null at the top level
 * @param message what the person is asked
 * @param deadline an approval's answer deadline, or null
 * @param onTimeout the decision taken once the deadline has passed ({@code approve} or {@code reject}), or null
 * @param schema the form the answer fills ({@link AnswerSchema#json()}: an approval's {@code schema}, a gate's
 *     {@code gate_schema}), or null when the step asks for no values
 */
public record Waiting(Kind kind, String node, String path, String loop, Integer iteration, String message,
    Instant deadline, String onTimeout, Map<String, Object> schema) {

  /** A step that asks for no values. */
  public Waiting(Kind kind, String node, String path, String loop, Integer iteration, String message,
      Instant deadline, String onTimeout) {
    this(kind, node, path, loop, iteration, message, deadline, onTimeout, null);
  }

  /** The two things a run can wait for. */
  public enum Kind {
    APPROVAL, INPUT;

    public String json() {
      return this == APPROVAL ? "approval" : "input";
    }

    /** The kind written by {@link #json()}, or null for anything else. */
    public static Kind parse(Object s) {
      return "approval".equals(s) ? APPROVAL : "input".equals(s) ? INPUT : null;
    }
  }

  /** Whether an approval's deadline has passed at {@code now}, so a resume without a decision takes the default. */
  public boolean deadlinePassed(Instant now) {
    return deadline != null && !now.isBefore(deadline);
  }

  /** The JSON form, the {@code waiting} object of a paused run's result: every key is always present. */
  public Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("kind", kind == null ? null : kind.json());
    m.put("node", node);
    m.put("path", path);
    m.put("loop", loop);
    m.put("iteration", iteration);
    m.put("message", message);
    m.put("deadline", deadline == null ? null : deadline.toString());
    m.put("default", onTimeout);
    m.put("schema", schema);
    return m;
  }

  /** Reads what {@link #toJson()} wrote (numbers may come back as any {@link Number}); null for null. */
  @SuppressWarnings("unchecked")
  public static Waiting fromJson(Map<String, ?> m) {
    if (m == null) {
      return null;
    }
    Object it = m.get("iteration");
    Object d = m.get("deadline");
    return new Waiting(Kind.parse(m.get("kind")), str(m.get("node")), str(m.get("path")), str(m.get("loop")),
        it instanceof Number n ? Integer.valueOf(n.intValue()) : null, str(m.get("message")),
        d == null ? null : Instant.parse(String.valueOf(d)), str(m.get("default")),
        m.get("schema") instanceof Map<?, ?> s ? (Map<String, Object>) s : null);
  }

  private static String str(Object o) {
    return o == null ? null : String.valueOf(o);
  }
}
