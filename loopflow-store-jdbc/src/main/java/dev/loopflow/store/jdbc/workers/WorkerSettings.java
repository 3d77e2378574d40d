package dev.loopflow.store.jdbc.workers;

import java.time.Duration;
import java.util.Objects;

/**
 * How a worker takes and keeps runs.
 *
 * @param name the worker's name in the queue (who picked a run); unique per process
 * @param concurrency how many runs it executes at once (1 to 1024)
 * @param pollingInterval how often it looks for queued runs when it has room and none was announced (a queued run
 *     is announced on {@code LISTEN/NOTIFY} and taken at once; polling is the fallback when an announcement is lost)
 * @param heartbeatInterval how often it tells the queue that its runs are alive
 * @param missedHeartbeats after how many missed heartbeats another worker takes its runs (at least 4, db-scheduler's
 *     lower bound)
 * @param drainTimeout on stop, how long its runs may take to finish before they are handed back
 */
public record WorkerSettings(String name, int concurrency, Duration pollingInterval, Duration heartbeatInterval,
    int missedHeartbeats, Duration drainTimeout) {

  public static final int MAX_CONCURRENCY = 1024;
  public static final int MIN_MISSED_HEARTBEATS = 4;

  public WorkerSettings {
    Objects.requireNonNull(name, "name");
    if (name.isBlank() || name.length() > 200) {
      throw new IllegalArgumentException("worker name must be 1 to 200 characters, was '" + name + "'");
    }
    if (concurrency < 1 || concurrency > MAX_CONCURRENCY) {
      throw new IllegalArgumentException("worker concurrency must be 1 to " + MAX_CONCURRENCY + ", was "
          + concurrency);
    }
    positive("polling interval", pollingInterval);
    positive("heartbeat interval", heartbeatInterval);
    if (missedHeartbeats < MIN_MISSED_HEARTBEATS) {
      throw new IllegalArgumentException("missed heartbeats must be at least " + MIN_MISSED_HEARTBEATS + ", was "
          + missedHeartbeats);
    }
    Objects.requireNonNull(drainTimeout, "drainTimeout");
    if (drainTimeout.isNegative()) {
      throw new IllegalArgumentException("drain timeout must not be negative, was " + drainTimeout);
    }
  }

  /** The defaults: 4 runs at once, a poll a second, a heartbeat every 2 s, dead after 4 missed, 30 s to drain. */
  public static WorkerSettings defaults(String name) {
    return new WorkerSettings(name, 4, Duration.ofSeconds(1), Duration.ofSeconds(2), 4, Duration.ofSeconds(30));
  }

  public WorkerSettings withConcurrency(int n) {
    return new WorkerSettings(name, n, pollingInterval, heartbeatInterval, missedHeartbeats, drainTimeout);
  }

  public WorkerSettings withPolling(Duration poll) {
    return new WorkerSettings(name, concurrency, poll, heartbeatInterval, missedHeartbeats, drainTimeout);
  }

  public WorkerSettings withHeartbeat(Duration every, int missed) {
    return new WorkerSettings(name, concurrency, pollingInterval, every, missed, drainTimeout);
  }

  public WorkerSettings withDrainTimeout(Duration d) {
    return new WorkerSettings(name, concurrency, pollingInterval, heartbeatInterval, missedHeartbeats, d);
  }

  /** How long a worker that stopped heartbeating keeps its runs before another worker revives them. */
  public Duration deadAfter() {
    return heartbeatInterval.multipliedBy(missedHeartbeats);
  }

  private static void positive(String what, Duration d) {
    Objects.requireNonNull(d, what);
    if (d.isZero() || d.isNegative()) {
      throw new IllegalArgumentException(what + " must be positive, was " + d);
    }
  }
}
