package dev.loopflow.core.expr;

/** A template that parsed but failed while rendering (a failing filter, a type error). */
public final class TemplateRenderException extends RuntimeException {
  public TemplateRenderException(String message) {
    super(message);
  }
}
