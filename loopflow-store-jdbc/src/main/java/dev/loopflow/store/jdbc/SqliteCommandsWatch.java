package dev.loopflow.store.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * SQLite: {@code PRAGMA data_version} on a connection of its own, which changes whenever another connection (of this
 * process or any other) committed to the database file. The connection never writes, so the store's own commits
 * change it too; {@link #appended()} makes this process's appends visible without depending on that.
 *
 * <p>The version is a counter bumped whenever the data version moved, this store appended, or the pragma could not
 * be read (the connection is then reopened on the next call): so it only grows, and never misses a commit.
 */
final class SqliteCommandsWatch implements CommandsWatch {
  private final DataSource source;
  private final AtomicLong version = new AtomicLong();
  private Connection connection;
  private long dataVersion = Long.MIN_VALUE;
  private boolean closed;

  SqliteCommandsWatch(DataSource source) {
    this.source = source;
  }

  @Override
  public synchronized long version() {
    if (closed) {
      return version.incrementAndGet();
    }
    try {
      if (connection == null) {
        connection = source.getConnection();
      }
      long now;
      try (Statement st = connection.createStatement(); ResultSet rs = st.executeQuery("PRAGMA data_version")) {
        rs.next();
        now = rs.getLong(1);
      }
      if (now != dataVersion) {
        dataVersion = now;
        version.incrementAndGet();
      }
    } catch (SQLException e) {
      // Unknown whether something was committed: report a change, and start over with a new connection.
      closeConnection();
      dataVersion = Long.MIN_VALUE;
      version.incrementAndGet();
    }
    return version.get();
  }

  @Override
  public void appended() {
    version.incrementAndGet();
  }

  @Override
  public synchronized void close() {
    closed = true;
    closeConnection();
  }

  private void closeConnection() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException e) {
        // Nothing to release beyond what close tried.
      }
      connection = null;
    }
  }
}
