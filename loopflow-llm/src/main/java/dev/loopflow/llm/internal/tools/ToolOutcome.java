package dev.loopflow.llm.internal.tools;

import dev.loopflow.core.expr.Json;

/**
 * What one tool call gave: its {@code result} (plain data), or, when {@code error} is not null, why it failed or
 * was refused. Either way the model is told ({@link #forModel()}) and the run goes on.
 */
public record ToolOutcome(Object result, String error) {
  public static ToolOutcome ok(Object result) {
    return new ToolOutcome(result, null);
  }

  public static ToolOutcome failed(String error) {
    return new ToolOutcome(null, error);
  }

  public boolean failed() {
    return error != null;
  }

  /** The text the model reads as the call's result: the result as text or JSON, or the error. */
  public String forModel() {
    if (error != null) {
      return "error: " + error;
    }
    return result instanceof String s ? s : Json.compact(result);
  }
}
