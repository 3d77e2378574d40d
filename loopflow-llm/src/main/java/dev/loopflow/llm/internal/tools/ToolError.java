package dev.loopflow.llm.internal.tools;

/** A tool call that failed in a way the model is told about (its message is what the model reads). */
final class ToolError extends Exception {
  ToolError(String message) {
    super(message, null, false, false);
  }
}
