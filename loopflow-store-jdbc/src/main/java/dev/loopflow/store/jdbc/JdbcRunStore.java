package dev.loopflow.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.event.Events;
import dev.loopflow.core.event.InstantText;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.MemoryEntry;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunCommand;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/*
 * Design notes.
 *
 * Durability: a node completion is one transaction, and it carries every event appended before it. Events in
 * between are buffered in memory and written with the next completion or run update, or by a flusher within
 * FLUSH_MILLIS, so `loopflow events --follow` sees a live run. A crash can only lose buffered events, which
 * describe work that a resumed run repeats (a node.started of the node that was running, say).
 *
 * A SQLite store in its default mode (synchronous=NORMAL) makes a completion durable by appending it, with the
 * events before it, to its completion log (CompletionLog) instead: the append is as durable as such a commit, and
 * the writer thread inserts the log's records into the tables behind it, as many to a transaction as have queued.
 * The engine's next pass no longer waits for a SQLite transaction. Node executions of such a store carry their
 * sequence number from here (executionSeqs), so inserting a record twice is harmless. Every read of events or node
 * executions first waits until the writer has caught up with the log, so this process reads what it wrote; another
 * process sees a completion once the writer has inserted it, and a log left behind by a process that ended is
 * applied by the next store that opens the database, claims a run's lease or lists runs.
 *
 * Writes are serialized on one writer thread per store (GroupCommit), which commits the writes queued together in
 * one transaction. SQLite admits one writer anyway (its pool has one connection, and transactions begin IMMEDIATE so
 * two processes never deadlock upgrading a read lock); on PostgreSQL the single writer keeps "events appended before
 * a completion are durable with it" simple to reason about. A write returns only once the transaction holding it
 * committed; the buffered events are taken after the batch's writes, so every event appended before a write was
 * queued rides in that write's transaction or an earlier one, or, with a completion log, in a logged completion:
 * buffered events are held back while a logged completion outside the transaction is still to be inserted, so that
 * the journal's events are always a prefix of what was appended (takeEvents).
 *
 * Journal rows are deltas: an execution row holds only what that execution produced, so the bytes written per
 * loop pass do not depend on how many passes came before.
 *
 * Large values are written once per run (lf_values, see ValueRefs): the documents that hold one (a result's output
 * and body, the run's output and node reports, a state key) hold a reference to it.
 *
 * Why the journal is one class of over 500 lines: it is the RunStore contract over one schema, and its parts share
 * what must stay consistent between them — the write lock and the buffer of pending events (every write flushes the
 * buffer in its own transaction), the column lists that the INSERT, UPDATE and SELECT statements of a table must
 * agree on, and the run-scoped reader of large values that every read uses. What has no such coupling already
 * lives apart: JSON encoding in Codec, large-value references in ValueRefs, opening a store and its schema in
 * JdbcStores, the command bus (CommandBus, with a CommandsWatch per database) and shared memory (SharedMemory),
 * which keep their own tables and reach them through this store's transactions (Transactions).
 *
 * Lease fencing (PostgreSQL): a lease claim raises the run's lease_epoch; this store remembers, per run, the owner
 * and epoch its engine claimed. Every later write of that run (its record, node executions, events, command answers)
 * first reads the run's lease_epoch FOR SHARE in the write's own transaction and commits only if it is still the
 * claimed one. The share lock conflicts with the UPDATE of a claim, so once another engine's claim has committed no
 * write of the old claim can commit, and a claim cannot commit while such a write is in flight. A write that finds
 * the epoch moved fails with LeaseLostException; the run is then fenced here: its buffered events are dropped and
 * every later write of it fails at once, without touching the database. A renewal is conditional on the epoch too,
 * so an engine that stalled past its lease cannot renew its way back after someone else claimed (and perhaps
 * finished and released) the run. SQLite keeps the epoch but does not check it (one machine; a stalled process's
 * lease is renewed or lost as before).
 *
 * A process stopped inside a write transaction keeps that share lock (and the rows it inserted) until its session
 * ends, so the database ends sessions idle inside a transaction (JdbcStores.IDLE_IN_TRANSACTION, shorter than what
 * is left of a stalled lease). The stopped process's write then fails on a broken connection when it continues; the
 * epochs, read again on a fresh connection, tell a lease that moved meanwhile (LeaseLostException, as above) from a
 * connection that merely broke (written again once when it broke before COMMIT, else the store's error). Never the
 * driver's message text.
 */
final class JdbcRunStore implements RunStore, Transactions {
  static final long FLUSH_MILLIS = 200;

  enum Dialect { SQLITE, POSTGRESQL }

