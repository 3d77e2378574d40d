package dev.loopflow.core.model;

import java.util.Locale;

/**
 * How a node's state patch updates one key of the run's {@code state} (declared under the workflow's {@code state:}
 * section; undeclared keys replace).
 */
public enum StateMerge {
  /** The patch's value replaces the key's value. */
  REPLACE,
  /**
   * The key holds a list and the patch's value is added at its end (a list value adds each of its elements). The
   * journal records only what was added, so a pass costs the same at the 10th entry as at the 10,000th.
   */
  APPEND;

  public String json() {
    return name().toLowerCase(Locale.ROOT);
  }
}
