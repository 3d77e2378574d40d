package dev.loopflow.core.store;

import dev.loopflow.core.event.Event;
import java.util.List;
import java.util.Optional;

/**
 * Where runs are journaled. Implementations must be thread-safe; writes for one run arrive in order. Each
 * {@link #recordNodeExecution} is one node completion and must be durable when it returns (for durable stores).
 */
public interface RunStore extends AutoCloseable {
  void createRun(RunRecord run);

  void updateRun(RunRecord run);

  void recordNodeExecution(NodeExecution execution);

  void appendEvent(Event event);

  Optional<RunRecord> findRun(String runId);

  /** Most recent first. */
  List<RunRecord> listRuns();

  List<NodeExecution> nodeExecutions(String runId);

  List<Event> events(String runId);

  @Override
  default void close() {}

  /** A store that keeps everything in memory for the life of the object. */
  static RunStore inMemory() {
    return new InMemoryRunStore();
  }
}
