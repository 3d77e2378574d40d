package dev.loopflow.store.jdbc;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * PostgreSQL: a {@link PgListener} on {@link #CHANNEL}, on which every append notifies in its transaction. The
 * listener starts with the first read and bumps the version for each batch of notifications.
 *
 * <p>What must stay true: no append is missed. So the version also changes
 * <ul>
 *   <li>once each time the listener (re)starts listening, for the commands committed while it was not;
 *   <li>on every read while the listener has not shown it is alive for {@link #STALE_MILLIS} (it is connecting, the
 *       database is down, or a check hangs on a dead connection): callers then read the pending commands each time
 *       they look, which is polling.
 * </ul>
 */
final class PostgresCommandsWatch implements CommandsWatch {
  /** A listener not known alive for this long is treated as down. */
  static final long STALE_MILLIS = 3_000;

  private final PgListener.Connector connector;
  private final String description;
  private final AtomicLong version = new AtomicLong();
  private final PgListener listener;

  PostgresCommandsWatch(PgListener.Connector connector, String description) {
    this.connector = connector;
    this.description = description;
    this.listener = new PgListener(connector, CHANNEL, "loopflow commands listener",
        "loopflow-store-commands " + description,
        version::incrementAndGet, version::incrementAndGet);
  }

  /**
   * The listener starts with the first read: a process that never asks (a CLI command listing runs) opens no
   * connection for it. Until it listens, every read reports a change.
   */
  @Override
  public long version() {
    if (!listener.started()) {
      listener.start();
    }
    if (System.nanoTime() - listener.aliveAtNanos() > TimeUnit.MILLISECONDS.toNanos(STALE_MILLIS)) {
      return version.incrementAndGet();
    }
    return version.get();
  }

  @Override
  public void appended() {
    version.incrementAndGet();
  }

  /** Another listener on the same database, with a connection of its own (see {@link PgListener}). */
  PgListener listener(String channel, String name, Runnable onListen, Runnable onNotify) {
    return new PgListener(connector, channel, name, name + " " + description, onListen, onNotify);
  }

  long notifications() {
    return listener.notifications();
  }

  long listens() {
    return listener.listens();
  }

  int backendPid() {
    return listener.backendPid();
  }

  @Override
  public void close() {
    listener.close();
  }
}
