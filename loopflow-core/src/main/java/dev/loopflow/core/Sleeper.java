package dev.loopflow.core;

import java.time.Duration;

/**
 * How the engine waits. A {@link java.time.Clock} given to {@link Loopflow.Builder#clock} that also implements
 * this interface governs every wait of the engine, not only its timestamps: retry delays, the run's deadline,
 * node timeouts, lease renewals and waiting for a cancelled run to stop. A test clock that advances itself in
 * {@code sleep} instead of blocking makes time-dependent behaviour deterministic and instant. With any other clock
 * the engine sleeps in real time.
 */
@FunctionalInterface
public interface Sleeper {
  /** Returns once {@code duration} has passed on this clock; throws when the waiting thread is interrupted. */
  void sleep(Duration duration) throws InterruptedException;
}
