package dev.loopflow.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.event.Events;
import dev.loopflow.core.event.InstantText;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.run.Waiting;
import dev.loopflow.core.store.JournalSlice;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunSummary;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The read side of the journal: run records, node executions and events as the engine wrote them. Rows are read
 * first and their large values put back afterwards (LargeValues.Parts runs queries of its own, and a SQLite store
 * has a single connection). What must stay true: a read in this process sees every completion it wrote, so the
 * reads of node executions and events wait for logged completions first (LoggedCompletions.caughtUp); a row that
 * does not read back fails as the store's own error, never as a parse exception.
 */
final class JournalReads {
  private static final String RUN_COLUMNS = "run_id, workflow, file, source, source_hash, working_directory, "
      + "inputs_json, options_json, status, started_at, finished_at, usage_json, output_json, error_json, paused_at, "
      + "pause_message, waiting_json";

  private final Transactions tx;
  private final HikariDataSource ds;
  private final String description;
  private final LoggedCompletions completions;

  JournalReads(Transactions tx, HikariDataSource ds, String description, LoggedCompletions completions) {
    this.tx = tx;
    this.ds = ds;
    this.description = description;
    this.completions = completions;
  }

  private LargeValues.Parts parts(String runId) {
    return new LargeValues.Parts(ds, description, runId);
  }

  Optional<RunRecord> findRun(String runId) {
    List<RawRun> raw = tx.query("SELECT " + RUN_COLUMNS + " FROM lf_runs WHERE run_id = ?", runId,
        JournalReads::rawRuns);
    return raw.isEmpty() ? Optional.empty()
        : Optional.of(readBack(() -> raw.get(0).record(parts(raw.get(0).runId))));
  }

  List<RunRecord> listRuns() {
    try {
      completions.recoverLogs(); // a run list shows a run that a process left behind with all its completions
    } catch (LoopflowException ex) {
      // Listing still works; opening the store or resuming the run reports the problem.
    }
    List<RawRun> raw = tx.query("SELECT " + RUN_COLUMNS + " FROM lf_runs ORDER BY started_ms DESC, run_id DESC",
        null, JournalReads::rawRuns);
    List<RunRecord> out = new ArrayList<>(raw.size());
    for (RawRun r : raw) {
      out.add(readBack(() -> r.record(parts(r.runId))));
    }
    return out;
  }

  /** A run row as read, before its large values are put back (which takes queries of its own). */
  private record RawRun(String runId, String workflow, String file, String source, String sourceHash, String inputs,
      String status, String startedAt, String finishedAt, String usage, String outcome, String error, String pausedAt,
      String pauseMessage, String workingDirectory, String options, Waiting waiting) {

    @SuppressWarnings("unchecked")
    RunRecord record(LargeValues.Parts parts) {
      Map<String, Object> out = Codec.decodeMap(outcome, parts);
      return RunRecord.builder().runId(runId).workflow(workflow).file(file).source(source).sourceHash(sourceHash)
          .inputs(Codec.decodeMap(inputs, parts)).options(Codec.map(options)).status(RunStatus.valueOf(status))
          .startedAt(InstantText.parse(startedAt)).finishedAt(instant(finishedAt)).usage(Codec.usage(usage))
          .output(out == null ? null : out.get("value")).error(Codec.error(error)).waiting(waiting)
          .workingDirectory(workingDirectory)
          .state(out == null ? null : (Map<String, Object>) out.get("state"))
          .nodes(out == null ? null : (Map<String, Object>) out.get("nodes"))
          .pipeline(out == null ? null : (Map<String, Object>) out.get("pipeline")).build();
    }
  }

  private static List<RawRun> rawRuns(ResultSet rs) throws SQLException {
    List<RawRun> out = new ArrayList<>();
    while (rs.next()) {
      out.add(new RawRun(rs.getString("run_id"), rs.getString("workflow"), rs.getString("file"),
          rs.getString("source"), rs.getString("source_hash"), rs.getString("inputs_json"), rs.getString("status"),
          rs.getString("started_at"), rs.getString("finished_at"), rs.getString("usage_json"),
          rs.getString("output_json"), rs.getString("error_json"), rs.getString("paused_at"),
          rs.getString("pause_message"), rs.getString("working_directory"), rs.getString("options_json"),
          waiting(rs)));
    }
    return out;
  }