  private final HikariDataSource ds;
  private final Dialect dialect;
  private final Codec codec;
  private final String description;
  private final List<Event> pending = new ArrayList<>();
  private final ScheduledExecutorService flusher;
  /** Where write transactions run, several queued writes to a transaction (see GroupCommit). */
  private final GroupCommit writer = new GroupCommit("loopflow-store-writer", this::commitBatch);
  /** The node-completion statements, kept prepared; touched only on the writer thread. */
  private final StatementCache statements = new StatementCache();
  /** Transactions committed so far; for tests that count them. */
  private volatile long commits;
  private final CommandBus commands;
  private final SharedMemory memory;
  private volatile boolean closed;
  /** The leases this store's engines claimed, by run id (see the design notes on fencing). */
  private final java.util.Map<String, Claim> claims = new java.util.concurrent.ConcurrentHashMap<>();
  /**
   * Runs whose claimed lease moved to another engine, with the owner of that claim: nothing more is written for them
   * from here, and that owner cannot claim the run again until it has released it (its engine has stopped the run).
   */
  private final java.util.Map<String, String> fenced = new java.util.concurrent.ConcurrentHashMap<>();

  private record Claim(String owner, long epoch) {}

  /** Where this store's completion log and those left behind live; null when completions are committed directly. */
  private final java.nio.file.Path logDirectory;
  /** This store's completion log (see the design notes); null when completions are committed directly. */
  private final CompletionLog log;
  /** Serializes appends to the log with the events they take and the log's truncation; guards the counts below. */
  private final Object appendLock = new Object();
  private final CompletionRecord.Writer recordBuffer = new CompletionRecord.Writer();
  private long appended;
  private long applied;
  /** The first failure to insert a logged completion: every later write fails with it (the log keeps the data). */
  private volatile RuntimeException logFailure;
  /** With a log: the last node execution sequence number of each run this store writes. */
  private final java.util.Map<String, java.util.concurrent.atomic.AtomicLong> executionSeqs =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** {@code watch} tells when another process may have appended a command; the store closes it. */
  JdbcRunStore(HikariDataSource ds, Dialect dialect, Codec codec, String description, CommandsWatch watch) {
    this(ds, dialect, codec, description, watch, null);
  }

