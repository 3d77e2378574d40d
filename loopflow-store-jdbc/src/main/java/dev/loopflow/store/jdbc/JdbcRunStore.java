package dev.loopflow.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.store.MemoryEntry;
import dev.loopflow.core.store.JournalSlice;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunCommand;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/*
 * Design notes.
 *
 * Durability: a node completion is one transaction, and it carries every event appended before it. Events in
 * between are buffered in memory (PendingEvents) and written with the next completion or run update, or by a flusher
 * within FLUSH_MILLIS, so `loopflow events --follow` sees a live run. A crash can only lose buffered events, which
 * describe work that a resumed run repeats (a node.started of the node that was running, say). A SQLite store in its
 * default mode (synchronous=NORMAL) makes a completion durable by appending it to its completion log instead
 * (LoggedCompletions), which the writer thread inserts into the tables behind it.
 *
 * Writes are serialized on one writer thread per store (GroupCommit), which commits the writes queued together in
 * one transaction (BatchTransaction). SQLite admits one writer anyway (its pool has one connection, and transactions
 * begin IMMEDIATE so two processes never deadlock upgrading a read lock); on PostgreSQL the single writer keeps
 * "events appended before a completion are durable with it" simple to reason about. A write returns only once the
 * transaction holding it committed, with every event appended before it was queued.
 *
 * Journal rows are deltas: an execution row holds only what that execution produced, so the bytes written per
 * loop pass do not depend on how many passes came before.
 *
 * Large values are written once per run (lf_values, see ValueRefs and LargeValues): the documents that hold one (a
 * result's output and body, the run's output and node reports, a state key) hold a reference to it.
 *
 * This class is the RunStore contract over one schema: it writes run records and node completions, and every part
 * reaches the database through its transactions (Transactions), so all of them share the writer, the buffer of
 * pending events that every transaction flushes, and the error reporting. The column lists that the INSERT and
 * UPDATE statements of lf_runs must agree on are here; the SELECT side is JournalReads. The mechanisms live apart:
 * the transaction of a batch (BatchTransaction), lease claims, epoch fencing and cancel requests (Leases), the
 * completion log's path (LoggedCompletions), reads (JournalReads), JSON encoding (Codec), opening a store and its
 * schema (JdbcStores), the command bus (CommandBus, with a CommandsWatch per database) and shared memory
 * (SharedMemory), which keep their own tables.
 *
 * Lease fencing (PostgreSQL): every write of a run whose lease this store's engine claimed commits only while that
 * claim's epoch is current, else fails with LeaseLostException, and the run is fenced: nothing more of it is
 * written from here (see Leases).
 */
final class JdbcRunStore implements RunStore, Transactions {
  static final long FLUSH_MILLIS = 200;

  enum Dialect { SQLITE, POSTGRESQL }

  private final HikariDataSource ds;
  private final Dialect dialect;
  private final Codec codec;
  private final String description;
  private final PendingEvents pending = new PendingEvents();
  private final ScheduledExecutorService flusher;
  /** Where write transactions run, several queued writes to a transaction (see GroupCommit). */
  private final GroupCommit writer = new GroupCommit("loopflow-store-writer", this::commitBatch);
  /** The node-completion statements, kept prepared; touched only on the writer thread. */
  private final StatementCache statements = new StatementCache();
  private final LoggedCompletions completions;
  private final Leases leases;
  private final BatchTransaction batches;
  private final JournalReads reads;
  private final CommandBus commands;
  private final SharedMemory memory;
  private volatile boolean closed;

  /** {@code watch} tells when another process may have appended a command; the store closes it. */
  JdbcRunStore(HikariDataSource ds, Dialect dialect, Codec codec, String description, CommandsWatch watch) {
    this(ds, dialect, codec, description, watch, null);
  }

