package dev.loopflow.core;

import dev.loopflow.core.model.NodePosition;
import java.util.Objects;

/**
 * The one root of every error loopflow raises. Callers branch on {@link #code()}, never on message text;
 * subclasses exist where an error carries extra typed data (the loop edge that overflowed, the problems in
 * a workflow file).
 */
public class LoopflowException extends RuntimeException {
  private final ErrorCode code;
  private final NodePosition position;

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

  /** Code-specific data as it appears in a run's error object (e.g. a loop edge's endpoints); empty by default. */
  public java.util.Map<String, Object> details() {
    return java.util.Map.of();
  }
}
