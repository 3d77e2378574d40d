package dev.loopflow.core.run;

/** A node's status in a run result; every node of the workflow has one. */
public enum NodeStatus {
  COMPLETED, FAILED, SKIPPED, CANCELLED, NOT_RUN;

  public String json() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
