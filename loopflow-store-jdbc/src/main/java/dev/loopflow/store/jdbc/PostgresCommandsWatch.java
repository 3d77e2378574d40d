package dev.loopflow.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * PostgreSQL: a connection of its own that {@code LISTEN}s on {@link #CHANNEL}, on which every append notifies in its
 * transaction (so a notification arrives only for a committed command, from any process on the database). A daemon
 * thread, started by the first read, waits for notifications and bumps the version for each batch.
 *
 * <p>What must stay true: no append is missed. So the version also changes
 * <ul>
 *   <li>once each time the listener (re)starts listening, for the commands committed while it was not;
 *   <li>on every read while the listener has not shown it is alive for {@link #STALE_MILLIS} (it is connecting, the
 *       database is down, or a check hangs on a dead connection): callers then read the pending commands each time
 *       they look, which is polling.
 * </ul>
 * The listener shows it is alive by a round trip after each wait, so a connection that died without an error (a
 * dropped network path) cannot look alive for long; its socket timeout then ends the hanging check.
 */
final class PostgresCommandsWatch implements CommandsWatch {
  /** How long one wait for notifications blocks; a quiet listener makes one round trip per wait. */
  static final long WAIT_MILLIS = 1_000;
  /** A listener not known alive for this long is treated as down. */
  static final long STALE_MILLIS = 3_000;
  /** Pause between attempts to reconnect. */
  static final long RETRY_MILLIS = 1_000;

  /** Opens the listener's own connection (not from the store's pool, which it would hold forever). */
  interface Connector {
    Connection connect() throws SQLException;
  }

  private final Connector connector;
  private final AtomicLong version = new AtomicLong();
  private final AtomicLong notifications = new AtomicLong();
  private final AtomicLong listens = new AtomicLong();
  private volatile long aliveAtNanos = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(STALE_MILLIS) - 1;
  private volatile int backendPid;
  private volatile boolean closed;
  private volatile boolean started;
  /** The listening connection, for close() to abort a wait in progress. */
  private volatile Connection connection;
  private final Thread thread;

  PostgresCommandsWatch(Connector connector, String description) {
    this.connector = connector;
    this.thread = new Thread(this::listen, "loopflow-store-commands " + description);
    thread.setDaemon(true);
  }

  /**
   * The listener starts with the first read: a process that never asks (a CLI command listing runs) opens no
   * connection for it. Until it listens, every read reports a change.
   */
  @Override
  public long version() {
    if (!started) {
      start();
    }
    if (System.nanoTime() - aliveAtNanos > TimeUnit.MILLISECONDS.toNanos(STALE_MILLIS)) {
      return version.incrementAndGet();
    }
    return version.get();
  }

  @Override
  public void appended() {
    version.incrementAndGet();
  }

  private synchronized void start() {
    if (!started && !closed) {
      started = true;
      thread.start();
    }
  }

  /** Notification batches received so far: lets tests tell a notification from the fallbacks. */
  long notifications() {
    return notifications.get();
  }

  /** How many times the listener started listening. */
  long listens() {
    return listens.get();
  }

  /** The server process of the listening connection (0 before the first), for tests that cut it off. */
  int backendPid() {
    return backendPid;
  }

  private void listen() {
    while (!closed) {
      try (Connection c = connector.connect()) {
        connection = c;
        if (closed) {
          return;
        }
        try (Statement st = c.createStatement()) {
          st.execute("LISTEN " + CHANNEL);
        }
        PGConnection pg = c.unwrap(PGConnection.class);
        backendPid = pg.getBackendPID();
        listens.incrementAndGet();
        alive();
        version.incrementAndGet(); // what was committed while nobody listened
        while (!closed) {
          PGNotification[] got = pg.getNotifications((int) WAIT_MILLIS);
          if (got != null && got.length > 0) {
            notifications.incrementAndGet();
            version.incrementAndGet();
          }
          try (Statement st = c.createStatement()) {
            st.execute("SELECT 1");
          }
          alive();
        }
      } catch (SQLException | RuntimeException e) {
        // Down or refused: readers fall back to polling (see version) until the listener is back.
        pause();
      } finally {
        connection = null;
      }
    }
  }

  private void alive() {
    aliveAtNanos = System.nanoTime();
  }

  private void pause() {
    if (closed) {
      return;
    }
    try {
      Thread.sleep(RETRY_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closed = true;
    }
  }

  /**
   * Stops the listener and waits for it to end. A wait for notifications in progress is cut short by aborting its
   * connection (pgjdbc's abort is meant to be called from another thread); otherwise the listener sees the flag
   * within one wait.
   */
  @Override
  public void close() {
    synchronized (this) {
      closed = true;
      if (!started) {
        return;
      }
    }
    Connection c = connection;
    if (c != null) {
      try {
        c.abort(Runnable::run);
      } catch (SQLException | RuntimeException e) {
        // Already closed or broken: the listener ends on its own.
      }
    }
    thread.interrupt();
    try {
      thread.join(WAIT_MILLIS * 3);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
