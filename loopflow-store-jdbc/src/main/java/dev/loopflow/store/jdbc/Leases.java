package dev.loopflow.store.jdbc;

import dev.loopflow.core.event.Event;
import dev.loopflow.core.store.LeaseLostException;
import dev.loopflow.core.store.RunLeases;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.postgresql.PGStatement;

/*
 * Design notes.
 *
 * Leases and cancel requests are single statements on lf_runs, atomic on both databases. On PostgreSQL they commit
 * beside the writer thread (Transactions.statement), so a run's claim and release never wait behind other runs'
 * journal writes; a claim reads its new epoch in its own statement (RETURNING).
 *
 * Lease fencing (PostgreSQL): a lease claim raises the run's lease_epoch; this store remembers, per run, the owner
 * and epoch its engine claimed. Every later write of that run (its record, node executions, events, command answers)
 * first reads the run's lease_epoch FOR SHARE in the write's own transaction (epochMoved, called by the store's
 * BatchTransaction) and commits only if it is still the claimed one. The share lock conflicts with the UPDATE of a
 * claim, so once another engine's claim has committed no write of the old claim can commit, and a claim cannot
 * commit while such a write is in flight. A write that finds the epoch moved fails with LeaseLostException; the run
 * is then fenced here: its buffered events are dropped and every later write of it fails at once, without touching
 * the database. A renewal is conditional on the epoch too, so an engine that stalled past its lease cannot renew its
 * way back after someone else claimed (and perhaps finished and released) the run. SQLite keeps the epoch but does
 * not check it (one machine; a stalled process's lease is renewed or lost as before).
 *
 * Claiming a run first applies the completion logs that processes which ended left behind (LoggedCompletions), so
 * that whoever continues the run starts from all of its journal.
 */
final class Leases implements RunLeases {
  private final Transactions tx;
  private final JdbcRunStore.Dialect dialect;
  private final LoggedCompletions completions;
  private final PendingEvents pending;
  /** The leases this store's engines claimed, by run id. */
  private final Map<String, Claim> claims = new ConcurrentHashMap<>();
  /**
   * Runs whose claimed lease moved to another engine, with the owner of that claim: nothing more is written for them
   * from here, and that owner cannot claim the run again until it has released it (its engine has stopped the run).
   */
  private final Map<String, String> fenced = new ConcurrentHashMap<>();

  private record Claim(String owner, long epoch) {}

  Leases(Transactions tx, JdbcRunStore.Dialect dialect, LoggedCompletions completions, PendingEvents pending) {
    this.tx = tx;
    this.dialect = dialect;
    this.completions = completions;
    this.pending = pending;
  }

  /** Whether the lease this store claimed for {@code runId} moved: nothing more of the run is written from here. */
  boolean fenced(String runId) {
    return fenced.containsKey(runId);
  }

  /**
   * Forgets what this store holds of {@code runId}, once the run was deleted: its lease went with its row, and a new
   * run created under the same id starts unclaimed, unfenced, and numbers its executions from the tables again.
   */
  void forget(String runId) {
    claims.remove(runId);
    fenced.remove(runId);
    completions.forget(runId);
  }

  /** Fences {@code runId}, whose claimed lease a transaction found moved. */
  void fence(String runId) {
    Claim gone = claims.remove(runId);
    fenced.put(runId, gone == null ? "" : gone.owner());
  }

  static LeaseLostException lost(String runId) {
    return new LeaseLostException(runId, "the lease of run '" + runId + "' was claimed by "
        + "another engine; this engine may no longer write to it");
  }

