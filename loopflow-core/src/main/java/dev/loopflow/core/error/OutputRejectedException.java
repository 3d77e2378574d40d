package dev.loopflow.core.error;

/**
 * A node's answer did not satisfy its own output contract (a model's reply that is not JSON, or does not match the
 * node's {@code output_schema}). Its code is {@code node_failed}; the type lets a caller that validates the answer
 * anyway (a pipeline stage, which retries a rejected answer with what was wrong) tell a rejected answer apart from a
 * failure to produce one. {@link #problem()} says what was wrong, in words fit to tell the model.
 */
public final class OutputRejectedException extends LoopflowException {
  private final String problem;

  public OutputRejectedException(String message, String problem, dev.loopflow.core.error.NodePosition position) {
    super(ErrorCode.NODE_FAILED, message, position);
    this.problem = problem;
  }

  /** What was wrong with the answer, without the node's name. */
  public String problem() {
    return problem;
  }
}
