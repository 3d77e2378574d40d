package dev.loopflow.core.store;

import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.event.Events;
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
   * The run's node executions whose path starts with {@code pathPrefix}, in the order they were journaled: every
   * execution in the passes of loop instance {@code X} is under {@code X[}, those of its pass 3 under {@code X[3].}.
   * Durable stores answer it without decoding the run's other rows, so a page showing one pass of a long loop does not
   * cost as much as the whole journal.
   */
  default List<NodeExecution> nodeExecutionsUnder(String runId, String pathPrefix) {
    return nodeExecutions(runId).stream().filter(e -> e.position().path().startsWith(pathPrefix)).toList();
  }

  /**
   * The run's events about a position whose path starts with {@code pathPrefix} (see
   * {@link dev.loopflow.core.event.Events#position}), in sequence order; events about the whole run are never among
   * them. Durable stores answer it without decoding the run's other events.
   */
  default List<Event> eventsUnder(String runId, String pathPrefix) {
    return events(runId).stream().filter(e -> {
      NodePosition p = Events.position(e);
      return p != null && p.path().startsWith(pathPrefix);
    }).toList();
  }
}