  /** A node execution row as read, before its large values are put back. */
  private record RawExecution(String runId, String path, String nodeId, String loops, String kind, String status,
      int attempts, String startedAt, String finishedAt, String input, String result, String usage,
      String errorCode, String errorMessage, String statePatch, String sessions) {

    NodeExecution execution(LargeValues.Parts parts) {
      return new NodeExecution(runId, Codec.position(nodeId, loops), kind, NodeStatus.valueOf(status), attempts,
          instant(startedAt), instant(finishedAt), Codec.decodeMap(input, parts), Codec.decodeMap(result, parts),
          Codec.usage(usage), errorCode, errorMessage, Codec.decodeMap(statePatch, parts),
          Codec.decodeSessions(sessions, parts));
    }
  }

  /** A store written before waiting_json existed kept only the path and the message. */
  private static Waiting waiting(ResultSet rs) throws SQLException {
    Map<String, Object> w = Codec.map(rs.getString("waiting_json"));
    if (w != null) {
      return Waiting.fromJson(w);
    }
    String at = rs.getString("paused_at");
    return at == null || !"PAUSED".equals(rs.getString("status")) ? null
        : new Waiting(null, null, at, null, null, rs.getString("pause_message"), null, null);
  }

  List<NodeExecution> nodeExecutions(String runId) {
    return nodeExecutions(runId, null);
  }

