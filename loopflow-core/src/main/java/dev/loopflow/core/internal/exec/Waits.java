package dev.loopflow.core.internal.exec;

import dev.loopflow.core.time.Sleeper;
import java.time.Clock;
import java.time.Duration;

/**
 * Every wait of the engine goes through here, so the engine's clock governs them: a clock that is a {@link Sleeper}
 * performs them itself; any other clock means real time. A coordinator that waits for messages re-reads the clock
 * at least every {@link #pollCap()} when time is not real, so deadlines on a test clock are seen without a real
 * wait of their length.
 */
final class Waits {
  private static final long TEST_CLOCK_POLL_MILLIS = 20;
  private final Sleeper sleeper;
  private final boolean real;

  private Waits(Sleeper sleeper, boolean real) {
    this.sleeper = sleeper;
    this.real = real;
  }

  static Waits of(Clock clock) {
    if (clock instanceof Sleeper s) {
      return new Waits(s, false);
    }
    return new Waits(d -> Thread.sleep(d.toMillis(), (int) (d.toNanosPart() % 1_000_000)), true);
  }

  /** Sleeps; false (with the thread's interrupt flag set again) when interrupted. */
  boolean sleep(Duration d) {
    if (d.isZero() || d.isNegative()) {
      return !Thread.currentThread().isInterrupted();
    }
    try {
      sleeper.sleep(d);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  void sleepInterruptibly(Duration d) throws InterruptedException {
    if (!d.isZero() && !d.isNegative()) {
      sleeper.sleep(d);
    }
  }

  /** The longest a coordinator blocks on its inbox without looking at the clock again. */
  long pollCap() {
    return real ? Long.MAX_VALUE : TEST_CLOCK_POLL_MILLIS;
  }
}
