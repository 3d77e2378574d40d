package dev.loopflow.store.jdbc;

import dev.loopflow.core.event.Event;
import dev.loopflow.core.event.InstantText;
import dev.loopflow.core.store.NodeExecution;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/*
 * Design notes.
 *
 * A SQLite store in its default mode (synchronous=NORMAL) makes a completion durable by appending it, with the
 * events before it, to its completion log (CompletionLog) instead of committing a transaction: the append is as
 * durable as such a commit, and the writer thread (GroupCommit) inserts the log's records into the tables behind it,
 * as many to a transaction as have queued. The engine's next pass no longer waits for a SQLite transaction. Node
 * executions of such a store carry their sequence number from here (executionSeqs), so inserting a record twice is
 * harmless. Every read of events or node executions first waits until the writer has caught up with the log
 * (caughtUp), so this process reads what it wrote; another process sees a completion once the writer has inserted
 * it, and a log left behind by a process that ended is applied by the next store that opens the database, claims a
 * run's lease or lists runs (recoverLogs).
 *
 * What must stay true: the journal's events are a prefix of what was appended. A logged completion takes every
 * buffered event with it; buffered events are held back from transactions while a logged completion outside the
 * transaction is still to be inserted (takeEvents). The append lock orders appends, the counts of appended and
 * applied records, and the log's truncation; it is taken before the buffer's monitor, never after.
 *
 * A store without a log directory (PostgreSQL, or SQLite with synchronous=FULL) has no log: every method here is
 * then a no-op or answers as if everything logged were applied, and completions are committed directly.
 */
final class LoggedCompletions {
  private final Transactions tx;
  private final GroupCommit writer;
  /** The node-completion statements, kept prepared; touched only on the writer thread. */
  private final StatementCache statements;
  private final Codec codec;
  private final PendingEvents pending;
  private final String description;
  /** Where this store's completion log and those left behind live; null when completions are committed directly. */
  private final Path logDirectory;
  /** This store's completion log; null until opened, and when completions are committed directly. */
  private volatile CompletionLog log;
  /** Serializes appends to the log with the events they take and the log's truncation; guards the counts below. */
  private final Object appendLock = new Object();
  private final CompletionRecord.Writer recordBuffer = new CompletionRecord.Writer();
  private long appended;
  private long applied;
  /** The first failure to insert a logged completion: every later write fails with it (the log keeps the data). */
  private volatile RuntimeException logFailure;
  /** With a log: the last node execution sequence number of each run this store writes. */
  private final Map<String, AtomicLong> executionSeqs = new ConcurrentHashMap<>();

  LoggedCompletions(Transactions tx, GroupCommit writer, StatementCache statements, Codec codec,
      PendingEvents pending, String description, Path logDirectory) {
    this.tx = tx;
    this.writer = writer;
    this.statements = statements;
    this.codec = codec;
    this.pending = pending;
    this.description = description;
    this.logDirectory = logDirectory;
  }

  /** Applies the logs left behind in the log directory, then opens this store's own log there. */
  void open() throws IOException {
    recoverLogs();
    log = CompletionLog.create(logDirectory);
  }

  /** Whether completions go through a log (else they are committed directly). */
  boolean logged() {
    return logDirectory != null;
  }

  Path logDirectory() {
    return logDirectory;
  }

  /** This store's completion log, or null; for tests. */
  CompletionLog log() {
    return log;
  }

  /** Why logged completions can no longer be inserted, which every later write fails with; null while none failed. */
  RuntimeException failure() {
    return logFailure;
  }

  /** Forgets the sequence counter of {@code runId}: whoever writes the run next reads it from the tables again. */
  void forget(String runId) {
    executionSeqs.remove(runId);
  }

