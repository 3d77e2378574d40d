package dev.loopflow.testkit;

import dev.loopflow.core.time.Sleeper;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock that moves only when a test says so, and that governs the engine's waits: give it to
 * {@code Loopflow.builder().clock(...)} and a retry delay, the run's deadline or a node's timeout passes when the
 * test calls {@link #advance}, not after that much real time. A thread the engine puts to sleep blocks until the
 * clock has been advanced past its wake-up time; {@link #awaitSleepers} lets the test wait until the engine has
 * reached such a wait.
 */
public final class ManualClock extends Clock implements Sleeper {
  private Instant now;
  private int sleepers;

  public ManualClock(Instant start) {
    this.now = start;
  }

  @Override
  public synchronized Instant instant() {
    return now;
  }

  /** Moves time forward and wakes every sleeper whose wake-up time has come. */
  public synchronized void advance(Duration d) {
    if (d.isNegative()) {
      throw new IllegalArgumentException("a clock only moves forward, not by " + d);
    }
    now = now.plus(d);
    notifyAll();
  }

  /** How many threads sleep on this clock now. */
  public synchronized int sleepers() {
    return sleepers;
  }

  /** Waits (in real time, at most {@code timeout}) until at least {@code n} threads sleep on this clock. */
  public synchronized boolean awaitSleepers(int n, Duration timeout) throws InterruptedException {
    long until = System.nanoTime() + timeout.toNanos();
    while (sleepers < n) {
      long left = until - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      wait(Math.max(1, left / 1_000_000));
    }
    return true;
  }

  @Override
  public synchronized void sleep(Duration duration) throws InterruptedException {
    Instant wake = now.plus(duration);
    sleepers++;
    notifyAll();
    try {
      while (now.isBefore(wake)) {
        wait();
      }
    } finally {
      sleepers--;
    }
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("a manual clock is always UTC");
  }
}
