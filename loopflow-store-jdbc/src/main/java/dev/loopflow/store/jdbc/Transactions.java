package dev.loopflow.store.jdbc;

import dev.loopflow.core.store.LeaseLostException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * How the parts of a store that keep their own tables (the command bus, shared memory) reach the database: through
 * the store's own transactions, so they share its write lock, its single SQLite connection and its error reporting.
 */
interface Transactions {
  /** One write transaction, committed when {@code work} returns; driver errors become the store's own error. */
  void write(Work work);

  /**
   * A write on behalf of the engine executing {@code runId}: on a fencing store it commits only while the lease this
   * store's engine claimed for the run is still current (see Leases), else fails with {@link LeaseLostException}.
   */
  void write(String runId, Work work);

  /**
   * One statement that commits on its own and needs no journal write with it (a lease claim, renewal or release, a
   * cancel request, a memory delete). On PostgreSQL it runs at once on a pool connection in auto-commit, beside the
   * writer thread: queued behind the journal writes of every run of the store, each such statement would add a
   * batch's latency to every run it is part of. On SQLite it goes through {@link #write(Work)}: SQLite admits one
   * writer. What must stay true: {@code work} executes exactly one statement, which is atomic by itself.
   */
  <T> T statement(Read<T> work);

  /**
   * Reads on one connection; driver errors, and rows that do not read back (what {@code read} throws), become the
   * store's own error.
   */
  <T> T read(Read<T> read);

  /** One query, through {@link #read}: {@code runId} is its one parameter (none when null), {@code rows} reads it. */
  default <T> T query(String sql, String runId, Rows<T> rows) {
    return read(c -> {
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        if (runId != null) {
          ps.setString(1, runId);
        }
        try (ResultSet rs = ps.executeQuery()) {
          return rows.read(rs);
        }
      }
    });
  }

  interface Work {
    void run(Connection c) throws SQLException;
  }

  interface Read<T> {
    T read(Connection c) throws SQLException;
  }

  interface Rows<T> {
    T read(ResultSet rs) throws SQLException;
  }
}
