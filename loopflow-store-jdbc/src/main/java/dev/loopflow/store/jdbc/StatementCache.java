package dev.loopflow.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * The statements every node completion runs, prepared once on the database connection and kept: SQLite compiles a
 * statement on every prepare, which cost as much as running it. They are prepared on the driver's own connection,
 * not the pool's wrapper, which closes every statement made through it when the connection goes back to the pool.
 * A different connection (the pool replaced the one they were made on) drops them all. Used only on the store's
 * writer thread, so it needs no lock.
 */
final class StatementCache {
  private Connection physical;
  private final Map<String, PreparedStatement> bySql = new HashMap<>();
  private volatile long prepared;

  /** The statement for {@code sql} on the connection behind {@code c}; the caller must not close it. */
  PreparedStatement get(Connection c, String sql) throws SQLException {
    Connection p = c.unwrap(Connection.class);
    if (p != physical) {
      clear();
      physical = p;
    }
    PreparedStatement ps = bySql.get(sql);
    if (ps == null || ps.isClosed()) {
      ps = p.prepareStatement(sql);
      prepared++;
      bySql.put(sql, ps);
    }
    return ps;
  }

  /** Closes and forgets every statement (after a failed transaction, so none is reused in an unknown state). */
  void clear() {
    for (PreparedStatement ps : bySql.values()) {
      try {
        ps.close();
      } catch (SQLException e) {
        // Its connection is gone or broken; nothing left to release.
      }
    }
    bySql.clear();
    physical = null;
  }

  /** How many statements were prepared so far; for tests that check they are reused. */
  long prepared() {
    return prepared;
  }
}
