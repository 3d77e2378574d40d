package dev.loopflow.core.error;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one root of every error loopflow raises. Callers branch on {@link #code()}, never on message text;
 * subclasses exist where an error carries extra typed data (the loop edge that overflowed, the problems in
 * a workflow file).
 */
public class LoopflowException extends RuntimeException {
  /** One enclosing loop pass of a position path: {@code id[N].}. */
  private static final Pattern PASS = Pattern.compile("([^\\[\\]]+)\\[(\\d{1,9})]\\.");

  private final ErrorCode code;
  private final NodePosition position;
  /** The details of an error read back from a run (a subclass with typed fields computes its own). */
  private final Map<String, Object> journaledDetails;

  public LoopflowException(ErrorCode code, String message) {
    this(code, message, null, null);
  }

  public LoopflowException(ErrorCode code, String message, NodePosition position) {
    this(code, message, position, null);
  }

  public LoopflowException(ErrorCode code, String message, NodePosition position, Throwable cause) {
    super(message, cause);
    this.code = Objects.requireNonNull(code, "code");
    this.position = position;
    this.journaledDetails = Map.of();
  }

  private LoopflowException(NodePosition position, ErrorCode code, String message, Map<String, Object> details) {
    super(message);
    this.code = code;
    this.position = position;
    this.journaledDetails = Collections.unmodifiableMap(new LinkedHashMap<>(details));
  }

  /**
   * The exception a run failed (or was cancelled) with, rebuilt from its journaled error (code, message, the path of
   * the node it happened in, details), as a result returned by
   * the engine or read back from a store carries it: the typed exception where the error's code and details
   * identify one ({@link LoopIterationExceededException}, {@link MaxIterationsExceededException},
   * {@link ScriptLimitExceededException}, {@link ShellValueRejectedException}), else a {@code LoopflowException}
   * with the error's code and details. Message and position (from the error's path) are the error's.
   */
  public static LoopflowException rebuilt(ErrorCode code, String message, String where, Map<String, Object> details) {
    Objects.requireNonNull(code, "code");
    Map<String, Object> d = details == null ? Map.of() : details;
    NodePosition pos = position(where);
    switch (code) {
      case LOOP_ITERATION_EXCEEDED -> {
        Integer max = integer(d.get("maxIterations"));
        if (d.get("edgeFrom") instanceof String from && d.get("edgeTo") instanceof String to && max != null) {
          Integer passes = integer(d.get("passes"));
          return new LoopIterationExceededException(from, to, max, passes == null ? max : passes, message,
              pos);
        }
      }
      case MAX_ITERATIONS_EXCEEDED -> {
        Integer max = integer(d.containsKey("maxIterations") ? d.get("maxIterations") : d.get("max_iterations"));
        String loop = d.get("loop") instanceof String l ? l : pos == null ? null : pos.nodeId();
        if (max != null && loop != null) {
          Integer passes = integer(d.get("passes"));
          return new MaxIterationsExceededException(d.get("construct") instanceof String c ? c : null, loop, max,
              passes == null ? max : passes, message, pos);
        }
      }
      case NODE_FAILED -> {
        if (d.get("limit") instanceof String limit && d.get("value") instanceof Number value) {
          return new ScriptLimitExceededException(limit, value.longValue(), message, pos);
        }
        if (d.get("field") instanceof String field && d.get("source") instanceof String source
            && d.get("rule") instanceof String rule) {
          for (ShellValueRejectedException.Rule r : ShellValueRejectedException.Rule.values()) {
            if (r.code().equals(rule)) {
              return new ShellValueRejectedException(field, source, r, message);
            }
          }
        }
      }
      default -> { }
    }
    return new LoopflowException(pos, code, message, d);
  }

  /** A whole number as a JSON reader gives it back (Integer, Long or a double without a fraction), else null. */
  private static Integer integer(Object v) {
    if (v instanceof Integer i) {
      return i;
    }
    if (v instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())
        && Math.abs(n.doubleValue()) <= Integer.MAX_VALUE) {
      return n.intValue();
    }
    return null;
  }

  /**
   * The position a path such as {@code fix[2].inner[1].test} names: every {@code id[N].} is an enclosing loop pass
   * and the rest is the node's id (which may be a loop edge's {@code from->to}). Null for no path.
   */
  private static NodePosition position(String path) {
    if (path == null || path.isEmpty()) {
      return null;
    }
    List<NodePosition.LoopFrame> loops = new ArrayList<>();
    Matcher m = PASS.matcher(path);
    int at = 0;
    while (m.find(at) && m.start() == at) {
      loops.add(new NodePosition.LoopFrame(m.group(1), Integer.parseInt(m.group(2))));
      at = m.end();
    }
    return new NodePosition(loops, path.substring(at));
  }

  /** The stable machine-readable code. */
  public ErrorCode code() {
    return code;
  }

  /** Where in the run the error happened (node, loop path, iteration), or null when not tied to a node. */
  public NodePosition position() {
    return position;
  }

  /** The node id the error belongs to, or null. */
  public String nodeId() {
    return position == null ? null : position.nodeId();
  }

  /**
   * Code-specific data as it appears in a run's error object (e.g. a loop edge's endpoints); empty by default, and
   * the journaled details for an exception rebuilt by {@link #rebuilt}.
   */
  public Map<String, Object> details() {
    return journaledDetails;
  }
}
