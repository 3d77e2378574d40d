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
  private final Map<String, List<RunCommand>> commands = new ConcurrentHashMap<>();
  private final java.util.concurrent.atomic.AtomicLong commandsVersion = new java.util.concurrent.atomic.AtomicLong();
  /** scope + NUL + namespace -> key -> entry. */
  private final Map<String, java.util.NavigableMap<String, MemoryEntry>> memory = new ConcurrentHashMap<>();

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

  @Override
  public RunCommand appendCommand(String runId, String kind, Map<String, Object> payload, Instant at) {
    List<RunCommand> list = commands.computeIfAbsent(runId, k -> new ArrayList<>());
    RunCommand c;
    synchronized (list) {
      c = new RunCommand(runId, list.size() + 1, kind, payload, at, null, null);
      list.add(c);
    }
    commandsVersion.incrementAndGet();
    return c;
  }

  @Override
  public List<RunCommand> pendingCommands(String runId) {
    return commands(runId).stream().filter(RunCommand::pending).toList();
  }

  @Override
  public List<RunCommand> commands(String runId) {
    List<RunCommand> list = commands.get(runId);
    if (list == null) {
      return List.of();
    }
    synchronized (list) {
      return List.copyOf(list);
    }
  }

  @Override
  public void respondCommand(String runId, long seq, Map<String, Object> response, Instant at) {
    List<RunCommand> list = commands.get(runId);
    if (list == null) {
      return;
    }
    synchronized (list) {
      if (seq >= 1 && seq <= list.size()) {
        RunCommand c = list.get((int) seq - 1);
        if (c.pending()) {
          list.set((int) seq - 1, new RunCommand(runId, seq, c.kind(), c.payload(), c.createdAt(), response, at));
        }
      }
    }
  }

  @Override
  public long commandsVersion() {
    return commandsVersion.get();
  }

  private java.util.NavigableMap<String, MemoryEntry> memoryOf(String scope, String namespace) {
    return memory.computeIfAbsent(scope + '\0' + namespace, k -> new java.util.concurrent.ConcurrentSkipListMap<>());
  }

  @Override
  public void putMemory(MemoryEntry entry) {
    memoryOf(entry.scope(), entry.namespace()).put(entry.key(), entry);
  }

  @Override
  public Optional<MemoryEntry> getMemory(String scope, String namespace, String key) {
    return Optional.ofNullable(memoryOf(scope, namespace).get(key));
  }

  @Override
  public List<MemoryEntry> listMemory(String scope, String namespace, String keyPrefix) {
    return memoryOf(scope, namespace).tailMap(keyPrefix, true).values().stream()
        .takeWhile(e -> e.key().startsWith(keyPrefix)).toList();
  }

  @Override
  public int deleteMemory(String scope, String namespace, String keyPrefix) {
    List<MemoryEntry> gone = listMemory(scope, namespace, keyPrefix);
    java.util.NavigableMap<String, MemoryEntry> m = memoryOf(scope, namespace);
    int n = 0;
    for (MemoryEntry e : gone) {
      if (m.remove(e.key()) != null) {
        n++;
      }
    }
    return n;
  }
}
