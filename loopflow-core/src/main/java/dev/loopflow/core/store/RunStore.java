package dev.loopflow.core.store;

import dev.loopflow.core.event.Event;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Where runs are journaled. Implementations must be thread-safe; writes for one run arrive in order.
 *
 * <p>What must stay true for a durable store: each {@link #recordNodeExecution} is one node completion and is
 * durable when it returns, together with every event appended before it; a process killed at any instant leaves
 * a store from which the run resumes. Events may be buffered until the next node completion, run update or
 * {@link #flush()}, because an event lost with a crash only describes work that a resumed run repeats.
 *
 * <p>A run is executed by at most one engine at a time: the one holding its {@linkplain RunLeases#tryLease lease}.
 * Another process asks it to stop with {@link RunLeases#requestCancel}; the holder polls
 * {@link RunLeases#cancelRequest}.
 *
 * <p>It plays four roles, each an interface of its own so that a part of the engine can ask for only the one it
 * uses: the journal of each run ({@link RunJournal}), who executes it ({@link RunLeases}), the requests sent to it
 * ({@link RunCommands}) and the values nodes share ({@link MemoryStore}). This interface adds the run records and
 * the store's life cycle.
 */
public interface RunStore extends RunJournal, RunLeases, RunCommands, MemoryStore, AutoCloseable {
  void createRun(RunRecord run);

  void updateRun(RunRecord run);

  Optional<RunRecord> findRun(String runId);

  /** Most recent first. */
  List<RunRecord> listRuns();

  /**
   * Removes a run and everything kept for it: its record, node executions, events, the large values and pending
   * events they refer to, its lease, cancel request and commands, and the shared memory it owns (the scope that is
   * its id, the WORKFLOW namespace, and the scopes {@code <run>/session/...}). Shared memory other runs read too
   * (AGENT and GLOBAL) stays. Returns whether the run existed. Deciding whether a run may be deleted (one executing,
   * one whose forks reuse its rows) is the caller's job; this only removes.
   */
  boolean deleteRun(String runId);

  /**
   * A run's final record and its {@code run.finished}, durable when this returns. A durable store writes both in
   * one transaction, so that a process killed meanwhile leaves both or neither; this default writes the record, then
   * the event. A store wrapping another must pass this on.
   */
  default void finishRun(RunRecord ended, Event.RunFinished finished) {
    updateRun(ended);
    appendEvent(finished);
    flush();
  }

  /**
   * Makes buffered events durable, and everything written so far visible to other stores on the same database (a
   * store may journal completions to a log first and insert them into its tables a moment later).
   */
  default void flush() {}

  /**
   * The files and directories on this machine that hold the store's data (a SQLite database and its companions);
   * empty for a store that keeps none here. Contained process nodes read them as empty.
   */
  default List<Path> localFiles() {
    return List.of();
  }

  @Override
  default void close() {}

  /**
   * A store that keeps runs in memory for the life of the object: every run record, and every node execution and
   * event of a run until it is completed or cancelled, after which it keeps its last 1,000 events, its node
   * executions outside loops and the last 1,000 inside loops ({@link RunJournal#loopPasses} still counts every pass).
   */
  static RunStore inMemory() {
    return new InMemoryRunStore();
  }
}
