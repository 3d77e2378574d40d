package dev.loopflow.store.jdbc;

import dev.loopflow.core.store.RunCommand;
import dev.loopflow.core.store.StoreLimits;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A run's commands in {@code lf_run_commands}: appended by any process, answered once by the engine.
 *
 * <p>What must stay true: sequence numbers of a run are 1, 2, 3... without gaps or duplicates however many
 * processes append at once. The number is MAX(seq) + 1 read inside the appending transaction, which holds a lock
 * that every appender of the run takes first: on SQLite the database write lock (transactions begin IMMEDIATE), on
 * PostgreSQL a transaction-scoped advisory lock keyed by the run id (the run need not have a row to lock). The
 * primary key is the last line of defence: a duplicate would fail the append, never overwrite a command.
 */
final class CommandBus implements AutoCloseable {
  /** First key of the PostgreSQL advisory locks taken here (two-key form), so they meet no one else's. */
  private static final int LOCK_CLASS = 0x6c66636d; // "lfcm"
  private static final String COLUMNS = "run_id, seq, kind, payload_json, created_at, response_json, responded_at";

  private final Transactions tx;
  private final JdbcRunStore.Dialect dialect;
  private final CommandsWatch watch;

  CommandBus(Transactions tx, JdbcRunStore.Dialect dialect, CommandsWatch watch) {
    this.tx = tx;
    this.dialect = dialect;
    this.watch = watch;
  }

  RunCommand append(String runId, String kind, Map<String, Object> payload, Instant at) {
    StoreLimits.name("run id", runId, StoreLimits.MAX_NAME_BYTES, false);
    StoreLimits.name("command kind", kind, StoreLimits.MAX_SHORT_NAME_BYTES, false);
    Objects.requireNonNull(at, "at");
    String json = StoreLimits.document("command payload", payload == null ? Map.of() : payload);
    long[] seq = {0};
    tx.write(c -> {
      if (dialect == JdbcRunStore.Dialect.POSTGRESQL) {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_xact_lock(?, hashtext(?))")) {
          ps.setInt(1, LOCK_CLASS);
          ps.setString(2, runId);
          ps.execute();
        }
      }
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT COALESCE(MAX(seq), 0) + 1 FROM lf_run_commands WHERE run_id = ?")) {
        ps.setString(1, runId);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          seq[0] = rs.getLong(1);
        }
      }
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO lf_run_commands (run_id, seq, kind, payload_json, "
          + "created_at) VALUES (?,?,?,?,?)")) {
        ps.setString(1, runId);
        ps.setLong(2, seq[0]);
        ps.setString(3, kind);
        ps.setString(4, json);
        ps.setString(5, at.toString());
        ps.executeUpdate();
      }
      if (dialect == JdbcRunStore.Dialect.POSTGRESQL) {
        // Delivered to listeners when (and only if) this transaction commits.
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_notify(?, ?)")) {
          ps.setString(1, CommandsWatch.CHANNEL);
          ps.setString(2, runId);
          ps.execute();
        }
      }
    });
    watch.appended();
    return new RunCommand(runId, seq[0], kind, Codec.map(json), at, null, null);
  }

  List<RunCommand> pending(String runId) {
    return select(runId, " AND response_json IS NULL");
  }

  List<RunCommand> all(String runId) {
    return select(runId, "");
  }

  /** First answer wins: the update only touches a command still without one. */
  void respond(String runId, long seq, Map<String, Object> response, Instant at) {
    StoreLimits.name("run id", runId, StoreLimits.MAX_NAME_BYTES, false);
    Objects.requireNonNull(at, "at");
    if (response == null) {
      throw new IllegalArgumentException("command response is missing (a command without one stays pending)");
    }
    String json = StoreLimits.document("command response", response);
    tx.write(runId, c -> {
      try (PreparedStatement ps = c.prepareStatement("UPDATE lf_run_commands SET response_json = ?, responded_at = ? "
          + "WHERE run_id = ? AND seq = ? AND response_json IS NULL")) {
        ps.setString(1, json);
        ps.setString(2, at.toString());
        ps.setString(3, runId);
        ps.setLong(4, seq);
        ps.executeUpdate();
      }
    });
  }

  long version() {
    return watch.version();
  }

  CommandsWatch watch() {
    return watch;
  }

  private List<RunCommand> select(String runId, String condition) {
    StoreLimits.name("run id", runId, StoreLimits.MAX_NAME_BYTES, false);
    return tx.read(c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM lf_run_commands WHERE run_id = ?"
          + condition + " ORDER BY seq")) {
        ps.setString(1, runId);
        try (ResultSet rs = ps.executeQuery()) {
          List<RunCommand> out = new ArrayList<>();
          while (rs.next()) {
            out.add(read(rs));
          }
          return out;
        }
      }
    });
  }

  private static RunCommand read(ResultSet rs) throws SQLException {
    String respondedAt = rs.getString("responded_at");
    return new RunCommand(rs.getString("run_id"), rs.getLong("seq"), rs.getString("kind"),
        Codec.map(rs.getString("payload_json")), Instant.parse(rs.getString("created_at")),
        Codec.map(rs.getString("response_json")), respondedAt == null ? null : Instant.parse(respondedAt));
  }

  @Override
  public void close() {
    watch.close();
  }
}
