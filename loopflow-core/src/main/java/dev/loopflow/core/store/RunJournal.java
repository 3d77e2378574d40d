package dev.loopflow.core.store;

import dev.loopflow.core.event.Event;
import java.util.List;

/**
 * A store's journal of each run: its events and its node executions, in the order they happened. What must stay
 * true for a durable store is said on {@link RunStore}.
 */
public interface RunJournal {
  void recordNodeExecution(NodeExecution execution);

  void appendEvent(Event event);

  /** In the order they were journaled. */
  List<NodeExecution> nodeExecutions(String runId);

  /**
   * The run's loop passes that journaled a node execution, each distinct (loop path, iteration) once, nested ones
   * too: what a run list shows as its {@code iterations} ({@link dev.loopflow.core.store.RunSummary#iterations} of
   * every row the run journaled). A store that no longer keeps all of a finished run's rows answers it from a count
   * taken before it dropped them; a store wrapping another must pass this on rather than count the rows it reads.
   */
  default int loopPasses(String runId) {
    return dev.loopflow.core.store.RunSummary.iterations(nodeExecutions(runId));
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
   * The run's node executions in {@code slice} (see {@link JournalSlice}), in the order they were journaled. Durable
   * stores choose among the rows before decoding them, so a page showing one pass of a long loop does not cost as
   * much as the whole journal.
   */
  default List<NodeExecution> nodeExecutions(String runId, JournalSlice slice) {
    return slice.executions(nodeExecutions(runId));
  }

  /**
   * The run's events in {@code slice} (see {@link JournalSlice}), in sequence order. Durable stores choose among the
   * rows before decoding them.
   */
  default List<Event> events(String runId, JournalSlice slice) {
    return slice.events(events(runId));
  }
}