  /**
   * A renewal (this store's engine claimed the run and {@code owner} is that claim's) extends the lease only while
   * its epoch is current; anything else is a claim, which raises the epoch and is remembered for fencing.
   */
  @Override
  public boolean tryLease(String runId, String owner, Instant now, Instant until, String replacing) {
    if (owner.equals(fenced.get(runId))) {
      return false;
    }
    Claim held = claims.get(runId);
    if (held != null && held.owner().equals(owner)) {
      int renewed = tx.statement(c -> {
        try (PreparedStatement ps = c.prepareStatement("UPDATE lf_runs SET lease_until_ms = ? "
            + "WHERE run_id = ? AND lease_owner = ? AND lease_epoch = ?")) {
          ps.setLong(1, until.toEpochMilli());
          ps.setString(2, runId);
          ps.setString(3, owner);
          ps.setLong(4, held.epoch());
          return ps.executeUpdate();
        }
      });
      if (renewed != 1) {
        claims.remove(runId, held);
        if (dialect == JdbcRunStore.Dialect.POSTGRESQL) {
          fenced.put(runId, owner);
        }
        return false;
      }
      return true;
    }
    // A process that ended may have left completions of this run in its log: they go in before anyone continues it.
    completions.recoverLogs();
    completions.forget(runId);
    long epoch = claim(runId, owner, now, until, replacing);
    if (epoch < 0) {
      return false;
    }
    fenced.remove(runId);
    claims.put(runId, new Claim(owner, epoch));
    return true;
  }

  private static final String CLAIM = "UPDATE lf_runs SET lease_owner = ?, lease_until_ms = ?, "
      + "lease_epoch = lease_epoch + 1 WHERE run_id = ? "
      + "AND (lease_owner IS NULL OR lease_until_ms < ? OR lease_owner = ? OR lease_owner = ?)";