  /**
   * With {@code logDirectory} (SQLite only), completions go through a completion log there; logs left behind in it
   * by processes that ended are applied first.
   */
  JdbcRunStore(HikariDataSource ds, Dialect dialect, Codec codec, String description, CommandsWatch watch,
      Path logDirectory) {
    this.ds = ds;
    this.dialect = dialect;
    this.codec = codec;
    this.description = description;
    this.completions = new LoggedCompletions(this, writer, statements, codec, pending, description, logDirectory);
    this.leases = new Leases(this, dialect, completions, pending);
    this.batches = new BatchTransaction(ds, dialect, codec, description, statements, pending, leases, completions);
    this.reads = new JournalReads(this, ds, description, completions);
    this.commands = new CommandBus(this, dialect, watch);
    this.memory = new SharedMemory(this, dialect);
    this.flusher = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "loopflow-store-flush");
      t.setDaemon(true);
      return t;
    });
    flusher.scheduleWithFixedDelay(this::flushQuietly, FLUSH_MILLIS, FLUSH_MILLIS, TimeUnit.MILLISECONDS);
    if (logDirectory != null) {
      try {
        completions.open();
      } catch (IOException | RuntimeException e) {
        close();
        throw e instanceof LoopflowException le ? le
            : StoreFailures.of("cannot open the completion log of " + description + " in " + logDirectory + ": "
                + e.getMessage(), e);
      }
    }
  }

  Dialect dialect() {
    return dialect;
  }

  @Override
  public List<Path> localFiles() {
    if (dialect != Dialect.SQLITE || !description.startsWith("sqlite:")) {
      return List.of();
    }
    Path db = Path.of(description.substring("sqlite:".length()));
    List<Path> files = new ArrayList<>();
    for (String suffix : List.of("", "-wal", "-shm", "-journal")) {
      files.add(db.resolveSibling(db.getFileName() + suffix));
    }
    if (completions.logDirectory() != null) {
      files.add(completions.logDirectory());
    }
    return files;
  }

  /** The store's pool; the run queue of a PostgreSQL store shares it. */
  HikariDataSource dataSource() {
    return ds;
  }

  /** For tests that look at how appends by other processes are noticed. */
  CommandsWatch commandsWatch() {
    return commands.watch();
  }

  @Override
  public String toString() {
    return description;
  }

  // ---------------------------------------------------------------------------------------------------------
  // Writes

  @Override
  public void createRun(RunRecord r) {
    write(c -> {
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO lf_runs (run_id, workflow, file, source, "
          + "source_hash, working_directory, inputs_json, status, started_at, started_ms, finished_at, usage_json, "
          + "output_json, error_json, paused_at, pause_message, waiting_json, options_json) "
          + "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")) {
        ps.setString(1, r.runId());
        ps.setString(2, r.workflow());
        ps.setString(3, r.file());
        ps.setString(4, r.source());
        ps.setString(5, r.sourceHash());
        ps.setString(6, r.workingDirectory());
        ps.setString(7, store(c, r.runId(), r.inputs()));
        ps.setString(8, r.status().name());
        ps.setString(9, r.startedAt().toString());
        ps.setLong(10, r.startedAt().toEpochMilli());
        setRest(c, ps, 11, r);
        ps.executeUpdate();
      }
    });
  }

  @Override
  public void updateRun(RunRecord r) {
    write(r.runId(), c -> {
      try (PreparedStatement ps = c.prepareStatement("UPDATE lf_runs SET status = ?, finished_at = ?, usage_json = ?, "
          + "output_json = ?, error_json = ?, paused_at = ?, pause_message = ?, waiting_json = ?, options_json = ? "
          + "WHERE run_id = ?")) {
        ps.setString(1, r.status().name());
        setRest(c, ps, 2, r);
        ps.setString(10, r.runId());
        if (ps.executeUpdate() != 1) {
          throw StoreFailures.of("no run '" + r.runId() + "' in " + description, null);
        }
      }
    });
  }

  /**
   * The record's write takes the buffered events, run.finished last among them, into its transaction. If it fails,
   * run.finished is taken back out of the buffer: it must not be written later without the record it reports.
   */
  @Override
  public void finishRun(RunRecord ended, Event.RunFinished finished) {
    appendEvent(finished);
    try {
      updateRun(ended);
    } catch (RuntimeException e) {
      pending.remove(finished);
      throw e;
    }
  }

  /**
   * One transaction over every table that keeps something of the run. Buffered events and logged completions are
   * written first (flush), so that none of them is inserted after the delete and brings part of the run back.
   */
  @Override
  public boolean deleteRun(String runId) {
    flush();
    AtomicBoolean existed = new AtomicBoolean();
    write(c -> {
      for (String table : List.of("lf_node_executions", "lf_events", "lf_values", "lf_run_commands")) {
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table + " WHERE run_id = ?")) {
          ps.setString(1, runId);
          ps.executeUpdate();
        }
      }
      // The run's own shared memory: its id as the scope, or its sessions' scopes under "<run>/session/" (compared
      // as text, never as a LIKE pattern, so no character of an id acts as a wildcard).
      String sessions = runId + "/session/";
      try (PreparedStatement ps = c.prepareStatement(
          "DELETE FROM lf_shared_memory WHERE scope = ? OR substr(scope, 1, ?) = ?")) {
        ps.setString(1, runId);
        ps.setInt(2, sessions.length());
        ps.setString(3, sessions);
        ps.executeUpdate();
      }
      try (PreparedStatement ps = c.prepareStatement("DELETE FROM lf_runs WHERE run_id = ?")) {
        ps.setString(1, runId);
        existed.set(ps.executeUpdate() == 1);
      }
    });
    leases.forget(runId);
    return existed.get();
  }

  /** The columns from finished_at on, in the order both statements list them. */
  private void setRest(Connection c, PreparedStatement ps, int i, RunRecord r) throws SQLException {
    ps.setString(i, r.finishedAt() == null ? null : r.finishedAt().toString());
    ps.setString(i + 1, codec.usage(r.usage()));
    Map<String, Object> outcome = null;
    if (r.output() != null || r.state() != null || r.nodes() != null || r.pipeline() != null) {
      outcome = new LinkedHashMap<>();
      outcome.put("value", r.output());
      outcome.put("state", r.state());
      outcome.put("nodes", r.nodes());
      if (r.pipeline() != null) {
        outcome.put("pipeline", r.pipeline());
      }
    }
    ps.setString(i + 2, store(c, r.runId(), outcome));
    ps.setString(i + 3, codec.error(r.error()));
    ps.setString(i + 4, r.pausedAt());
    ps.setString(i + 5, r.waiting() == null ? null : r.waiting().message());
    ps.setString(i + 6, r.waiting() == null ? null : codec.json(r.waiting().toJson()));
    ps.setString(i + 7, r.options().isEmpty() ? null : codec.json(r.options()));
  }

  /** The JSON to write for a value, its large parts stored first (see LargeValues). */
  private String store(Connection c, String runId, Object value) throws SQLException {
    return LargeValues.store(c, runId, codec.encode(value));
  }

  private static final String INSERT_EXECUTION = "INSERT INTO lf_node_executions (run_id, seq, path, node_id, "
      + "loops_json, kind, status, attempts, started_at, finished_at, input_json, result_json, usage_json, "
      + "error_code, error_message, state_patch_json, sessions_json) SELECT ?, COALESCE(MAX(seq), 0) + 1, "
      + "?,?,?,?,?,?,?,?,?,?,?,?,?,?,? FROM lf_node_executions WHERE run_id = ?";

  /** One node completion: durable, with every event appended before it, when this returns. */
  @Override
  public void recordNodeExecution(NodeExecution e) {
    // Encoded on the caller's thread: the writer thread, which every write of the store waits for, only writes.
    String loops = codec.loops(e.position());
    String usage = codec.usage(e.usage());
    Codec.Encoded input = codec.encode(e.input());
    Codec.Encoded result = codec.encode(e.result());
    Codec.Encoded patch = codec.encode(e.statePatch());
    Codec.Encoded sessions = codec.encode(e.sessions());
    if (completions.logged()) {
      completions.record(e, loops, usage, input, result, patch, sessions);
      return;
    }
    write(e.runId(), c -> {
      PreparedStatement ps = statements.get(c, INSERT_EXECUTION);
      ps.setString(1, e.runId());
      ps.setString(2, e.position().path());
      ps.setString(3, e.position().nodeId());
      ps.setString(4, loops);
      ps.setString(5, e.kind());
      ps.setString(6, e.status().name());
      ps.setInt(7, e.attempts());
      ps.setString(8, e.startedAt() == null ? null : e.startedAt().toString());
      ps.setString(9, e.finishedAt() == null ? null : e.finishedAt().toString());
      ps.setString(10, LargeValues.store(c, e.runId(), input));
      ps.setString(11, LargeValues.store(c, e.runId(), result));
      ps.setString(12, usage);
      ps.setString(13, e.errorCode());
      ps.setString(14, e.errorMessage());
      ps.setString(15, LargeValues.store(c, e.runId(), patch));
      ps.setString(16, LargeValues.store(c, e.runId(), sessions));
      ps.setString(17, e.runId());
      ps.executeUpdate();
    });
  }

  @Override
  public void appendEvent(Event event) {
    if (leases.fenced(event.runId())) {
      throw Leases.lost(event.runId());
    }
    pending.add(event);
  }

  /**
   * Writes the buffered events. With none buffered it writes nothing: readers (every {@link #events} call, each poll
   * of a stream following a run) would otherwise each take the database's write lock for an empty transaction.
   */
  @Override
  public void flush() {
    // Logged completions first: until they are in, no transaction inserts the buffered events (see takeEvents).
    completions.caughtUp();
    if (!pending.isEmpty()) {
      write(c -> {}); // inserts the buffered events, unless a completion logged meanwhile took them with it
      completions.caughtUp();
    }
  }

  private void flushQuietly() {
    try {
      if (!pending.isEmpty() && !closed) {
        flush();
      }
    } catch (RuntimeException e) {
      // The next write retries these events and reports a failure to its caller.
    }
  }

  /** One transaction: the buffered events, then {@code work}. Events are put back if it fails. */
  @Override
  public void write(Work work) {
    write(null, work);
  }

  /**
   * One transaction: the buffered events, then {@code work} on behalf of run {@code runId} (null: no run's engine),
   * possibly with other writes queued at the same time (see GroupCommit and BatchTransaction). A run this store has
   * fenced has its events dropped and its write failed with LeaseLostException at once.
   */
  @Override
  public void write(String runId, Work work) {
    RuntimeException failed = completions.failure();
    if (failed != null) {
      throw failed;
    }
    if (runId != null && leases.fenced(runId)) {
      pending.drop(runId);
      throw Leases.lost(runId);
    }
    writer.write(runId, work,
        () -> StoreFailures.of("cannot write to the run store " + description + ": it is closed", null));
  }

  /** On the writer thread: one transaction for {@code batch} (see BatchTransaction). */
  private void commitBatch(List<GroupCommit.Request> batch) {
    batches.commit(batch);
  }

  /** Transactions this store committed so far. */
  long commits() {
    return batches.commits();
  }

  /** Writes queued for the writer thread and not yet taken; for tests. */
  int queuedWrites() {
    return writer.queued();
  }

  /** Statements prepared for node completions so far; for tests. */
  long preparedStatements() {
    return statements.prepared();
  }

  // ---------------------------------------------------------------------------------------------------------
  // Leases and cancel requests (see Leases)

  @Override
  public boolean tryLease(String runId, String owner, Instant now, Instant until, String replacing) {
    return leases.tryLease(runId, owner, now, until, replacing);
  }

  @Override
  public void releaseLease(String runId, String owner) {
    leases.releaseLease(runId, owner);
  }

  /** The epoch of the run's lease as the store has it now (0 before any claim); for tests and the worker. */
  long leaseEpoch(String runId) {
    return leases.leaseEpoch(runId);
  }

  @Override
  public Optional<Lease> lease(String runId) {
    return leases.lease(runId);
  }

  @Override
  public void requestCancel(String runId, String reason) {
    leases.requestCancel(runId, reason);
  }

  @Override
  public Optional<String> cancelRequest(String runId) {
    return leases.cancelRequest(runId);
  }

  // ---------------------------------------------------------------------------------------------------------
  // Reads (see JournalReads)

  @Override
  public Optional<RunRecord> findRun(String runId) {
    return reads.findRun(runId);
  }

  @Override
  public List<RunRecord> listRuns() {
    return reads.listRuns();
  }

  @Override
  public List<NodeExecution> nodeExecutions(String runId) {
    return reads.nodeExecutions(runId);
  }

  @Override
  public List<NodeExecution> nodeExecutions(String runId, JournalSlice slice) {
    return reads.nodeExecutions(runId, Objects.requireNonNull(slice, "slice"));
  }

  @Override
  public List<Event> events(String runId, JournalSlice slice) {
    flush();
    return reads.events(runId, Objects.requireNonNull(slice, "slice"));
  }

  @Override
  public int loopPasses(String runId) {
    return reads.loopPasses(runId);
  }

  @Override
  public List<Event> events(String runId) {
    return events(runId, Long.MIN_VALUE);
  }

  @Override
  public List<Event> events(String runId, long afterSeq) {
    flush();
    return reads.events(runId, afterSeq);
  }

  /** Bytes of journal written for a run so far; used to prove deltas stay flat and large values are stored once. */
  long journalBytes(String runId) {
    return reads.journalBytes(runId);
  }

  @Override
  public <T> T statement(Read<T> work) {
    if (dialect != Dialect.POSTGRESQL) {
      List<T> out = new ArrayList<>(1);
      write(c -> out.add(work.read(c)));
      return out.get(0);
    }
    try (Connection c = ds.getConnection()) {
      return work.read(c);
    } catch (SQLException ex) {
      throw StoreFailures.of("cannot write to the run store " + description + ": " + ex.getMessage(), ex);
    }
  }

  @Override
  public <T> T read(Read<T> read) {
    completions.caughtUp();
    try (Connection c = ds.getConnection()) {
      return read.read(c);
    } catch (SQLException ex) {
      throw StoreFailures.of("cannot read the run store " + description + ": " + ex.getMessage(), ex);
    } catch (LoopflowException ex) {
      throw ex;
    } catch (RuntimeException ex) {
      throw JournalReads.unreadable(description, ex);
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    flusher.shutdownNow();
    try {
      flush();
      completions.caughtUp();
    } finally {
      closed = true;
      try {
        commands.close();
      } finally {
        writer.stop();
        ds.close();
        completions.close();
      }
    }
  }

  /** This store's completion log, or null; for tests. */
  CompletionLog completionLog() {
    return completions.log();
  }

  // ---------------------------------------------------------------------------------------------------------
  // The command bus and shared memory: their own tables, in their own classes, through this store's transactions.

  @Override
  public RunCommand appendCommand(String runId, String kind, Map<String, Object> payload, Instant at) {
    return commands.append(runId, kind, payload, at);
  }

  @Override
  public List<RunCommand> pendingCommands(String runId) {
    return commands.pending(runId);
  }

  @Override
  public List<RunCommand> commands(String runId) {
    return commands.all(runId);
  }

  @Override
  public void respondCommand(String runId, long seq, Map<String, Object> response, Instant at) {
    commands.respond(runId, seq, response, at);
  }

  @Override
  public long commandsVersion() {
    return commands.version();
  }

  @Override
  public void putMemory(MemoryEntry entry) {
    memory.put(entry);
  }

  @Override
  public Optional<MemoryEntry> getMemory(String scope, String namespace, String key) {
    return memory.get(scope, namespace, key);
  }

  @Override
  public List<MemoryEntry> listMemory(String scope, String namespace, String keyPrefix) {
    return memory.list(scope, namespace, keyPrefix);
  }

  @Override
  public int deleteMemory(String scope, String namespace, String keyPrefix) {
    return memory.delete(scope, namespace, keyPrefix);
  }
}
