package dev.loopflow.core.model;

import java.time.Duration;

/**
 * Run-level limits: node executions per run ({@code max_steps}, default 10000), wall-clock {@code timeout}
 * (null = none) and how many nodes may run at once ({@code concurrency}, default 8).
 */
public record Limits(int maxSteps, Duration timeout, int concurrency) {
  public static final int DEFAULT_MAX_STEPS = 10_000;
  public static final int DEFAULT_CONCURRENCY = 8;
  public static final Limits DEFAULTS = new Limits(DEFAULT_MAX_STEPS, null, DEFAULT_CONCURRENCY);
}
