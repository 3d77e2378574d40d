package dev.loopflow.core.expr;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;

/**
 * A template that parsed but failed while rendering (a failing filter, a type error, a size limit). Its code is
 * {@link ErrorCode#NODE_FAILED}: in a run, the node (or loop) whose template it is fails with it.
 */
public final class TemplateRenderException extends LoopflowException {
  public TemplateRenderException(String message) {
    super(ErrorCode.NODE_FAILED, message);
  }
}
