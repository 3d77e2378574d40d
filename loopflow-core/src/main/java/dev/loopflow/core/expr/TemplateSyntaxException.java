package dev.loopflow.core.expr;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;

/**
 * A template or condition that does not parse. Its code is {@link ErrorCode#WORKFLOW_INVALID}: templates are part of
 * a workflow, and loading one reports this as a problem at the template's place in the file.
 */
public final class TemplateSyntaxException extends LoopflowException {
  private final int line;

  public TemplateSyntaxException(String message, int line) {
    super(ErrorCode.WORKFLOW_INVALID, message);
    this.line = line;
  }

  /** 1-based line within the template text where the error is, or 0 when unknown. */
  public int line() {
    return line;
  }
}
