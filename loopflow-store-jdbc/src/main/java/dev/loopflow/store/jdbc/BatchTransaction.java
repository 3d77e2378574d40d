package dev.loopflow.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.event.Event;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/*
 * Design notes.
 *
 * The writer thread's side of a store's writes (GroupCommit hands it each batch): one transaction holds the buffered
 * events, then the batch's writes. A write returns only once the transaction holding it committed; the buffered
 * events are taken after the batch's writes were queued, so every event appended before a write was queued rides in
 * that write's transaction or an earlier one, or, with a completion log, in a logged completion (see
 * LoggedCompletions.takeEvents).
 *
 * On PostgreSQL every run in the transaction whose lease this store claimed is checked against its epoch first
 * (Leases.epochMoved); a run found fenced has its events dropped and its writes failed with LeaseLostException, and
 * the transaction is tried again without them.
 *
 * A process stopped inside a write transaction keeps that share lock (and the rows it inserted) until its session
 * ends, so the database ends sessions idle inside a transaction (JdbcStores.IDLE_IN_TRANSACTION, shorter than what
 * is left of a stalled lease). The stopped process's write then fails on a broken connection when it continues; the
 * epochs, read again on a fresh connection, tell a lease that moved meanwhile (LeaseLostException, as above) from a
 * connection that merely broke (written again once when it broke before COMMIT, else the store's error). Never the
 * driver's message text.
 */
final class BatchTransaction {
  private static final String INSERT_EVENT = CompletionRecord.INSERT_EVENT;

  private final HikariDataSource ds;
  private final JdbcRunStore.Dialect dialect;
  private final Codec codec;
  private final String description;
  /** The node-completion statements, kept prepared; touched only on the writer thread. */
  private final StatementCache statements;
  private final PendingEvents pending;
  private final Leases leases;
  private final LoggedCompletions completions;
  /** Transactions committed so far; for tests that count them. */
  private volatile long commits;

  BatchTransaction(HikariDataSource ds, JdbcRunStore.Dialect dialect, Codec codec, String description,
      StatementCache statements, PendingEvents pending, Leases leases, LoggedCompletions completions) {
    this.ds = ds;
    this.dialect = dialect;
    this.codec = codec;
    this.description = description;
    this.statements = statements;
    this.pending = pending;
    this.leases = leases;
    this.completions = completions;
  }

  /** Transactions committed so far. */
  long commits() {
    return commits;
  }

  /**
   * Runs on the writer thread: commits {@code batch} in one transaction with the buffered events, and answers each of
   * its writes. A write that fails takes the transaction down with it; the others are then committed one by one, so
   * each caller gets its own answer and a failing write never fails another.
   */
  void commit(List<GroupCommit.Request> batch) {
    List<GroupCommit.Request> live = new ArrayList<>(batch);
    boolean retried = false;
    while (true) {
      live.removeIf(r -> {
        if (r.runId != null && leases.fenced(r.runId)) {
          pending.drop(r.runId);
          r.finish(Leases.lost(r.runId));
          return true;
        }
        return false;
      });
      if (live.isEmpty()) {
        return;
      }
      List<Event> events = completions.takeEvents(live, leases::fenced);
      String movedRun;
      try {
        movedRun = transactionHere(live, events);
      } catch (ConnectionBroke broke) {
        movedRun = movedSince(live, events);
        if (movedRun == null) {
          pending.putBack(events);
          if (broke.beforeCommit && !retried) {
            retried = true; // nothing of it was committed, and every claim in it still holds: write it again
            continue;
          }
          for (GroupCommit.Request r : live) {
            r.finish(broke.failure);
          }
          return;
        }
      } catch (RuntimeException ex) {
        pending.putBack(events);
        if (live.size() == 1) {
          live.get(0).finish(ex);
        } else {
          for (GroupCommit.Request r : live) {
            commit(List.of(r));
          }
        }
        return;
      }
      if (movedRun == null) {
        for (GroupCommit.Request r : live) {
          r.finish(null);
        }
        return;
      }
      // The claim on movedRun is gone: fence it, put the other runs' events back, and try again.
      leases.fence(movedRun);
      pending.putBack(events);
    }
  }

