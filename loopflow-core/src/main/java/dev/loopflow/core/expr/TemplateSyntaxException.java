package dev.loopflow.core.expr;

/** A template or expression that does not parse; the offset is into the template text, or -1. */
public final class TemplateSyntaxException extends RuntimeException {
  private final int line;

  public TemplateSyntaxException(String message, int line) {
    super(message);
    this.line = line;
  }

  /** 1-based line within the template text where the error is, or 0 when unknown. */
  public int line() {
    return line;
  }
}
