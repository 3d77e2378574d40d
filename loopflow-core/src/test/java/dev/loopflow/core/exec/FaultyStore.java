package dev.loopflow.core.exec;

import dev.loopflow.core.event.Event;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import java.util.function.Predicate;

/**
 * An in-memory store that refuses chosen writes, as a store whose disk filled up or whose database went away would:
 * {@code failExecution}, {@code failEvent} and {@code failUpdate} are asked with the 1-based number of each call
 * (and, for updates, the record), and a call they accept throws instead of writing. Reads always work, so a test
 * can look at what the journal kept.
 */
final class FaultyStore implements RunStore {
  final RunStore journal = RunStore.inMemory();
  private final AtomicInteger executions = new AtomicInteger();
  private final AtomicInteger events = new AtomicInteger();
  /** What was refused, in order: {@code execution PATH}, {@code event TYPE} or {@code update STATUS}. */
  final List<String> refused = new java.util.concurrent.CopyOnWriteArrayList<>();
  volatile IntPredicate failExecution = n -> false;
  volatile IntPredicate failEvent = n -> false;
  volatile Predicate<RunRecord> failUpdate = r -> false;

  /** Writes from now on succeed (the disk was cleaned up): a resume then runs on a healthy store. */
  void heal() {
    failExecution = n -> false;
    failEvent = n -> false;
    failUpdate = r -> false;
  }

  private static IllegalStateException refused(String what) {
    return new IllegalStateException("disk full while writing " + what);
  }

  @Override
  public void createRun(RunRecord run) {
    journal.createRun(run);
  }

  @Override
  public void updateRun(RunRecord run) {
    if (failUpdate.test(run)) {
      refused.add("update " + run.status().json());
      throw refused("the run " + run.runId());
    }
    journal.updateRun(run);
  }

  @Override
  public void recordNodeExecution(NodeExecution execution) {
    if (failExecution.test(executions.incrementAndGet())) {
      refused.add("execution " + execution.position().path());
      throw refused(execution.position().path());
    }
    journal.recordNodeExecution(execution);
  }

  @Override
  public void appendEvent(Event event) {
    if (failEvent.test(events.incrementAndGet())) {
      refused.add("event " + event.type());
      throw refused("event " + event.type());
    }
    journal.appendEvent(event);
  }

  @Override
  public Optional<RunRecord> findRun(String runId) {
    return journal.findRun(runId);
  }

  @Override
  public List<RunRecord> listRuns() {
    return journal.listRuns();
  }

  @Override
  public boolean deleteRun(String runId) {
    return journal.deleteRun(runId);
  }

  @Override
  public List<NodeExecution> nodeExecutions(String runId) {
    return journal.nodeExecutions(runId);
  }

  @Override
  public int loopPasses(String runId) {
    return journal.loopPasses(runId);
  }

  @Override
  public List<Event> events(String runId) {
    return journal.events(runId);
  }

  @Override
  public boolean tryLease(String runId, String owner, Instant now, Instant until, String replacing) {
    return journal.tryLease(runId, owner, now, until, replacing);
  }

  @Override
  public void releaseLease(String runId, String owner) {
    journal.releaseLease(runId, owner);
  }

  @Override
  public Optional<Lease> lease(String runId) {
    return journal.lease(runId);
  }

  @Override
  public void requestCancel(String runId, String reason) {
    journal.requestCancel(runId, reason);
  }

  @Override
  public Optional<String> cancelRequest(String runId) {
    return journal.cancelRequest(runId);
  }

  @Override
  public dev.loopflow.core.store.RunCommand appendCommand(String runId, String kind,
      java.util.Map<String, Object> payload, Instant at) {
    return journal.appendCommand(runId, kind, payload, at);
  }

  @Override
  public List<dev.loopflow.core.store.RunCommand> pendingCommands(String runId) {
    return journal.pendingCommands(runId);
  }

  @Override
  public List<dev.loopflow.core.store.RunCommand> commands(String runId) {
    return journal.commands(runId);
  }

  @Override
  public void respondCommand(String runId, long seq, java.util.Map<String, Object> response, Instant at) {
    journal.respondCommand(runId, seq, response, at);
  }

  @Override
  public long commandsVersion() {
    return journal.commandsVersion();
  }

  @Override
  public void putMemory(dev.loopflow.core.store.MemoryEntry entry) {
    journal.putMemory(entry);
  }

  @Override
  public Optional<dev.loopflow.core.store.MemoryEntry> getMemory(String scope, String namespace, String key) {
    return journal.getMemory(scope, namespace, key);
  }

  @Override
  public List<dev.loopflow.core.store.MemoryEntry> listMemory(String scope, String namespace, String keyPrefix) {
    return journal.listMemory(scope, namespace, keyPrefix);
  }

  @Override
  public int deleteMemory(String scope, String namespace, String keyPrefix) {
    return journal.deleteMemory(scope, namespace, keyPrefix);
  }
}
