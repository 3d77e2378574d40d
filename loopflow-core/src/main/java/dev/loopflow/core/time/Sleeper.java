package dev.loopflow.core.time;

import java.time.Duration;

/**
 * How the engine waits. A {@link java.time.Clock} given to {@link dev.loopflow.core.Loopflow.Builder#clock} that also implements
 * this interface governs the engine's waits, not only its timestamps: retry delays, the run's deadline and node
 * timeouts pass when the clock says so. A test clock that wakes sleepers when the test advances it (the testkit's
 * {@code ManualClock}) makes time-dependent behaviour deterministic and instant. With any other clock the engine
 * sleeps in real time. Two waits stay in real time because they wait for other processes, which run in real time:
 * how often a run's lease is renewed and checked for a cancel request, and how long {@code Loopflow.cancel} waits
 * for a run executing elsewhere to stop.
 */
@FunctionalInterface
public interface Sleeper {
  /** Returns once {@code duration} has passed on this clock; throws when the waiting thread is interrupted. */
  void sleep(Duration duration) throws InterruptedException;
}