  /**
   * With {@code logDirectory} (SQLite only), completions go through a completion log there; logs left behind in it
   * by processes that ended are applied first.
   */
  JdbcRunStore(HikariDataSource ds, Dialect dialect, Codec codec, String description, CommandsWatch watch,
      java.nio.file.Path logDirectory) {
    this.ds = ds;
    this.dialect = dialect;
    this.codec = codec;
    this.description = description;
    this.commands = new CommandBus(this, dialect, watch);
    this.memory = new SharedMemory(this, dialect);
    this.flusher = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "loopflow-store-flush");
      t.setDaemon(true);
      return t;
    });
    flusher.scheduleWithFixedDelay(this::flushQuietly, FLUSH_MILLIS, FLUSH_MILLIS, TimeUnit.MILLISECONDS);
    this.logDirectory = logDirectory;
    CompletionLog opened = null;
    if (logDirectory != null) {
      try {
        recoverLogs();
        opened = CompletionLog.create(logDirectory);
      } catch (IOException | RuntimeException e) {
        close();
        throw e instanceof LoopflowException le ? le
            : StoreFailures.of("cannot open the completion log of " + description + " in " + logDirectory + ": "
                + e.getMessage(), e);
      }
    }
    this.log = opened;
  }

  Dialect dialect() {
    return dialect;
  }

  @Override
  public List<java.nio.file.Path> localFiles() {
    if (dialect != Dialect.SQLITE || !description.startsWith("sqlite:")) {
      return List.of();
    }
    java.nio.file.Path db = java.nio.file.Path.of(description.substring("sqlite:".length()));
    List<java.nio.file.Path> files = new java.util.ArrayList<>();
    for (String suffix : List.of("", "-wal", "-shm", "-journal")) {
      files.add(db.resolveSibling(db.getFileName() + suffix));
    }
    if (logDirectory != null) {
      files.add(logDirectory);
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
      synchronized (pending) {
        pending.remove(finished);
      }
      throw e;
    }
  }

  /** The columns from finished_at on, in the order both statements list them. */
  private void setRest(Connection c, PreparedStatement ps, int i, RunRecord r) throws SQLException {
    ps.setString(i, r.finishedAt() == null ? null : r.finishedAt().toString());
    ps.setString(i + 1, codec.usage(r.usage()));
    java.util.Map<String, Object> outcome = null;
    if (r.output() != null || r.state() != null || r.nodes() != null || r.pipeline() != null) {
      outcome = new java.util.LinkedHashMap<>();
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
    if (logDirectory != null) {
      String[] row = {e.runId(), e.position().path(), e.position().nodeId(), loops, e.kind(), e.status().name(),
          Integer.toString(e.attempts()), e.startedAt() == null ? null : InstantText.of(e.startedAt()),
          e.finishedAt() == null ? null : InstantText.of(e.finishedAt()), input.json(), result.json(), usage,
          e.errorCode(), e.errorMessage(), patch.json(), sessions.json()};
      java.util.concurrent.atomic.AtomicLong seqs = executionSeqs.computeIfAbsent(e.runId(), this::lastExecutionSeq);
      boolean large = !input.parts().isEmpty() || !result.parts().isEmpty() || !patch.parts().isEmpty()
          || !sessions.parts().isEmpty();
      if (!large && appendToLog(row, seqs)) {
        return;
      }
      // Large values go to lf_values first, in the transaction that inserts the row: the direct way.
      CompletionRecord direct = new CompletionRecord(row, seqs.incrementAndGet(), List.of());
      write(e.runId(), c -> {
        for (Codec.Encoded enc : List.of(input, result, patch, sessions)) {
          store(c, e.runId(), enc);
        }
        direct.apply(c, statements);
      });
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
      ps.setString(10, store(c, e.runId(), input));
      ps.setString(11, store(c, e.runId(), result));
      ps.setString(12, usage);
      ps.setString(13, e.errorCode());
      ps.setString(14, e.errorMessage());
      ps.setString(15, store(c, e.runId(), patch));
      ps.setString(16, store(c, e.runId(), sessions));
      ps.setString(17, e.runId());
      ps.executeUpdate();
    });
  }

  /**
   * Appends a completion with the events buffered before it to the log and queues its insertion; false (nothing
   * taken) when one of those events holds a large value, which must go to lf_values in the same transaction.
   */
  private boolean appendToLog(String[] row, java.util.concurrent.atomic.AtomicLong seqs) {
    RuntimeException failed = logFailure;
    if (failed != null) {
      throw failed;
    }
    synchronized (appendLock) {
      List<Event> taken;
      synchronized (pending) {
        taken = new ArrayList<>(pending);
        pending.clear();
      }
      List<CompletionRecord.EventRow> events = new ArrayList<>(taken.size());
      for (Event ev : taken) {
        Codec.Encoded enc = codec.event(ev);
        if (!enc.parts().isEmpty()) {
          putBack(taken);
          return false;
        }
        events.add(new CompletionRecord.EventRow(ev.runId(), ev.seq(), ev.type(), InstantText.of(ev.at()),
            enc.json()));
      }
      CompletionRecord record = new CompletionRecord(row, seqs.get() + 1, events);
      try {
        record.encode(recordBuffer);
        log.append(recordBuffer.bytes(), recordBuffer.length());
      } catch (IOException ex) {
        putBack(taken);
        throw StoreFailures.of("cannot write to the run store " + description + ": its completion log "
            + log.file() + " failed: " + ex.getMessage(), ex);
      }
      seqs.incrementAndGet();
      appended++;
      writer.submit(record.runId(), c -> record.apply(c, statements), this::applied,
          () -> StoreFailures.of("cannot write to the run store " + description + ": it is closed", null));
    }
    return true;
  }

  private void putBack(List<Event> taken) {
    synchronized (pending) {
      pending.addAll(0, taken);
    }
  }

  /** On the writer thread: a logged completion was inserted, or failed to be. */
  private void applied(RuntimeException failure) {
    if (failure != null) {
      if (logFailure == null) {
        logFailure = StoreFailures.of("cannot write to the run store " + description + ": a completion in its log "
            + "could not be inserted (it stays in " + log.file() + " and is inserted when the store is opened "
            + "again): " + failure.getMessage(), failure);
      }
      return;
    }
    synchronized (appendLock) {
      applied++;
      if (applied == appended) {
        try {
          log.truncateIfLarge();
        } catch (IOException ex) {
          // Kept as it is: applying its records again is harmless, and the next drained moment tries again.
        }
      }
    }
  }

  /**
   * Returns once every completion this store logged so far is in the tables (or inserting one failed), so that a
   * read in this process sees what it wrote.
   */
  private void caughtUp() {
    if (log == null || logFailure != null || writer.onWriterThread()) {
      return;
    }
    synchronized (appendLock) {
      if (applied == appended) {
        return;
      }
    }
    write(null, c -> {});
  }

  /** The highest node execution sequence number the tables hold for {@code runId}, as a counter to continue. */
  private java.util.concurrent.atomic.AtomicLong lastExecutionSeq(String runId) {
    caughtUp();
    return new java.util.concurrent.atomic.AtomicLong(query(
        "SELECT COALESCE(MAX(seq), 0) FROM lf_node_executions WHERE run_id = ?", runId, rs -> rs.next()
            ? rs.getLong(1) : 0L));
  }

  /**
   * Applies the logs left behind by processes that ended (see CompletionLog), in one transaction, and deletes them
   * once it committed. Finding and reading them runs inside the transaction's work, on the writer thread, which
   * nothing interrupts; the work may run twice (a batch that failed is retried write by write), so it lets go of
   * what an earlier attempt found first.
   */
  private void recoverLogs() {
    if (logDirectory == null) {
      return;
    }
    try {
      if (!CompletionLog.mayHoldLeft(logDirectory)) {
        return;
      }
    } catch (IOException ex) {
      throw StoreFailures.of("cannot list the completion logs in " + logDirectory + ": " + ex.getMessage(), ex);
    }
    List<CompletionLog.Left> found = new ArrayList<>();
    try {
      write(null, c -> {
        releaseAll(found);
        try {
          found.addAll(CompletionLog.findLeft(logDirectory));
        } catch (IOException ex) {
          throw new java.io.UncheckedIOException(ex);
        }
        for (CompletionLog.Left left : found) {
          for (byte[] payload : left.records()) {
            CompletionRecord r;
            try {
              r = CompletionRecord.decode(payload);
            } catch (IllegalArgumentException damaged) {
              break; // what follows a damaged record is not trusted either, as with a cut one
            }
            r.apply(c, statements);
          }
        }
      });
      for (CompletionLog.Left left : found) {
        left.discard();
      }
      found.clear();
    } catch (IOException | java.io.UncheckedIOException ex) {
      throw StoreFailures.of("cannot apply the completion logs in " + logDirectory + ": " + ex.getMessage(), ex);
    } finally {
      releaseAll(found);
    }
  }

  private static void releaseAll(List<CompletionLog.Left> found) {
    for (CompletionLog.Left left : found) {
      try {
        left.release();
      } catch (IOException ex) {
        // Closing a channel that reads a file cannot lose anything; its lock goes with the process anyway.
      }
    }
    found.clear();
  }

  /**
   * The JSON to write for a value, after writing its large parts to lf_values unless the run has them already
   * (see ValueRefs): each is stored once per run, however many documents hold it.
   */
  private String store(Connection c, String runId, Object value) throws SQLException {
    return store(c, runId, codec.encode(value));
  }

  private String store(Connection c, String runId, Codec.Encoded enc) throws SQLException {
    for (java.util.Map.Entry<String, String> p : enc.parts().entrySet()) {
      try (PreparedStatement q = c.prepareStatement("SELECT 1 FROM lf_values WHERE run_id = ? AND hash = ?")) {
        q.setString(1, runId);
        q.setString(2, p.getKey());
        try (ResultSet rs = q.executeQuery()) {
          if (rs.next()) {
            continue;
          }
        }
      }
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO lf_values (run_id, hash, body) VALUES (?,?,?) "
          + "ON CONFLICT (run_id, hash) DO NOTHING")) {
        ps.setString(1, runId);
        ps.setString(2, p.getKey());
        ps.setString(3, p.getValue());
        ps.executeUpdate();
      }
    }
    return enc.json();
  }

  @Override
  public void appendEvent(Event event) {
    if (fenced.containsKey(event.runId())) {
      throw lost(event.runId());
    }
    synchronized (pending) {
      pending.add(event);
    }
  }

  /**
   * Writes the buffered events. With none buffered it writes nothing: readers (every {@link #events} call, each poll
   * of a stream following a run) would otherwise each take the database's write lock for an empty transaction.
   */
  @Override
  public void flush() {
    // Logged completions first: until they are in, no transaction inserts the buffered events (see takeEvents).
    caughtUp();
    boolean any;
    synchronized (pending) {
      any = !pending.isEmpty();
    }
    if (any) {
      write(c -> {}); // inserts the buffered events, unless a completion logged meanwhile took them with it
      caughtUp();
    }
  }

  private void flushQuietly() {
    try {
      boolean any;
      synchronized (pending) {
        any = !pending.isEmpty();
      }
      if (any && !closed) {
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
   * possibly with other writes queued at the same time (see GroupCommit). On PostgreSQL every run in it whose lease
   * this store claimed is checked against its epoch first; a run found fenced has its events dropped and its writes
   * failed with LeaseLostException, and the transaction is tried again without them.
   */
  @Override
  public void write(String runId, Work work) {
    RuntimeException failed = logFailure;
    if (failed != null) {
      throw failed;
    }
    if (runId != null && fenced.containsKey(runId)) {
      dropEvents(runId);
      throw lost(runId);
    }
    writer.write(runId, work,
        () -> StoreFailures.of("cannot write to the run store " + description + ": it is closed", null));
  }

  /**
   * Runs on the writer thread: commits {@code batch} in one transaction with the buffered events, and answers each of
   * its writes. A write that fails takes the transaction down with it; the others are then committed one by one, so
   * each caller gets its own answer and a failing write never fails another.
   */
  private void commitBatch(List<GroupCommit.Request> batch) {
    List<GroupCommit.Request> live = new ArrayList<>(batch);
    boolean retried = false;
    while (true) {
      live.removeIf(r -> {
        if (r.runId != null && fenced.containsKey(r.runId)) {
          dropEvents(r.runId);
          r.finish(lost(r.runId));
          return true;
        }
        return false;
      });
      if (live.isEmpty()) {
        return;
      }
      List<Event> events = takeEvents(live);
      String movedRun;
      try {
        movedRun = transactionHere(live, events);
      } catch (ConnectionBroke broke) {
        movedRun = movedSince(live, events);
        if (movedRun == null) {
          synchronized (pending) {
            pending.addAll(0, events);
          }
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
        synchronized (pending) {
          pending.addAll(0, events);
        }
        if (live.size() == 1) {
          live.get(0).finish(ex);
        } else {
          for (GroupCommit.Request r : live) {
            commitBatch(List.of(r));
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
      Claim gone = claims.remove(movedRun);
      fenced.put(movedRun, gone == null ? "" : gone.owner());
      synchronized (pending) {
        pending.addAll(0, events);
      }
    }
  }

  /**
   * The buffered events a transaction of {@code batch} inserts: all of them, or none while a logged completion outside
   * the batch is still to be inserted. A logged completion carries the events appended before it, so every buffered
   * event is newer than every logged completion; inserting the buffered ones first would leave a hole in the journal
   * until that completion is inserted, and a reader of the journal (a live event stream replaying what a viewer
   * missed) takes the events after the hole for the next ones. Events left buffered are inserted by a later
   * transaction; none of them is lost, and none that a completion needs: those are in its log record.
   */
  private List<Event> takeEvents(List<GroupCommit.Request> batch) {
    int logged = 0;
    for (GroupCommit.Request r : batch) {
      if (r.submitted()) {
        logged++;
      }
    }
    synchronized (appendLock) {
      synchronized (pending) {
        pending.removeIf(e -> fenced.containsKey(e.runId()));
        if (appended - applied != logged) {
          return List.of();
        }
        List<Event> events = new ArrayList<>(pending);
        pending.clear();
        return events;
      }
    }
  }

  /** Transactions this store committed so far. */
  long commits() {
    return commits;
  }

  /** Writes queued for the writer thread and not yet taken; for tests. */
  int queuedWrites() {
    return writer.queued();
  }

  /** Statements prepared for node completions so far; for tests. */
  long preparedStatements() {
    return statements.prepared();
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
        String moved = checkEpochs(c, batch, events);
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
        if (dialect == Dialect.SQLITE) {
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
        if (broken && dialect == Dialect.POSTGRESQL) {
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
      return checkEpochs(c, batch, events);
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
    try (java.sql.Statement st = c.createStatement()) {
      st.execute("ROLLBACK");
    } catch (SQLException ex) {
      // No transaction was open: the failed commit ended it.
    }
  }

  /**
   * Locks (FOR SHARE) and checks the lease epoch of every run in the transaction whose lease this store claimed;
   * returns the first whose epoch moved, or null. Runs are checked in id order so two stores cannot deadlock.
   */
  private String checkEpochs(Connection c, List<GroupCommit.Request> batch, List<Event> events) throws SQLException {
    if (dialect != Dialect.POSTGRESQL || claims.isEmpty()) {
      return null;
    }
    java.util.TreeSet<String> runs = new java.util.TreeSet<>();
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
    for (String run : runs) {
      Claim claim = claims.get(run);
      if (claim == null) {
        continue;
      }
      try (PreparedStatement ps = c.prepareStatement("SELECT lease_epoch FROM lf_runs WHERE run_id = ? FOR SHARE")) {
        ps.setString(1, run);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next() || rs.getLong(1) != claim.epoch()) {
            return run;
          }
        }
      }
    }
    return null;
  }

  private void dropEvents(String runId) {
    synchronized (pending) {
      pending.removeIf(e -> e.runId().equals(runId));
    }
  }

  private static dev.loopflow.core.store.LeaseLostException lost(String runId) {
    return new dev.loopflow.core.store.LeaseLostException(runId, "the lease of run '" + runId + "' was claimed by "
        + "another engine; this engine may no longer write to it");
  }

  private static final String INSERT_EVENT = CompletionRecord.INSERT_EVENT;

  private void insertEvents(Connection c, List<Event> events) throws SQLException {
    // Bodies (and their large parts) first: storing a part runs statements of its own.
    String[] bodies = new String[events.size()];
    for (int i = 0; i < bodies.length; i++) {
      bodies[i] = store(c, events.get(i).runId(), codec.event(events.get(i)));
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

  // ---------------------------------------------------------------------------------------------------------
  // Leases and cancel requests: single statements, atomic on both databases.

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
      int[] n = {0};
      write(c -> {
        try (PreparedStatement ps = c.prepareStatement("UPDATE lf_runs SET lease_until_ms = ? "
            + "WHERE run_id = ? AND lease_owner = ? AND lease_epoch = ?")) {
          ps.setLong(1, until.toEpochMilli());
          ps.setString(2, runId);
          ps.setString(3, owner);
          ps.setLong(4, held.epoch());
          n[0] = ps.executeUpdate();
        }
      });
      if (n[0] != 1) {
        claims.remove(runId, held);
        if (dialect == Dialect.POSTGRESQL) {
          fenced.put(runId, owner);
        }
        return false;
      }
      return true;
    }
    // A process that ended may have left completions of this run in its log: they go in before anyone continues it.
    recoverLogs();
    executionSeqs.remove(runId);
    long[] epoch = {-1};
    write(c -> {
      try (PreparedStatement ps = c.prepareStatement("UPDATE lf_runs SET lease_owner = ?, lease_until_ms = ?, "
          + "lease_epoch = lease_epoch + 1 WHERE run_id = ? "
          + "AND (lease_owner IS NULL OR lease_until_ms < ? OR lease_owner = ? OR lease_owner = ?)")) {
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
    if (epoch[0] < 0) {
      return false;
    }
    fenced.remove(runId);
    claims.put(runId, new Claim(owner, epoch[0]));
    return true;
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
      dropEvents(runId);
      return;
    }
    executionSeqs.remove(runId);
    Claim claim = held;
    write(c -> {
      try (PreparedStatement ps = c.prepareStatement("UPDATE lf_runs SET lease_owner = NULL, lease_until_ms = NULL "
          + "WHERE run_id = ? AND lease_owner = ?" + (claim == null ? "" : " AND lease_epoch = ?"))) {
        ps.setString(1, runId);
        ps.setString(2, owner);
        if (claim != null) {
          ps.setLong(3, claim.epoch());
        }
        ps.executeUpdate();
      }
    });
  }

  /** The epoch of the run's lease as the store has it now (0 before any claim); for tests and the worker. */
  long leaseEpoch(String runId) {
    return query("SELECT lease_epoch FROM lf_runs WHERE run_id = ?", runId, rs -> rs.next() ? rs.getLong(1) : 0L);
  }

  @Override
  public Optional<Lease> lease(String runId) {
    return query("SELECT lease_owner, lease_until_ms FROM lf_runs WHERE run_id = ?", runId, rs -> {
      if (!rs.next() || rs.getString(1) == null) {
        return Optional.empty();
      }
      return Optional.of(new Lease(rs.getString(1), Instant.ofEpochMilli(rs.getLong(2))));
    });
  }

  @Override
  public void requestCancel(String runId, String reason) {
    write(c -> {
      try (PreparedStatement ps = c.prepareStatement("UPDATE lf_runs SET cancel_requested = ?, cancel_reason = ? "
          + "WHERE run_id = ?")) {
        ps.setInt(1, reason != null ? 1 : 0);
        ps.setString(2, reason);
        ps.setString(3, runId);
        ps.executeUpdate();
      }
    });
  }

  @Override
  public Optional<String> cancelRequest(String runId) {
    return query("SELECT cancel_requested, cancel_reason FROM lf_runs WHERE run_id = ?", runId,
        rs -> rs.next() && rs.getInt(1) != 0 ? Optional.of(rs.getString(2) == null ? "" : rs.getString(2))
            : Optional.empty());
  }

  // ---------------------------------------------------------------------------------------------------------
  // Reads

  private static final String RUN_COLUMNS = "run_id, workflow, file, source, source_hash, working_directory, "
      + "inputs_json, options_json, status, started_at, finished_at, usage_json, output_json, error_json, paused_at, "
      + "pause_message, waiting_json";

  @Override
  public Optional<RunRecord> findRun(String runId) {
    List<RawRun> raw = query("SELECT " + RUN_COLUMNS + " FROM lf_runs WHERE run_id = ?", runId, JdbcRunStore::rawRuns);
    return raw.isEmpty() ? Optional.empty()
        : Optional.of(readBack(() -> raw.get(0).record(new Parts(raw.get(0).runId))));
  }

  @Override
  public List<RunRecord> listRuns() {
    try {
      recoverLogs(); // a run list shows a run that a process left behind with all its completions
    } catch (LoopflowException ex) {
      // Listing still works; opening the store or resuming the run reports the problem.
    }
    List<RawRun> raw = query("SELECT " + RUN_COLUMNS + " FROM lf_runs ORDER BY started_ms DESC, run_id DESC", null,
        JdbcRunStore::rawRuns);
    List<RunRecord> out = new ArrayList<>(raw.size());
    for (RawRun r : raw) {
      out.add(readBack(() -> r.record(new Parts(r.runId))));
    }
    return out;
  }

  /** A run row as read, before its large values are put back (which takes queries of its own). */
  private record RawRun(String runId, String workflow, String file, String source, String sourceHash, String inputs,
      String status, String startedAt, String finishedAt, String usage, String outcome, String error, String pausedAt,
      String pauseMessage, String workingDirectory, String options, dev.loopflow.core.run.Waiting waiting) {

    @SuppressWarnings("unchecked")
    RunRecord record(Parts parts) {
      java.util.Map<String, Object> out = Codec.decodeMap(outcome, parts);
      return RunRecord.builder().runId(runId).workflow(workflow).file(file).source(source).sourceHash(sourceHash)
          .inputs(Codec.decodeMap(inputs, parts)).options(Codec.map(options)).status(RunStatus.valueOf(status))
          .startedAt(Instant.parse(startedAt)).finishedAt(instant(finishedAt)).usage(Codec.usage(usage))
          .output(out == null ? null : out.get("value")).error(Codec.error(error)).waiting(waiting)
          .workingDirectory(workingDirectory)
          .state(out == null ? null : (java.util.Map<String, Object>) out.get("state"))
          .nodes(out == null ? null : (java.util.Map<String, Object>) out.get("nodes"))
          .pipeline(out == null ? null : (java.util.Map<String, Object>) out.get("pipeline")).build();
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

    NodeExecution execution(Parts parts) {
      return new NodeExecution(runId, Codec.position(nodeId, loops), kind, NodeStatus.valueOf(status), attempts,
          instant(startedAt), instant(finishedAt), Codec.decodeMap(input, parts), Codec.decodeMap(result, parts),
          Codec.usage(usage), errorCode, errorMessage, Codec.decodeMap(statePatch, parts),
          Codec.decodeSessions(sessions, parts));
    }
  }

  /** A store written before waiting_json existed kept only the path and the message. */
  private static dev.loopflow.core.run.Waiting waiting(ResultSet rs) throws SQLException {
    java.util.Map<String, Object> w = Codec.map(rs.getString("waiting_json"));
    if (w != null) {
      return dev.loopflow.core.run.Waiting.fromJson(w);
    }
    String at = rs.getString("paused_at");
    return at == null || !"PAUSED".equals(rs.getString("status")) ? null
        : new dev.loopflow.core.run.Waiting(null, null, at, null, null, rs.getString("pause_message"), null, null);
  }

  @Override
  public List<NodeExecution> nodeExecutions(String runId) {
    caughtUp();
    List<RawExecution> raw = query("SELECT run_id, path, node_id, loops_json, kind, status, attempts, started_at, "
        + "finished_at, input_json, result_json, usage_json, error_code, error_message, state_patch_json, "
        + "sessions_json FROM lf_node_executions WHERE run_id = ? ORDER BY seq", runId, rs -> {
          List<RawExecution> out = new ArrayList<>();
          while (rs.next()) {
            out.add(new RawExecution(rs.getString("run_id"), rs.getString("path"), rs.getString("node_id"),
                rs.getString("loops_json"), rs.getString("kind"), rs.getString("status"), rs.getInt("attempts"),
                rs.getString("started_at"), rs.getString("finished_at"), rs.getString("input_json"),
                rs.getString("result_json"), rs.getString("usage_json"), rs.getString("error_code"),
                rs.getString("error_message"), rs.getString("state_patch_json"), rs.getString("sessions_json")));
          }
          return out;
        });
    Parts parts = new Parts(runId);
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
  @Override
  public int loopPasses(String runId) {
    caughtUp();
    List<NodePosition> positions = query("SELECT node_id, loops_json FROM lf_node_executions WHERE run_id = ? "
        + "ORDER BY seq", runId, rs -> {
          List<NodePosition> out = new ArrayList<>();
          while (rs.next()) {
            out.add(Codec.position(rs.getString(1), rs.getString(2)));
          }
          return out;
        });
    return readBack(() -> dev.loopflow.core.store.RunSummary.loopPasses(positions));
  }

  @Override
  public List<Event> events(String runId) {
    return events(runId, Long.MIN_VALUE);
  }

  @Override
  @SuppressWarnings("unchecked")
  public List<Event> events(String runId, long afterSeq) {
    flush();
    caughtUp();
    List<String> bodies = read(c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT body FROM lf_events WHERE run_id = ? AND seq > ? "
          + "ORDER BY seq")) {
        ps.setString(1, runId);
        ps.setLong(2, afterSeq);
        try (ResultSet rs = ps.executeQuery()) {
          List<String> out = new ArrayList<>();
          while (rs.next()) {
            out.add(rs.getString(1));
          }
          return out;
        }
      }
    });
    Parts parts = new Parts(runId);
    List<Event> out = new ArrayList<>(bodies.size());
    for (String body : bodies) {
      out.add(readBack(() -> ValueRefs.mayHoldRefs(body)
          ? Events.fromMap((java.util.Map<String, ?>) Codec.decode(body, parts)) : Codec.event(body)));
    }
    return out;
  }

  /**
   * The large values of one run, fetched from lf_values when a document refers to them, each once per read. Reads
   * happen after the rows' result set is closed: a SQLite store has a single connection.
   */
  private final class Parts implements java.util.function.Function<String, Object> {
    private final String runId;
    private final java.util.Map<String, String> fetched = new java.util.HashMap<>();

    Parts(String runId) {
      this.runId = runId;
    }

    @Override
    public Object apply(String hash) {
      String json = fetched.computeIfAbsent(hash, h -> {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
            "SELECT body FROM lf_values WHERE run_id = ? AND hash = ?")) {
          ps.setString(1, runId);
          ps.setString(2, h);
          try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
              throw StoreFailures.of("corrupt journal in " + description + ": run " + runId + " refers to "
                  + "a stored value " + h + " that is missing", null);
            }
            return rs.getString(1);
          }
        } catch (SQLException ex) {
          throw StoreFailures.of("cannot read the run store " + description + ": " + ex.getMessage(), ex);
        }
      });
      return Codec.value(json);
    }
  }

  /**
   * Bytes of journal written for a run so far (the JSON and text columns, and its stored large values); used to prove
   * deltas stay flat and large values are stored once.
   */
  long journalBytes(String runId) {
    return query("SELECT COALESCE(SUM(LENGTH(COALESCE(input_json, '')) + LENGTH(COALESCE(result_json, '')) "
        + "+ LENGTH(COALESCE(state_patch_json, '')) + LENGTH(COALESCE(sessions_json, '')) + LENGTH(path) "
        + "+ LENGTH(COALESCE(usage_json, ''))), 0) FROM lf_node_executions WHERE run_id = ?", runId,
        rs -> rs.next() ? rs.getLong(1) : 0L)
        + query("SELECT COALESCE(SUM(LENGTH(body)), 0) FROM lf_events WHERE run_id = ?", runId,
        rs -> rs.next() ? rs.getLong(1) : 0L)
        + query("SELECT COALESCE(SUM(LENGTH(body)), 0) FROM lf_values WHERE run_id = ?", runId,
        rs -> rs.next() ? rs.getLong(1) : 0L);
  }

  private static Instant instant(String s) {
    return s == null ? null : Instant.parse(s);
  }

  private interface Reader<T> {
    T read(ResultSet rs) throws SQLException;
  }

  private <T> T query(String sql, String runId, Reader<T> reader) {
    return read(c -> {
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        if (runId != null) {
          ps.setString(1, runId);
        }
        try (ResultSet rs = ps.executeQuery()) {
          return reader.read(rs);
        }
      }
    });
  }

  @Override
  public <T> T read(Read<T> read) {
    caughtUp();
    try (Connection c = ds.getConnection()) {
      return read.read(c);
    } catch (SQLException ex) {
      throw StoreFailures.of("cannot read the run store " + description + ": " + ex.getMessage(), ex);
    } catch (LoopflowException ex) {
      throw ex;
    } catch (RuntimeException ex) {
      throw unreadable(ex);
    }
  }

  /** What a row holds, built by {@code decode}; a row that does not read back fails as the store's own error. */
  private <T> T readBack(java.util.function.Supplier<T> decode) {
    try {
      return decode.get();
    } catch (LoopflowException ex) {
      throw ex;
    } catch (RuntimeException ex) {
      throw unreadable(ex);
    }
  }

  /** A row that is not what the engine wrote (an unknown status or event type, a broken date): edited or damaged. */
  private LoopflowException unreadable(RuntimeException ex) {
    return StoreFailures.of("cannot read the run store " + description + ": a journal row does not read back"
        + (ex.getMessage() == null || ex.getMessage().isBlank() ? "" : ": " + ex.getMessage()), ex);
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    flusher.shutdownNow();
    try {
      flush();
      caughtUp();
    } finally {
      closed = true;
      try {
        commands.close();
      } finally {
        writer.stop();
        ds.close();
        closeLog();
      }
    }
  }

  /** Deletes the log when everything in it is in the tables, else leaves it for the next store opened here. */
  private void closeLog() {
    if (log == null) {
      return;
    }
    boolean all;
    synchronized (appendLock) {
      all = applied == appended && logFailure == null;
    }
    try {
      if (all) {
        log.close();
      } else {
        log.abandon();
      }
    } catch (IOException ex) {
      throw StoreFailures.of("cannot close the completion log " + log.file() + ": " + ex.getMessage(), ex);
    }
  }

  /** This store's completion log, or null; for tests. */
  CompletionLog completionLog() {
    return log;
  }

  // ---------------------------------------------------------------------------------------------------------
  // The command bus and shared memory: their own tables, in their own classes, through this store's transactions.

  @Override
  public RunCommand appendCommand(String runId, String kind, java.util.Map<String, Object> payload, Instant at) {
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
  public void respondCommand(String runId, long seq, java.util.Map<String, Object> response, Instant at) {
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