  /**
   * One node completion through the log: appended with the events buffered before it, or, when it or one of those
   * events holds a large value, written directly in a transaction that stores the value first.
   */
  void record(NodeExecution e, String loops, String usage, Codec.Encoded input, Codec.Encoded result,
      Codec.Encoded patch, Codec.Encoded sessions) {
    String[] row = {e.runId(), e.position().path(), e.position().nodeId(), loops, e.kind(), e.status().name(),
        Integer.toString(e.attempts()), e.startedAt() == null ? null : InstantText.of(e.startedAt()),
        e.finishedAt() == null ? null : InstantText.of(e.finishedAt()), input.json(), result.json(), usage,
        e.errorCode(), e.errorMessage(), patch.json(), sessions.json()};
    AtomicLong seqs = executionSeqs.computeIfAbsent(e.runId(), this::lastExecutionSeq);
    boolean large = !input.parts().isEmpty() || !result.parts().isEmpty() || !patch.parts().isEmpty()
        || !sessions.parts().isEmpty();
    if (!large && appendToLog(row, seqs)) {
      return;
    }
    // Large values go to lf_values first, in the transaction that inserts the row: the direct way.
    CompletionRecord direct = new CompletionRecord(row, seqs.incrementAndGet(), List.of());
    tx.write(e.runId(), c -> {
      for (Codec.Encoded enc : List.of(input, result, patch, sessions)) {
        LargeValues.store(c, e.runId(), enc);
      }
      direct.apply(c, statements);
    });
  }

  /**
   * Appends a completion with the events buffered before it to the log and queues its insertion; false (nothing
   * taken) when one of those events holds a large value, which must go to lf_values in the same transaction.
   */
  private boolean appendToLog(String[] row, AtomicLong seqs) {
    RuntimeException failed = logFailure;
    if (failed != null) {
      throw failed;
    }
    synchronized (appendLock) {
      List<Event> taken = pending.takeAll();
      List<CompletionRecord.EventRow> events = new ArrayList<>(taken.size());
      for (Event ev : taken) {
        Codec.Encoded enc = codec.event(ev);
        if (!enc.parts().isEmpty()) {
          pending.putBack(taken);
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
        pending.putBack(taken);
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
  void caughtUp() {
    if (log == null || logFailure != null || writer.onWriterThread()) {
      return;
    }
    synchronized (appendLock) {
      if (applied == appended) {
        return;
      }
    }
    tx.write(null, c -> {});
  }

  /**
   * The buffered events a transaction of {@code batch} inserts: all of them, or none while a logged completion outside
   * the batch is still to be inserted. A logged completion carries the events appended before it, so every buffered
   * event is newer than every logged completion; inserting the buffered ones first would leave a hole in the journal
   * until that completion is inserted, and a reader of the journal (a live event stream replaying what a viewer
   * missed) takes the events after the hole for the next ones. Events left buffered are inserted by a later
   * transaction; none of them is lost, and none that a completion needs: those are in its log record. The events of
   * {@code fenced} runs are dropped.
   */
  List<Event> takeEvents(List<GroupCommit.Request> batch, Predicate<String> fenced) {
    int logged = 0;
    for (GroupCommit.Request r : batch) {
      if (r.submitted()) {
        logged++;
      }
    }
    synchronized (appendLock) {
      return pending.take(fenced, appended - applied == logged);
    }
  }

  /** The highest node execution sequence number the tables hold for {@code runId}, as a counter to continue. */
  private AtomicLong lastExecutionSeq(String runId) {
    caughtUp();
    return new AtomicLong(tx.query(
        "SELECT COALESCE(MAX(seq), 0) FROM lf_node_executions WHERE run_id = ?", runId, rs -> rs.next()
            ? rs.getLong(1) : 0L));
  }

  /**
   * Applies the logs left behind by processes that ended (see CompletionLog), in one transaction, and deletes them
   * once it committed. Finding and reading them runs inside the transaction's work, on the writer thread, which
   * nothing interrupts; the work may run twice (a batch that failed is retried write by write), so it lets go of
   * what an earlier attempt found first.
   */
  void recoverLogs() {
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
      tx.write(null, c -> {
        releaseAll(found);
        try {
          found.addAll(CompletionLog.findLeft(logDirectory));
        } catch (IOException ex) {
          throw new UncheckedIOException(ex);
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
    } catch (IOException | UncheckedIOException ex) {
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

  /** Deletes the log when everything in it is in the tables, else leaves it for the next store opened here. */
  void close() {
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
}
