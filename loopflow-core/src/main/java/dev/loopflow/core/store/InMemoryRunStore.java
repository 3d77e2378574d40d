package dev.loopflow.core.store;

import dev.loopflow.core.event.Event;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.run.RunStatus;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The journal kept in the engine's own heap. Everything of a run is kept while the run can still be resumed
 * (running, paused, failed): a resume restores its completed executions and durable steps from its rows and events,
 * and numbers its events after the last one. Once its record says {@code completed} or {@code cancelled} (neither
 * can be resumed), the run keeps its last {@value #EVENTS_KEPT_WHEN_FINISHED} events, plus those appended afterwards
 * (its {@code run.finished}), and of its node executions those outside any loop and the last
 * {@value #LOOP_EXECUTIONS_KEPT_WHEN_FINISHED} inside loops, in journal order; before any row is dropped its loop
 * passes are counted, so a run list counts every pass. Rows and events describe what the record already holds
 * (its result, state and node reports); without this bound an engine embedded in a long-lived process would keep a
 * row and three or more events per loop pass of every run it ever finished. Rows are held encoded
 * ({@link EncodedRows}), so that those of a run in flight are not promoted as objects.
 */
final class InMemoryRunStore implements RunStore {
  /** How many of its latest events a completed or cancelled run keeps. */
  static final int EVENTS_KEPT_WHEN_FINISHED = 1_000;
  /** How many of its latest node executions inside loops a completed or cancelled run keeps. */
  static final int LOOP_EXECUTIONS_KEPT_WHEN_FINISHED = 1_000;
  /** Unicode code point order: the order of UTF-8 bytes, which durable stores sort shared-memory keys by. */
  private static final Comparator<String> CODE_POINT_ORDER = (a, b) -> {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int x = a.codePointAt(i);
      int y = b.codePointAt(j);
      if (x != y) {
        return Integer.compare(x, y);
      }
      i += Character.charCount(x);
      j += Character.charCount(y);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  };

  private final Map<String, RunRecord> runs = new ConcurrentHashMap<>();
  private final Map<String, Rows> executions = new ConcurrentHashMap<>();
  private final Map<String, List<Event>> events = new ConcurrentHashMap<>();
  private final Map<String, Lease> leases = new ConcurrentHashMap<>();
  private final Map<String, String> cancels = new ConcurrentHashMap<>();
  private final Map<String, List<RunCommand>> commands = new ConcurrentHashMap<>();
  private final AtomicLong commandsVersion = new AtomicLong();
  /** scope + NUL + namespace -> key -> entry, keys in code point order. */
  private final Map<String, NavigableMap<String, MemoryEntry>> memory = new ConcurrentHashMap<>();

  @Override
  public void createRun(RunRecord run) {
    if (runs.putIfAbsent(run.runId(), run) != null) {
      throw new IllegalStateException("run " + run.runId() + " already exists");
    }
  }

  @Override
  public void updateRun(RunRecord run) {
    runs.put(run.runId(), run);
    if (run.status() == RunStatus.COMPLETED
        || run.status() == RunStatus.CANCELLED) {
      forgetOldEvents(run.runId());
      Rows rows = executions.get(run.runId());
      if (rows != null) {
        rows.forgetOldLoopRows();
      }
    }
  }

  private void forgetOldEvents(String runId) {
    List<Event> list = events.get(runId);
    if (list != null) {
      synchronized (list) {
        if (list.size() > EVENTS_KEPT_WHEN_FINISHED) {
          // Dropped from the front, so sequence order and the last sequence number stay as they were.
          list.subList(0, list.size() - EVENTS_KEPT_WHEN_FINISHED).clear();
          ((ArrayList<Event>) list).trimToSize();
        }
      }
    }
  }

  @Override
  public void recordNodeExecution(NodeExecution execution) {
    executions.computeIfAbsent(execution.runId(), Rows::new).add(execution);
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
  public boolean deleteRun(String runId) {
    boolean existed = runs.remove(runId) != null;
    executions.remove(runId);
    events.remove(runId);
    leases.remove(runId);
    cancels.remove(runId);
    if (commands.remove(runId) != null) {
      commandsVersion.incrementAndGet();
    }
    // A run's own memory: its id is the scope, or the prefix of its sessions' scopes (ids hold no '/').
    memory.keySet().removeIf(place -> {
      String scope = place.substring(0, place.indexOf('\0'));
      return scope.equals(runId) || scope.startsWith(runId + "/session/");
    });
    return existed;
  }

  @Override
  public List<NodeExecution> nodeExecutions(String runId) {
    Rows rows = executions.get(runId);
    return rows == null ? List.of() : rows.copy();
  }

  @Override
  public int loopPasses(String runId) {
    Rows rows = executions.get(runId);
    return rows == null ? 0 : rows.loopPasses();
  }

  @Override
  public List<Event> events(String runId) {
    List<Event> list = events.getOrDefault(runId, List.of());
    synchronized (list) {
      return List.copyOf(list);
    }
  }

  @Override
  public List<Event> events(String runId, long afterSeq) {
    List<Event> list = events.getOrDefault(runId, List.of());
    synchronized (list) {
      return list.stream().filter(e -> e.seq() > afterSeq).toList();
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
    StoreLimits.name("run id", runId, StoreLimits.MAX_NAME_BYTES, false);
    StoreLimits.name("command kind", kind, StoreLimits.MAX_SHORT_NAME_BYTES, false);
    Objects.requireNonNull(at, "at");
    Map<String, Object> stored = stored("command payload", payload == null ? Map.of() : payload);
    List<RunCommand> list = commands.computeIfAbsent(runId, k -> new ArrayList<>());
    RunCommand c;
    synchronized (list) {
      c = new RunCommand(runId, list.size() + 1, kind, stored, at, null, null);
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
    StoreLimits.name("run id", runId, StoreLimits.MAX_NAME_BYTES, false);
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
    StoreLimits.name("run id", runId, StoreLimits.MAX_NAME_BYTES, false);
    Objects.requireNonNull(at, "at");
    if (response == null) {
      throw new IllegalArgumentException("command response is missing (a command without one stays pending)");
    }
    Map<String, Object> stored = stored("command response", response);
    List<RunCommand> list = commands.get(runId);
    if (list == null) {
      return;
    }
    synchronized (list) {
      if (seq >= 1 && seq <= list.size()) {
        RunCommand c = list.get((int) seq - 1);
        if (c.pending()) {
          list.set((int) seq - 1, new RunCommand(runId, seq, c.kind(), c.payload(), c.createdAt(), stored, at));
        }
      }
    }
  }

  @Override
  public long commandsVersion() {
    return commandsVersion.get();
  }

  /**
   * A command document as a durable store reads it back: checked and written as {@link StoreLimits} writes it, then
   * parsed from that text, as a durable store reads its JSON column.
   */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> stored(String field, Map<String, ?> document) {
    String json = StoreLimits.document(field, document);
    try {
      return Json.mapper().readValue(json, LinkedHashMap.class);
    } catch (IOException e) {
      throw new IllegalArgumentException(field + " cannot be written as JSON: " + e.getMessage(), e);
    }
  }

  private static String place(String scope, String namespace) {
    StoreLimits.name("shared memory scope", scope, StoreLimits.MAX_NAME_BYTES, true);
    StoreLimits.name("shared memory namespace", namespace, StoreLimits.MAX_SHORT_NAME_BYTES, true);
    return scope + '\0' + namespace; // neither may hold NUL, so this names one place
  }

  /** The value array is copied in and out: a caller changing its array afterwards changes nothing stored. */
  private static MemoryEntry copy(MemoryEntry e) {
    return new MemoryEntry(e.scope(), e.namespace(), e.key(), e.value().clone(), e.compressed(), e.metadata(),
        e.storedAt());
  }

  @Override
  public void putMemory(MemoryEntry entry) {
    String place = place(entry.scope(), entry.namespace());
    StoreLimits.name("shared memory key", entry.key(), StoreLimits.MAX_NAME_BYTES, true);
    StoreLimits.value("shared memory value", entry.value());
    StoreLimits.document("shared memory metadata", entry.metadata());
    memory.computeIfAbsent(place, k -> new ConcurrentSkipListMap<>(CODE_POINT_ORDER))
        .put(entry.key(), copy(entry));
  }

  @Override
  public Optional<MemoryEntry> getMemory(String scope, String namespace, String key) {
    String place = place(scope, namespace);
    StoreLimits.name("shared memory key", key, StoreLimits.MAX_NAME_BYTES, true);
    NavigableMap<String, MemoryEntry> m = memory.get(place);
    return Optional.ofNullable(m == null ? null : m.get(key)).map(InMemoryRunStore::copy);
  }

  @Override
  public List<MemoryEntry> listMemory(String scope, String namespace, String keyPrefix) {
    return withPrefix(scope, namespace, keyPrefix).stream().map(InMemoryRunStore::copy).toList();
  }

  private List<MemoryEntry> withPrefix(String scope, String namespace, String keyPrefix) {
    String place = place(scope, namespace);
    StoreLimits.name("shared memory key prefix", keyPrefix, StoreLimits.MAX_NAME_BYTES, true);
    NavigableMap<String, MemoryEntry> m = memory.get(place);
    if (m == null) {
      return List.of();
    }
    // In code point order the keys with a prefix are contiguous, starting at the prefix itself.
    return m.tailMap(keyPrefix, true).values().stream().takeWhile(e -> e.key().startsWith(keyPrefix)).toList();
  }

  @Override
  public int deleteMemory(String scope, String namespace, String keyPrefix) {
    NavigableMap<String, MemoryEntry> m = memory.get(place(scope, namespace));
    int n = 0;
    for (MemoryEntry e : withPrefix(scope, namespace, keyPrefix)) {
      if (m.remove(e.key()) != null) {
        n++;
      }
    }
    return n;
  }

  /**
   * A run's node executions in journal order, held encoded ({@link EncodedRows}). What must stay true:
   * {@link #loopPasses} answers what {@link RunSummary#iterations} answers for every row the
   * run ever journaled, whatever was dropped since.
   */
  private static final class Rows {
    private final String runId;
    private EncodedRows rows = new EncodedRows();
    /** The run's loop passes, counted from every row just before the first was dropped; -1 while none was. */
    private int passesCounted = -1;

    Rows(String runId) {
      this.runId = runId;
    }

    synchronized void add(NodeExecution execution) {
      rows.add(execution);
    }

    synchronized List<NodeExecution> copy() {
      return List.copyOf(rows.view(runId));
    }

    synchronized int loopPasses() {
      return passesCounted >= 0 ? passesCounted : RunSummary.loopPasses(rows.positions());
    }

    /**
     * Keeps the rows outside any loop (one per node and attempt, however long the loops ran) and the last
     * {@value InMemoryRunStore#LOOP_EXECUTIONS_KEPT_WHEN_FINISHED} inside loops, in journal order. Only called once
     * the run is finished: the engine journals no row for a run after its final record, so the count taken here
     * stays the run's count. Rows are made one at a time, so that what this leaves behind dies young.
     */
    synchronized void forgetOldLoopRows() {
      int inLoops = 0;
      for (int i = 0; i < rows.size(); i++) {
        if (rows.inLoop(i)) {
          inLoops++;
        }
      }
      int drop = inLoops - LOOP_EXECUTIONS_KEPT_WHEN_FINISHED;
      if (drop <= 0) {
        return;
      }
      if (passesCounted < 0) {
        passesCounted = RunSummary.loopPasses(rows.positions());
      }
      EncodedRows kept = new EncodedRows();
      for (int i = 0; i < rows.size(); i++) {
        if (drop > 0 && rows.inLoop(i)) {
          drop--;
        } else {
          kept.add(rows.row(runId, i));
        }
      }
      rows = kept;
    }
  }
}
