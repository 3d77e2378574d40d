package dev.loopflow.observability.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The values one metric label may take. Workflow names, stage ids and model names come from workflow files, which
 * may be written by an attacker: each new value would be a new time series, so after {@code max} distinct values
 * every further one is reported as {@value #OVERFLOW}. A value longer than {@value #MAX_LENGTH} characters is
 * {@value #OVERFLOW} too, so a label never carries a large text.
 */
public final class BoundedLabels {
  public static final String OVERFLOW = "other";
  public static final String NONE = "unknown";
  static final int MAX_LENGTH = 100;

  private final int max;
  private final Set<String> seen = ConcurrentHashMap.newKeySet();

  public BoundedLabels(int max) {
    if (max < 1) {
      throw new IllegalArgumentException("max must be at least 1, was " + max);
    }
    this.max = max;
  }

  /** The label value to report for {@code value}. */
  public String of(String value) {
    if (value == null || value.isEmpty()) {
      return NONE;
    }
    if (value.length() > MAX_LENGTH) {
      return OVERFLOW;
    }
    if (seen.contains(value)) {
      return value;
    }
    synchronized (seen) {
      if (seen.contains(value)) {
        return value;
      }
      if (seen.size() >= max) {
        return OVERFLOW;
      }
      seen.add(value);
      return value;
    }
  }
}
