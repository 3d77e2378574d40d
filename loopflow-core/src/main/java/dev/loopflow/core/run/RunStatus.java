package dev.loopflow.core.run;

import java.util.Locale;

/** A run's status; the JSON form is the lower-case name. */
public enum RunStatus {
  RUNNING, COMPLETED, FAILED, PAUSED, CANCELLED;

  public String json() {
    return name().toLowerCase(Locale.ROOT);
  }

  public boolean isTerminal() {
    return this != RUNNING && this != PAUSED;
  }
}
