package dev.loopflow.core.model;

import java.util.Locale;

/** Why a loop stopped, as its result's {@code exit_reason} and its loop.completed event say. The JSON form is the lower-case name. */
public enum ExitReason {
  CONDITION_MET, CONDITION_FALSE, EVALUATOR_DONE, STABLE_OUTPUT, SIGNAL, COMMAND, MAX_ITERATIONS, BUDGET, ERROR,
  CANCELLED;

  public String json() {
    return name().toLowerCase(Locale.ROOT);
  }
}
