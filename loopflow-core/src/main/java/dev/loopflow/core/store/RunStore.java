package dev.loopflow.core.store;

import dev.loopflow.core.event.Event;
import java.time.Instant;
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
 * <p>A run is executed by at most one engine at a time: the one holding its {@linkplain #tryLease lease}.
 * Another process asks it to stop with {@link #requestCancel}; the holder polls {@link #cancelRequest}.
 */
public interface RunStore extends AutoCloseable {
  void createRun(RunRecord run);

  void updateRun(RunRecord run);

  void recordNodeExecution(NodeExecution execution);

  void appendEvent(Event event);

  Optional<RunRecord> findRun(String runId);

  /** Most recent first. */
  List<RunRecord> listRuns();

  /**
   * A run's final record and its {@code run.finished}, durable when this returns. A durable store writes both in
   * one transaction, so that a process killed meanwhile leaves both or neither; this default writes the record, then
   * the event. A store wrapping another must pass this on.
   */
  default void finishRun(RunRecord ended, dev.loopflow.core.event.Event.RunFinished finished) {
    updateRun(ended);
    appendEvent(finished);
    flush();
  }

  /** In the order they were journaled. */
  List<NodeExecution> nodeExecutions(String runId);

  /**
   * The run's loop passes that journaled a node execution, each distinct (loop path, iteration) once, nested ones
   * too: what a run list shows as its {@code iterations} ({@link dev.loopflow.core.run.RunSummary#iterations} of
   * every row the run journaled). A store that no longer keeps all of a finished run's rows answers it from a count
   * taken before it dropped them; a store wrapping another must pass this on rather than count the rows it reads.
   */
  default int loopPasses(String runId) {
    return dev.loopflow.core.run.RunSummary.iterations(nodeExecutions(runId));
  }

  /** In sequence order. */
  List<Event> events(String runId);

  /**
   * The run's events whose sequence number is above {@code afterSeq}, in sequence order: the tail a reader that has
   * seen everything up to {@code afterSeq} still needs (a stream resumed from its last id). Durable stores answer it
   * without reading the earlier events.
   */
  default List<Event> events(String runId, long afterSeq) {
    return events(runId).stream().filter(e -> e.seq() > afterSeq).toList();
  }

  /**
   * Atomically takes or renews the lease on a run: succeeds when no one holds it, the holder's lease ended before
   * {@code now}, {@code owner} already holds it, or it is held by {@code replacing} (a holder known to be dead;
   * null for none). False when another owner holds a live lease, or the run does not exist.
   */
  boolean tryLease(String runId, String owner, Instant now, Instant until, String replacing);

  /** Gives the lease up if {@code owner} holds it. */
  void releaseLease(String runId, String owner);

  /** The current holder, if any (possibly expired). */
  Optional<Lease> lease(String runId);

  /**
   * Asks the engine executing the run to stop, saying why; the reason ends up in the run's error. A null reason
   * withdraws the request (a resumed run starts without one).
   */
  void requestCancel(String runId, String reason);

  /** The reason of a pending cancel request, or empty when none is pending. */
  Optional<String> cancelRequest(String runId);

  // -------------------------------------------------------------------------------------------------------
  // The command bus: requests to the engine executing a run, from any process

  /**
   * Appends a command for a run and returns it with its sequence number. Durable when it returns. The run need not
   * be executing; a pending command waits for the engine that next holds the run's lease.
   */
  RunCommand appendCommand(String runId, String kind, java.util.Map<String, Object> payload, Instant at);

  /** The run's commands without a response, in sequence order. */
  List<RunCommand> pendingCommands(String runId);

  /** Every command of the run, in sequence order. */
  List<RunCommand> commands(String runId);

  /**
   * Records the engine's answer to a command. Answering twice keeps the first answer (a resumed run that decided
   * a command again must not change what the requester was told). Durable when it returns.
   */
  void respondCommand(String runId, long seq, java.util.Map<String, Object> response, Instant at);

  /**
   * A cheap token that changes whenever a command may have been appended by any process since it was last read;
   * an engine polls it and only then asks for {@link #pendingCommands}. It may change for other reasons too.
   */
  long commandsVersion();

  // -------------------------------------------------------------------------------------------------------
  // Shared memory: values nodes share by namespace and key

  /** Stores (or replaces) a value under its scope, namespace and key. Durable when it returns. */
  void putMemory(MemoryEntry entry);

  Optional<MemoryEntry> getMemory(String scope, String namespace, String key);

  /** The entries whose key starts with {@code keyPrefix} ("" for all), ordered by key. */
  List<MemoryEntry> listMemory(String scope, String namespace, String keyPrefix);

  /** Deletes the entries whose key starts with {@code keyPrefix} ("" for all); returns how many. */
  int deleteMemory(String scope, String namespace, String keyPrefix);

  /**
   * Makes buffered events durable, and everything written so far visible to other stores on the same database (a
   * store may journal completions to a log first and insert them into its tables a moment later).
   */
  default void flush() {}

  /**
   * The files and directories on this machine that hold the store's data (a SQLite database and its companions);
   * empty for a store that keeps none here. Contained process nodes read them as empty.
   */
  default List<java.nio.file.Path> localFiles() {
    return List.of();
  }

  @Override
  default void close() {}

  /**
   * A store that keeps runs in memory for the life of the object: every run record, and every node execution and
   * event of a run until it is completed or cancelled, after which it keeps its last 1,000 events, its node
   * executions outside loops and the last 1,000 inside loops ({@link #loopPasses} still counts every pass).
   */
  static RunStore inMemory() {
    return new InMemoryRunStore();
  }

  /** Who executes a run, and until when unless renewed. */
  record Lease(String owner, Instant until) {}
}
