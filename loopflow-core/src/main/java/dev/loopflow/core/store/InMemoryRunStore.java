package dev.loopflow.core.store;

import dev.loopflow.core.event.Event;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;

final class InMemoryRunStore implements RunStore {
  private final Map<String, RunRecord> runs = new ConcurrentHashMap<>();
  private final Map<String, List<NodeExecution>> executions = new ConcurrentHashMap<>();
  private final Map<String, List<Event>> events = new ConcurrentHashMap<>();
  private final Map<String, Lease> leases = new ConcurrentHashMap<>();
  private final Map<String, String> cancels = new ConcurrentHashMap<>();

  @Override
  public void createRun(RunRecord run) {
    if (runs.putIfAbsent(run.runId(), run) != null) {
      throw new IllegalStateException("run " + run.runId() + " already exists");
    }
  }

  @Override
  public void updateRun(RunRecord run) {
    runs.put(run.runId(), run);
  }

  @Override
  public void recordNodeExecution(NodeExecution execution) {
    List<NodeExecution> list = executions.computeIfAbsent(execution.runId(), k -> new ArrayList<>());
    synchronized (list) {
      list.add(execution);
    }
  }

  @Override
  public void appendEvent(Event event) {
    List<Event> list = events.computeIfAbsent(event.runId(), k -> new ArrayList<>());
    synchronized (list) {
      list.add(event);
    }
  }

  @Override
  public Optional<RunRecord> findRun(String runId) {
    return Optional.ofNullable(runs.get(runId));
  }

  @Override
  public List<RunRecord> listRuns() {
    List<RunRecord> out = new ArrayList<>(runs.values());
    out.sort(Comparator.comparing(RunRecord::startedAt).reversed());
    return out;
  }

  @Override
  public List<NodeExecution> nodeExecutions(String runId) {
    List<NodeExecution> list = executions.getOrDefault(runId, List.of());
    synchronized (list) {
      return List.copyOf(list);
    }
  }

  @Override
  public List<Event> events(String runId) {
    List<Event> list = events.getOrDefault(runId, List.of());
    synchronized (list) {
      return List.copyOf(list);
    }
  }

  @Override
  public boolean tryLease(String runId, String owner, Instant now, Instant until, String replacing) {
    if (!runs.containsKey(runId)) {
      return false;
    }
    boolean[] taken = {false};
    leases.compute(runId, (k, cur) -> {
      if (cur == null || cur.until().isBefore(now) || cur.owner().equals(owner) || cur.owner().equals(replacing)) {
        taken[0] = true;
        return new Lease(owner, until);
      }
      return cur;
    });
    return taken[0];
  }

  @Override
  public void releaseLease(String runId, String owner) {
    leases.computeIfPresent(runId, (k, cur) -> cur.owner().equals(owner) ? null : cur);
  }

  @Override
  public Optional<Lease> lease(String runId) {
    return Optional.ofNullable(leases.get(runId));
  }

  @Override
  public void requestCancel(String runId, String reason) {
    if (reason != null) {
      cancels.put(runId, reason);
    } else {
      cancels.remove(runId);
    }
  }

  @Override
  public Optional<String> cancelRequest(String runId) {
    return Optional.ofNullable(cancels.get(runId));
  }
}
