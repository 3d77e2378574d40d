package dev.loopflow.core.internal.exec;

import dev.loopflow.core.store.LeaseOwners;
import dev.loopflow.core.store.RunStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * The right to execute one run, held through the store so that two processes resuming the same run cannot both
 * execute it. Taken atomically before anything runs, renewed while the run goes on, released when it ends.
 * The same thread polls the store for a cancel requested by another process ({@code loopflow cancel}).
 *
 * <p>Owners are {@code host/pid/nonce}: a lease left by a process on this host that no longer exists (kill -9)
 * is broken at once instead of waiting for it to expire; a lease from another host is honoured until it expires.
 */
public final class RunLease {
  static final Duration TTL = Duration.ofSeconds(15);
  static final Duration RENEW_EVERY = Duration.ofSeconds(5);
  static final Duration POLL_EVERY = Duration.ofMillis(250);

  private final RunStore store;
  private final String runId;
  private final String owner;
  private final Clock clock;
  private volatile Thread keeper;

  RunLease(RunStore store, String runId, String engineId, Clock clock) {
    this.store = store;
    this.runId = runId;
    this.owner = engineId;
    this.clock = clock;
  }

  static String newOwnerId() {
    return LeaseOwners.newOwnerId();
  }

  String owner() {
    return owner;
  }

  /**
   * Takes the lease, breaking one left by a dead process on this host. Empty when taken; otherwise the live
   * holder.
   */
  Optional<RunStore.Lease> acquire() {
    Instant now = clock.instant();
    if (store.tryLease(runId, owner, now, now.plus(TTL), null)) {
      return Optional.empty();
    }
    Optional<RunStore.Lease> held = store.lease(runId);
    if (held.isPresent() && LeaseOwners.isDeadLocal(held.get().owner())
        && store.tryLease(runId, owner, now, now.plus(TTL), held.get().owner())) {
      return Optional.empty();
    }
    return held.or(() -> Optional.of(new RunStore.Lease("unknown", now)));
  }

  /**
   * Renews the lease and watches for cancel requests until {@link #stop()}. {@code onCancel} runs once, with the
   * reason given, when another process asks the run to stop; {@code onLost} once if the lease was taken over (this
   * engine stalled past its expiry), so the run stops rather than run twice.
   */
  void keep(Consumer<String> onCancel, Runnable onLost, Runnable onTick) {
    keeper = Thread.ofVirtual().name("loopflow-lease-" + runId).start(() -> {
      Instant nextRenew = clock.instant().plus(RENEW_EVERY);
      boolean cancelSeen = false;
      try {
        while (!Thread.currentThread().isInterrupted()) {
          Thread.sleep(POLL_EVERY.toMillis());
          Instant now = clock.instant();
          if (!now.isBefore(nextRenew)) {
            if (!store.tryLease(runId, owner, now, now.plus(TTL), null)) {
              onLost.run();
              return;
            }
            nextRenew = now.plus(RENEW_EVERY);
          }
          onTick.run();
          if (!cancelSeen) {
            Optional<String> reason = store.cancelRequest(runId);
            if (reason.isPresent()) {
              cancelSeen = true;
              onCancel.accept(reason.get());
            }
          }
        }
      } catch (InterruptedException e) {
        // the run ended
      } catch (RuntimeException e) {
        // The store is unreachable: the run's own writes will fail and end it; nothing more to do here.
      }
    });
  }

  void stop() {
    Thread t = keeper;
    if (t != null) {
      t.interrupt();
      try {
        t.join(Duration.ofSeconds(5));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    try {
      store.releaseLease(runId, owner);
    } catch (RuntimeException e) {
      // It expires on its own.
    }
  }
}