  /**
   * The run's executions in {@code slice} (all of them when null), chosen by their path column before any row's
   * documents are decoded. A prefix is compared in SQL with {@code substr}, which both databases compare character by
   * character, unlike a range or a {@code LIKE}, whose meaning depends on the collation and on the wildcard
   * characters ids may hold.
   */
  List<NodeExecution> nodeExecutions(String runId, JournalSlice slice) {
    completions.caughtUp();
    // a pass's executions all lie inside it; only its loop.iteration event is at the loop's own path
    String prefix = slice instanceof JournalSlice.Pass p ? p.loopPath() + "[" + p.pass() + "]."
        : slice == null ? null : slice.pathPrefix();
    String sql = "SELECT run_id, path, node_id, loops_json, kind, status, attempts, started_at, finished_at, "
        + "input_json, result_json, usage_json, error_code, error_message, state_patch_json, sessions_json "
        + "FROM lf_node_executions WHERE run_id = ?" + (prefix == null ? "" : " AND substr(path, 1, ?) = ?")
        + " ORDER BY seq";
    List<RawExecution> raw = tx.read(c -> {
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setString(1, runId);
        if (prefix != null) {
          ps.setInt(2, prefix.length());
          ps.setString(3, prefix);
        }
        try (ResultSet rs = ps.executeQuery()) {
          List<RawExecution> out = new ArrayList<>();
          while (rs.next()) {
            out.add(new RawExecution(rs.getString("run_id"), rs.getString("path"), rs.getString("node_id"),
                rs.getString("loops_json"), rs.getString("kind"), rs.getString("status"), rs.getInt("attempts"),
                rs.getString("started_at"), rs.getString("finished_at"), rs.getString("input_json"),
                rs.getString("result_json"), rs.getString("usage_json"), rs.getString("error_code"),
                rs.getString("error_message"), rs.getString("state_patch_json"), rs.getString("sessions_json")));
          }
          return out;
        }
      }
    });
    if (slice != null) {
      JournalSlice.Chooser chooser = slice.chooser();
      raw.forEach(r -> chooser.see(r.path(), 0));
      raw = raw.stream().filter(r -> chooser.keeps(r.path(), 0)).toList();
    }
    LargeValues.Parts parts = parts(runId);
    List<NodeExecution> out = new ArrayList<>(raw.size());
    for (RawExecution r : raw) {
      out.add(readBack(() -> r.execution(parts)));
    }
    return out;
  }

  /**
   * Counted from the rows' positions alone: a run list asks this for every run it shows, and decoding every row's
   * documents (as {@link #nodeExecutions} does) cost as much as the run's journal is long.
   */
  int loopPasses(String runId) {
    completions.caughtUp();
    List<NodePosition> positions = tx.query("SELECT node_id, loops_json FROM lf_node_executions WHERE run_id = ? "
        + "ORDER BY seq", runId, rs -> {
          List<NodePosition> out = new ArrayList<>();
          while (rs.next()) {
            out.add(Codec.position(rs.getString(1), rs.getString(2)));
          }
          return out;
        });
    return readBack(() -> RunSummary.loopPasses(positions));
  }

  /** The events of {@code runId} after {@code afterSeq}, once the buffered ones were flushed (by the caller). */
  List<Event> events(String runId, long afterSeq) {
    return events(runId, afterSeq, null);
  }

  /**
   * The events in {@code slice}, once the buffered ones were flushed (by the caller). Each row is chosen by its
   * head (EventHeads) before it is decoded; for a prefix, SQL first narrows the rows to bodies holding
   * {@code "path":"PREFIX} (a superset: LIKE may ignore case).
   */
  List<Event> events(String runId, JournalSlice slice) {
    return events(runId, Long.MIN_VALUE, slice);
  }

  @SuppressWarnings("unchecked")
  private List<Event> events(String runId, long afterSeq, JournalSlice slice) {
    completions.caughtUp();
    // SQL narrows the rows to a superset of the slice's (LIKE may ignore case); the heads decide
    List<String> needles = new ArrayList<>();
    String where = "";
    if (slice instanceof JournalSlice.Pass p) {
      needles.add(needle(p.loopPath() + "[" + p.pass() + "]."));
      needles.add(needle(p.loopPath() + "\""));
      where = " AND (body LIKE ? ESCAPE '!' OR (type = 'loop.iteration' AND body LIKE ? ESCAPE '!'))";
    } else if (slice != null && slice.pathPrefix() != null) {
      needles.add(needle(slice.pathPrefix()));
      where = " AND body LIKE ? ESCAPE '!'";
    }
    String sql = "SELECT body FROM lf_events WHERE run_id = ? AND seq > ?" + where + " ORDER BY seq";
    List<String> bodies = tx.read(c -> {
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setString(1, runId);
        ps.setLong(2, afterSeq);
        for (int i = 0; i < needles.size(); i++) {
          ps.setString(3 + i, needles.get(i));
        }
        try (ResultSet rs = ps.executeQuery()) {
          List<String> out = new ArrayList<>();
          while (rs.next()) {
            out.add(rs.getString(1));
          }
          return out;
        }
      }
    });
    if (slice != null) {
      JournalSlice.Chooser chooser = slice.chooser();
      List<EventHeads> heads = new ArrayList<>(bodies.size());
      for (String body : bodies) {
        EventHeads h = readBack(() -> EventHeads.of(body));
        h.seenBy(chooser);
        heads.add(h);
      }
      List<String> kept = new ArrayList<>();
      for (int i = 0; i < bodies.size(); i++) {
        if (heads.get(i).keptBy(chooser)) {
          kept.add(bodies.get(i));
        }
      }
      bodies = kept;
    }
    LargeValues.Parts parts = parts(runId);
    List<Event> out = new ArrayList<>(bodies.size());
    for (String body : bodies) {
      out.add(readBack(() -> ValueRefs.mayHoldRefs(body)
          ? Events.fromMap((Map<String, ?>) Codec.decode(body, parts)) : Codec.event(body)));
    }
    return out;
  }

  /**
   * A LIKE pattern (escape character {@code !}) matching an event body whose {@code path} starts with {@code text}.
   * Paths are ids, brackets, digits, dots and {@code ->}: nothing JSON escapes.
   */
  private static String needle(String text) {
    return "%\"path\":\"" + text.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%";
  }

  /**
   * Bytes of journal written for a run so far (the JSON and text columns, and its stored large values); used to prove
   * deltas stay flat and large values are stored once.
   */
  long journalBytes(String runId) {
    return tx.query("SELECT COALESCE(SUM(LENGTH(COALESCE(input_json, '')) + LENGTH(COALESCE(result_json, '')) "
        + "+ LENGTH(COALESCE(state_patch_json, '')) + LENGTH(COALESCE(sessions_json, '')) + LENGTH(path) "
        + "+ LENGTH(COALESCE(usage_json, ''))), 0) FROM lf_node_executions WHERE run_id = ?", runId,
        rs -> rs.next() ? rs.getLong(1) : 0L)
        + tx.query("SELECT COALESCE(SUM(LENGTH(body)), 0) FROM lf_events WHERE run_id = ?", runId,
        rs -> rs.next() ? rs.getLong(1) : 0L)
        + tx.query("SELECT COALESCE(SUM(LENGTH(body)), 0) FROM lf_values WHERE run_id = ?", runId,
        rs -> rs.next() ? rs.getLong(1) : 0L);
  }

  private static Instant instant(String s) {
    return s == null ? null : InstantText.parse(s);
  }

  /** What a row holds, built by {@code decode}; a row that does not read back fails as the store's own error. */
  private <T> T readBack(Supplier<T> decode) {
    try {
      return decode.get();
    } catch (LoopflowException ex) {
      throw ex;
    } catch (RuntimeException ex) {
      throw unreadable(description, ex);
    }
  }

  /** A row that is not what the engine wrote (an unknown status or event type, a broken date): edited or damaged. */
  static LoopflowException unreadable(String description, RuntimeException ex) {
    return StoreFailures.of("cannot read the run store " + description + ": a journal row does not read back"
        + (ex.getMessage() == null || ex.getMessage().isBlank() ? "" : ": " + ex.getMessage()), ex);
  }
}
