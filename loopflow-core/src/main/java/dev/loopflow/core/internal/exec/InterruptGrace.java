package dev.loopflow.core.internal.exec;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * How long interrupted units get to report before they are settled as cancelled, so that a node that ignores its
 * interrupt cannot hold its run. The one bound for a graph's units and a loop's passes alike, measured on the engine
 * clock like every other deadline, so a test with its own clock need not wait it out.
 */
final class InterruptGrace {
  /** The time interrupted units get to report. */
  static final Duration GRACE = Duration.ofSeconds(10);

  private final Clock clock;
  private final Instant until;

  private InterruptGrace(Clock clock) {
    this.clock = clock;
    this.until = clock.instant().plus(GRACE);
  }

  /** A grace that starts now, on {@code clock}. */
  static InterruptGrace startingNow(Clock clock) {
    return new InterruptGrace(clock);
  }

  /** Whether the grace is still running. */
  boolean open() {
    return clock.instant().isBefore(until);
  }
}
