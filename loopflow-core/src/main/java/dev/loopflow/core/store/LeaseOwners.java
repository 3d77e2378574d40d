package dev.loopflow.core.store;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.UUID;

/**
 * The one rule for who holds a run's lease: an engine's owner id is {@code host/pid/random}, so that a lease left by
 * a process that no longer exists on this host can be recognised and broken at once, without waiting for it to
 * expire.
 */
public final class LeaseOwners {
  private static final String HOST = hostName();
  private static final long PID = ProcessHandle.current().pid();

  private LeaseOwners() {}

  /** A new owner id for an engine of this process. */
  public static String newOwnerId() {
    return HOST + "/" + PID + "/" + UUID.randomUUID().toString().substring(0, 8);
  }

  /**
   * Whether the engine holding {@code lease} is gone at {@code now}: the lease expired (its holder stopped renewing
   * it), or its holder is a process on this host that no longer exists. Exactly the leases a resume breaks, so a run
   * journaled {@code running} under such a lease is interrupted: nothing executes it and a resume continues it.
   */
  public static boolean abandoned(RunStore.Lease lease, Instant now) {
    return lease.until().isBefore(now) || isDeadLocal(lease.owner());
  }

  /** Whether {@code owner} names a process on this host, other than this one, that no longer exists. */
  public static boolean isDeadLocal(String owner) {
    String[] parts = owner.split("/");
    if (parts.length != 3 || !parts[0].equals(HOST)) {
      return false;
    }
    try {
      long pid = Long.parseLong(parts[1]);
      return pid != PID && ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true);
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** Without a DNS lookup, which can stall start-up on a badly configured host. */
  private static String hostName() {
    String h = System.getenv("HOSTNAME");
    if (h == null || h.isBlank()) {
      try {
        h = Files.readString(Path.of("/etc/hostname")).trim();
      } catch (Exception e) {
        h = null;
      }
    }
    return h == null || h.isBlank() ? "localhost" : h.replace('/', '_');
  }
}
