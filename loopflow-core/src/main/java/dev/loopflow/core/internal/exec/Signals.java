package dev.loopflow.core.internal.exec;

import dev.loopflow.core.expr.Values;

/**
 * A loop_group's completion signal: the output contains {@code <promise>SIGNAL</promise>} or has a line that is exactly
 * SIGNAL (surrounding blanks ignored). Substring matching is deliberately not enough: "NOT DONE" must never
 * complete a loop waiting for DONE.
 */
final class Signals {
  private Signals() {}

  static boolean matches(Object output, String signal) {
    if (output == null || signal == null || signal.isEmpty()) {
      return false;
    }
    String text = Values.text(output);
    if (text.contains("<promise>" + signal + "</promise>")) {
      return true;
    }
    for (String line : text.split("\r?\n", -1)) {
      if (line.strip().equals(signal)) {
        return true;
      }
    }
    return false;
  }
}
