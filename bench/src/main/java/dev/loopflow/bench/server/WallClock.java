package dev.loopflow.bench.server;

import java.time.Instant;

/**
 * Wall-clock time in nanoseconds since the epoch, read cheaply: one {@link Instant#now()} at start and the monotonic
 * clock after it. The server stamps each event with its wall clock ({@code at}); a client on the same machine compares
 * its receive time with that stamp, so both must be wall-clock times. Over a benchmark of minutes the monotonic clock
 * and the wall clock drift apart by microseconds at most (unless the clock is stepped, which would show as absurd
 * latencies).
 */
final class WallClock {
  private static final long BASE_EPOCH_NANOS;
  private static final long BASE_NANO_TIME;

  static {
    Instant now = Instant.now();
    BASE_NANO_TIME = System.nanoTime();
    BASE_EPOCH_NANOS = now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }

  private WallClock() {}

  static long epochNanos() {
    return BASE_EPOCH_NANOS + (System.nanoTime() - BASE_NANO_TIME);
  }

  static long epochNanos(Instant at) {
    return at.getEpochSecond() * 1_000_000_000L + at.getNano();
  }

  /** Sleeps until the wall-clock instant {@code epochNanos} (returns at once when it has passed). */
  static void sleepUntil(long epochNanos) throws InterruptedException {
    long wait = epochNanos - epochNanos();
    if (wait > 0) {
      Thread.sleep(java.time.Duration.ofNanos(wait));
    }
  }
}