  /**
   * The transaction of a batch: null when committed, else the run whose lease moved (nothing was written). SQLite
   * commits by switching auto-commit back on, which commits the open transaction; its driver's commit() would also
   * begin the next transaction at once, only for the switch to commit that empty one as well.
   */
  private String transactionHere(List<GroupCommit.Request> batch, List<Event> events) {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      boolean committing = false;
      try {
        String moved = leases.epochMoved(c, batch, events);
        if (moved != null) {
          c.rollback();
          autoCommitAgain(c);
          return moved;
        }
        if (!events.isEmpty()) {
          insertEvents(c, events);
        }
        for (GroupCommit.Request r : batch) {
          r.work.run(c);
        }
        committing = true;
        if (dialect == JdbcRunStore.Dialect.SQLITE) {
          c.setAutoCommit(true); // commits
        } else {
          c.commit();
          autoCommitAgain(c); // committed: a connection failing after this is the pool's concern, the write stands
        }
        commits++;
        return null;
      } catch (SQLException | RuntimeException ex) {
        statements.clear();
        boolean broken = false;
        try {
          rollback(c);
          if (!c.getAutoCommit()) {
            c.setAutoCommit(true);
          }
        } catch (SQLException again) {
          ex.addSuppressed(again);
          broken = true; // a live session can always roll back
        }
        if (broken && dialect == JdbcRunStore.Dialect.POSTGRESQL) {
          if (ex instanceof SQLException sql) {
            throw new ConnectionBroke(!committing, writeFailed(sql));
          }
          if (ex instanceof LoopflowException le) {
            throw new ConnectionBroke(!committing, le);
          }
        }
        throw ex;
      }
    } catch (SQLException ex) {
      throw writeFailed(ex);
    }
  }

  /** After the transaction ended: a connection that fails here is evicted by the pool, the write stands. */
  private static void autoCommitAgain(Connection c) {
    try {
      c.setAutoCommit(true);
    } catch (SQLException ex) {
      // the pool finds the connection broken and drops it
    }
  }

  private LoopflowException writeFailed(SQLException ex) {
    return StoreFailures.of("cannot write to the run store " + description + ": " + ex.getMessage(), ex);
  }

  /**
   * A write transaction whose connection broke under it: the database ended the session (a process stopped inside a
   * transaction holds row locks that an engine taking its runs over would wait on without end, so a PostgreSQL
   * store's sessions are ended after a while idle inside one; see JdbcStores), or the network failed. Before COMMIT
   * was sent nothing of the transaction was committed; during it, nobody knows. Either way the caller reads the
   * epochs of the claimed runs on a fresh connection: a claim that moved is what happened (the write then fails with
   * LeaseLostException, as if the epoch check had found it), and when every claim still holds a transaction broken
   * before COMMIT is written again, once.
   */
  private static final class ConnectionBroke extends RuntimeException {
    final boolean beforeCommit;
    final LoopflowException failure;

    ConnectionBroke(boolean beforeCommit, LoopflowException failure) {
      super(failure.getMessage(), failure, false, false);
      this.beforeCommit = beforeCommit;
      this.failure = failure;
    }
  }

  /** The first claimed run of a write whose epoch moved, read on a fresh connection; null when none did or unknown. */
  private String movedSince(List<GroupCommit.Request> batch, List<Event> events) {
    try (Connection c = ds.getConnection()) {
      return leases.epochMoved(c, batch, events);
    } catch (SQLException | RuntimeException e) {
      return null; // the store is unreachable: the write's own failure says so
    }
  }

  /**
   * Rolls back after a failure, wherever it happened: on SQLite a failed commit has already switched auto-commit
   * on, and the transaction may still be open, so it is rolled back by statement.
   */
  private void rollback(Connection c) throws SQLException {
    if (!c.getAutoCommit()) {
      c.rollback();
      return;
    }
    try (Statement st = c.createStatement()) {
      st.execute("ROLLBACK");
    } catch (SQLException ex) {
      // No transaction was open: the failed commit ended it.
    }
  }

  private void insertEvents(Connection c, List<Event> events) throws SQLException {
    // Bodies (and their large parts) first: storing a part runs statements of its own.
    String[] bodies = new String[events.size()];
    for (int i = 0; i < bodies.length; i++) {
      bodies[i] = LargeValues.store(c, events.get(i).runId(), codec.event(events.get(i)));
    }
    PreparedStatement ps = statements.get(c, INSERT_EVENT);
    try {
      for (int i = 0; i < bodies.length; i++) {
        Event e = events.get(i);
        ps.setString(1, e.runId());
        ps.setLong(2, e.seq());
        ps.setString(3, e.type());
        ps.setString(4, e.at().toString());
        ps.setString(5, bodies[i]);
        ps.addBatch();
      }
      ps.executeBatch();
    } finally {
      ps.clearBatch();
    }
  }
}