  /**
   * Claims the lease; the new epoch, or -1 when someone else holds it. The epoch must be the one this claim set, so
   * it is read in the claim's own statement on PostgreSQL (a claim there commits beside the writer, and a later
   * claim by another engine could commit between two statements) and in the claim's transaction on SQLite.
   */
  private long claim(String runId, String owner, Instant now, Instant until, String replacing) {
    if (dialect == JdbcRunStore.Dialect.POSTGRESQL) {
      return tx.statement(c -> {
        try (PreparedStatement ps = c.prepareStatement(CLAIM + " RETURNING lease_epoch")) {
          bindClaim(ps, runId, owner, now, until, replacing);
          try (ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getLong(1) : -1L;
          }
        }
      });
    }
    long[] epoch = {-1};
    tx.write(c -> {
      try (PreparedStatement ps = c.prepareStatement(CLAIM)) {
        bindClaim(ps, runId, owner, now, until, replacing);
        if (ps.executeUpdate() != 1) {
          return;
        }
      }
      try (PreparedStatement ps = c.prepareStatement("SELECT lease_epoch FROM lf_runs WHERE run_id = ?")) {
        ps.setString(1, runId);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          epoch[0] = rs.getLong(1);
        }
      }
    });
    return epoch[0];
  }

  private static void bindClaim(PreparedStatement ps, String runId, String owner, Instant now, Instant until,
      String replacing) throws SQLException {
    ps.setString(1, owner);
    ps.setLong(2, until.toEpochMilli());
    ps.setString(3, runId);
    ps.setLong(4, now.toEpochMilli());
    ps.setString(5, owner);
    if (replacing == null) {
      ps.setNull(6, Types.VARCHAR);
    } else {
      ps.setString(6, replacing);
    }
  }

  /** Gives the lease up only when {@code owner}'s claim is still the current one; a fenced run's is gone already. */
  @Override
  public void releaseLease(String runId, String owner) {
    Claim held = claims.get(runId);
    boolean wasFenced = fenced.remove(runId, owner);
    if (held != null && held.owner().equals(owner)) {
      claims.remove(runId, held);
    } else {
      held = null;
    }
    if (wasFenced) {
      pending.drop(runId);
      return;
    }
    completions.forget(runId);
    Claim claim = held;
    tx.statement(c -> {
      try (PreparedStatement ps = c.prepareStatement("UPDATE lf_runs SET lease_owner = NULL, lease_until_ms = NULL "
          + "WHERE run_id = ? AND lease_owner = ?" + (claim == null ? "" : " AND lease_epoch = ?"))) {
        ps.setString(1, runId);
        ps.setString(2, owner);
        if (claim != null) {
          ps.setLong(3, claim.epoch());
        }
        return ps.executeUpdate();
      }
    });
  }

  /** The epoch of the run's lease as the store has it now (0 before any claim); for tests and the worker. */
  long leaseEpoch(String runId) {
    return tx.query("SELECT lease_epoch FROM lf_runs WHERE run_id = ?", runId, rs -> rs.next() ? rs.getLong(1) : 0L);
  }

  @Override
  public Optional<Lease> lease(String runId) {
    return tx.query("SELECT lease_owner, lease_until_ms FROM lf_runs WHERE run_id = ?", runId, rs -> {
      if (!rs.next() || rs.getString(1) == null) {
        return Optional.empty();
      }
      return Optional.of(new Lease(rs.getString(1), Instant.ofEpochMilli(rs.getLong(2))));
    });
  }

  @Override
  public void requestCancel(String runId, String reason) {
    tx.statement(c -> {
      try (PreparedStatement ps = c.prepareStatement("UPDATE lf_runs SET cancel_requested = ?, cancel_reason = ? "
          + "WHERE run_id = ?")) {
        ps.setInt(1, reason != null ? 1 : 0);
        ps.setString(2, reason);
        ps.setString(3, runId);
        return ps.executeUpdate();
      }
    });
  }

  @Override
  public Optional<String> cancelRequest(String runId) {
    return tx.query("SELECT cancel_requested, cancel_reason FROM lf_runs WHERE run_id = ?", runId,
        rs -> rs.next() && rs.getInt(1) != 0 ? Optional.of(rs.getString(2) == null ? "" : rs.getString(2))
            : Optional.empty());
  }

  /**
   * Locks (FOR SHARE) and checks the lease epoch of every run in the transaction whose lease this store claimed;
   * returns the first whose epoch moved, or null. Runs are checked in id order so two stores cannot deadlock.
   */
  String epochMoved(Connection c, List<GroupCommit.Request> batch, List<Event> events) throws SQLException {
    if (dialect != JdbcRunStore.Dialect.POSTGRESQL || claims.isEmpty()) {
      return null;
    }
    TreeSet<String> runs = new TreeSet<>();
    for (GroupCommit.Request r : batch) {
      if (r.runId != null && claims.containsKey(r.runId)) {
        runs.add(r.runId);
      }
    }
    for (Event e : events) {
      if (claims.containsKey(e.runId())) {
        runs.add(e.runId());
      }
    }
    if (runs.isEmpty()) {
      return null;
    }
    // One round trip for the whole batch: the writer is shared by every run of this store, so a statement per run
    // per transaction would make the batch's cost grow with the runs in it. Rows are locked in run id order.
    Map<String, Long> current = new HashMap<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT run_id, lease_epoch FROM lf_runs WHERE run_id = ANY(?) "
        + "ORDER BY run_id FOR SHARE")) {
      // Planned anew for each batch, with its run ids: a plan kept for the connection (the driver prepares a statement
      // on the server after a few uses) is the one made when lf_runs was small, a scan of the whole table, which
      // every write transaction then ran under its share locks for as long as the connection lived.
      ps.unwrap(PGStatement.class).setPrepareThreshold(0);
      ps.setArray(1, c.createArrayOf("varchar", runs.toArray()));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          current.put(rs.getString(1), rs.getLong(2));
        }
      }
    }
    for (String run : runs) {
      Claim claim = claims.get(run);
      if (claim == null) {
        continue;
      }
      Long epoch = current.get(run);
      if (epoch == null || epoch != claim.epoch()) {
        return run;
      }
    }
    return null;
  }
}
