package dev.loopflow.core.model;

import java.time.Duration;

/**
 * Run-level limits: node executions per run ({@code max_steps}, default 10000), wall-clock {@code timeout}
 * (null = none) and how many nodes may run at once ({@code concurrency}, default 8). Checked when created: a
 * limit that would stop every run (no steps, no concurrency slot, a zero timeout) is refused.
 */
public record Limits(int maxSteps, Duration timeout, int concurrency) {
  public static final int DEFAULT_MAX_STEPS = 10_000;
  public static final int DEFAULT_CONCURRENCY = 8;
  public static final Limits DEFAULTS = new Limits(DEFAULT_MAX_STEPS, null, DEFAULT_CONCURRENCY);

  public Limits {
    if (maxSteps < 1) {
      throw new IllegalArgumentException("limits.max_steps must be at least 1, was " + maxSteps);
    }
    if (concurrency < 1) {
      throw new IllegalArgumentException("limits.concurrency must be at least 1, was " + concurrency);
    }
    if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
      throw new IllegalArgumentException("limits.timeout must be positive, was " + timeout);
    }
  }
}
