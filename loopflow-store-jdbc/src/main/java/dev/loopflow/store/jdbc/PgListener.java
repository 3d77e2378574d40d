package dev.loopflow.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * A connection of its own that {@code LISTEN}s on one PostgreSQL channel, and a daemon thread that waits on it and
 * tells its owner: {@code onListen} each time it (re)starts listening (what was notified while nobody listened is
 * lost, so the owner must then look for itself), {@code onNotify} once per batch of notifications. Notifications are
 * sent inside the notifying transaction, so one arrives only for committed work, from any process on the database.
 *
 * <p>What must stay true: a listener that cannot listen (connecting, the database down, a wait hanging on a dead
 * connection) never looks alive for long. It shows it is alive by a round trip after each wait ({@link #aliveAtNanos});
 * its connection's socket timeout ends a hanging wait, and it reconnects after {@link #RETRY_MILLIS}. Owners fall back
 * to polling while it is not alive.
 */
final class PgListener implements AutoCloseable {
  /** How long one wait for notifications blocks; a quiet listener makes one round trip per wait. */
  static final long WAIT_MILLIS = 1_000;
  /** Pause between attempts to reconnect. */
  static final long RETRY_MILLIS = 1_000;

  /** Opens the listener's own connection (not from the store's pool, which it would hold forever). */
  interface Connector {
    /** A new connection; {@code applicationName} names it in {@code pg_stat_activity}. */
    Connection connect(String applicationName) throws SQLException;
  }

  private final Connector connector;
  private final String channel;
  private final String applicationName;
  private final Runnable onListen;
  private final Runnable onNotify;
  private final AtomicLong notifications = new AtomicLong();
  private final AtomicLong listens = new AtomicLong();
  private final Thread thread;
  private volatile long aliveAtNanos;
  private volatile int backendPid;
  private volatile boolean closed;
  private volatile boolean started;
  /** The listening connection, for close() to abort a wait in progress. */
  private volatile Connection connection;

  PgListener(Connector connector, String channel, String applicationName, String threadName, Runnable onListen,
      Runnable onNotify) {
    if (!channel.matches("[a-z_][a-z0-9_]{0,62}")) {
      throw new IllegalArgumentException("channel must be a lower-case SQL identifier, was '" + channel + "'");
    }
    this.connector = connector;
    this.channel = channel;
    this.applicationName = applicationName;
    this.onListen = onListen;
    this.onNotify = onNotify;
    this.aliveAtNanos = System.nanoTime() - Long.MAX_VALUE / 4;
    this.thread = new Thread(this::listen, threadName);
    thread.setDaemon(true);
  }

  /** Starts listening (once; later calls do nothing, as do calls after close). */
  synchronized PgListener start() {
    if (!started && !closed) {
      started = true;
      thread.start();
    }
    return this;
  }

  boolean started() {
    return started;
  }

  /** When the listener last showed it was listening on a working connection ({@link System#nanoTime()}). */
  long aliveAtNanos() {
    return aliveAtNanos;
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
      try (Connection c = connector.connect(applicationName)) {
        connection = c;
        if (closed) {
          return;
        }
        try (Statement st = c.createStatement()) {
          st.execute("LISTEN " + channel);
        }
        PGConnection pg = c.unwrap(PGConnection.class);
        backendPid = pg.getBackendPID();
        listens.incrementAndGet();
        alive();
        onListen.run();
        while (!closed) {
          PGNotification[] got = pg.getNotifications((int) WAIT_MILLIS);
          if (got != null && got.length > 0) {
            notifications.incrementAndGet();
            onNotify.run();
          }
          try (Statement st = c.createStatement()) {
            st.execute("SELECT 1");
          }
          alive();
        }
      } catch (SQLException | RuntimeException e) {
        // Down or refused: owners fall back to polling until the listener is back.
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
