package dev.loopflow.core.store;

import java.time.Instant;
import java.util.Optional;

/**
 * Who executes a run: at most one engine at a time, the one holding its lease, which it renews while it runs; and the
 * cancel requests other processes leave for it.
 */
public interface RunLeases {
  /**
   * Atomically takes or renews the lease on a run: succeeds when no one holds it, the holder's lease ended before
   * {@code now}, {@code owner} already holds it, or it is held by {@code replacing} (a holder known to be dead;
   * null for none). False when another owner holds a live lease, or the run does not exist.
   */
  boolean tryLease(String runId, String owner, Instant now, Instant until, String replacing);

  /** Gives the lease up if {@code owner} holds it. */
  void releaseLease(String runId, String owner);

  /** The current holder, if any (possibly expired). */
  Optional<Lease> lease(String runId);

  /**
   * Asks the engine executing the run to stop, saying why; the reason ends up in the run's error. A null reason
   * withdraws the request (a resumed run starts without one).
   */
  void requestCancel(String runId, String reason);

  /** The reason of a pending cancel request, or empty when none is pending. */
  Optional<String> cancelRequest(String runId);

  /** Who executes a run, and until when unless renewed. */
  record Lease(String owner, Instant until) {}
}
