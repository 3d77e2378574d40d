package dev.loopflow.core.run;

import java.util.Locale;

/** A node's status in a run result; every node of the workflow has one. {@code PAUSED}: waiting for a person. */
public enum NodeStatus {
  COMPLETED, FAILED, SKIPPED, CANCELLED, NOT_RUN, PAUSED;

  public String json() {
    return name().toLowerCase(Locale.ROOT);
  }
}
