package dev.loopflow.core.store;

import dev.loopflow.core.event.Event;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;

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

  private final Map<String, RunRecord> runs = new ConcurrentHashMap<>();
  private final Map<String, Rows> executions = new ConcurrentHashMap<>();
  private final Map<String, List<Event>> events = new ConcurrentHashMap<>();
  private final Map<String, Lease> leases = new ConcurrentHashMap<>();
  private final Map<String, String> cancels = new ConcurrentHashMap<>();
  private final Map<String, List<RunCommand>> commands = new ConcurrentHashMap<>();
  private final java.util.concurrent.atomic.AtomicLong commandsVersion = new java.util.concurrent.atomic.AtomicLong();
  /** scope + NUL + namespace -> key -> entry, keys in code point order. */
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
    if (run.status() == dev.loopflow.core.run.RunStatus.COMPLETED
        || run.status() == dev.loopflow.core.run.RunStatus.CANCELLED) {
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
    Limits.name("run id", runId, Limits.MAX_NAME_BYTES, false);
    Limits.name("command kind", kind, Limits.MAX_SHORT_NAME_BYTES, false);
    java.util.Objects.requireNonNull(at, "at");
    Map<String, Object> stored = Limits.document("command payload", payload == null ? Map.of() : payload);
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
    Limits.name("run id", runId, Limits.MAX_NAME_BYTES, false);
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
    Limits.name("run id", runId, Limits.MAX_NAME_BYTES, false);
    java.util.Objects.requireNonNull(at, "at");
    if (response == null) {
      throw new IllegalArgumentException("command response is missing (a command without one stays pending)");
    }
    Map<String, Object> stored = Limits.document("command response", response);
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

  private static String place(String scope, String namespace) {
    Limits.name("shared memory scope", scope, Limits.MAX_NAME_BYTES, true);
    Limits.name("shared memory namespace", namespace, Limits.MAX_SHORT_NAME_BYTES, true);
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
    Limits.name("shared memory key", entry.key(), Limits.MAX_NAME_BYTES, true);
    Limits.value("shared memory value", entry.value());
    Limits.document("shared memory metadata", entry.metadata());
    memory.computeIfAbsent(place, k -> new java.util.concurrent.ConcurrentSkipListMap<>(Limits.CODE_POINT_ORDER))
        .put(entry.key(), copy(entry));
  }

  @Override
  public Optional<MemoryEntry> getMemory(String scope, String namespace, String key) {
    String place = place(scope, namespace);
    Limits.name("shared memory key", key, Limits.MAX_NAME_BYTES, true);
    java.util.NavigableMap<String, MemoryEntry> m = memory.get(place);
    return Optional.ofNullable(m == null ? null : m.get(key)).map(InMemoryRunStore::copy);
  }

  @Override
  public List<MemoryEntry> listMemory(String scope, String namespace, String keyPrefix) {
    return withPrefix(scope, namespace, keyPrefix).stream().map(InMemoryRunStore::copy).toList();
  }

  private List<MemoryEntry> withPrefix(String scope, String namespace, String keyPrefix) {
    String place = place(scope, namespace);
    Limits.name("shared memory key prefix", keyPrefix, Limits.MAX_NAME_BYTES, true);
    java.util.NavigableMap<String, MemoryEntry> m = memory.get(place);
    if (m == null) {
      return List.of();
    }
    // In code point order the keys with a prefix are contiguous, starting at the prefix itself.
    return m.tailMap(keyPrefix, true).values().stream().takeWhile(e -> e.key().startsWith(keyPrefix)).toList();
  }

  @Override
  public int deleteMemory(String scope, String namespace, String keyPrefix) {
    java.util.NavigableMap<String, MemoryEntry> m = memory.get(place(scope, namespace));
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
   * {@link #loopPasses} answers what {@link dev.loopflow.core.store.RunSummary#iterations} answers for every row the
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
      return passesCounted >= 0 ? passesCounted : dev.loopflow.core.store.RunSummary.loopPasses(rows.positions());
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
        passesCounted = dev.loopflow.core.store.RunSummary.loopPasses(rows.positions());
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

  /**
   * What the command bus and shared memory accept: the limits and checks durable stores apply (the store contract
   * suite pins them on every store), so that what works in memory works on a durable store. A refusal is an
   * {@link IllegalArgumentException} naming the field, its size and the limit.
   */
  private static final class Limits {
    static final int MAX_VALUE_BYTES = 16 * 1024 * 1024;
    static final int MAX_DOCUMENT_BYTES = 64 * 1024;
    static final int MAX_NAME_BYTES = 1024;
    static final int MAX_SHORT_NAME_BYTES = 256;
    static final int MAX_DEPTH = 256;

    /** Unicode code point order: the order of UTF-8 bytes, which durable stores sort keys by. */
    static final Comparator<String> CODE_POINT_ORDER = (a, b) -> {
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

    private Limits() {}

    /** Names durable stores keep exactly: no NUL, no unpaired surrogate, within {@code maxBytes} of UTF-8. */
    static void name(String field, String value, int maxBytes, boolean mayBeEmpty) {
      if (value == null) {
        throw new IllegalArgumentException(field + " is missing");
      }
      if (value.isEmpty() && !mayBeEmpty) {
        throw new IllegalArgumentException(field + " is empty");
      }
      for (int i = 0; i < value.length(); i++) {
        char ch = value.charAt(i);
        if (ch == 0) {
          throw new IllegalArgumentException(field + " contains a NUL character at index " + i);
        }
        if (Character.isHighSurrogate(ch) && i + 1 < value.length()
            && Character.isLowSurrogate(value.charAt(i + 1))) {
          i++;
        } else if (Character.isSurrogate(ch)) {
          throw new IllegalArgumentException(field + " contains an unpaired surrogate at index " + i);
        }
      }
      int bytes = value.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
      if (bytes > maxBytes) {
        throw new IllegalArgumentException(field + " is " + bytes + " bytes as UTF-8; the limit is " + maxBytes);
      }
    }

    /** The document as a durable store reads it back: JSON data, written to UTF-8 JSON and parsed again. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> document(String field, Map<String, ?> document) {
      plain(field, Where.ROOT, document, 0);
      byte[] json;
      try {
        json = dev.loopflow.core.expr.Json.mapper().writeValueAsBytes(document);
        if (json.length > MAX_DOCUMENT_BYTES) {
          throw new IllegalArgumentException(field + " is " + json.length + " bytes as JSON; the limit is "
              + MAX_DOCUMENT_BYTES);
        }
        // Read from text, as a durable store reads its JSON column.
        return dev.loopflow.core.expr.Json.mapper().readValue(
            new String(json, java.nio.charset.StandardCharsets.UTF_8), java.util.LinkedHashMap.class);
      } catch (java.io.IOException e) {
        throw new IllegalArgumentException(field + " cannot be written as JSON: " + e.getMessage(), e);
      }
    }

    static void value(String field, byte[] value) {
      if (value.length > MAX_VALUE_BYTES) {
        throw new IllegalArgumentException(field + " is " + value.length + " bytes; the limit is "
            + MAX_VALUE_BYTES);
      }
    }

    /** Refuses what would not read back as written: non-JSON objects, non-finite numbers, BigDecimal. */
    private static void plain(String field, Where where, Object v, int depth) {
      if (depth > MAX_DEPTH) {
        throw new IllegalArgumentException(field + " is nested deeper than " + MAX_DEPTH + " levels at " + where);
      }
      if (v == null || v instanceof String || v instanceof Boolean || v instanceof Integer || v instanceof Long
          || v instanceof Short || v instanceof Byte || v instanceof java.math.BigInteger
          || v instanceof Double d && Double.isFinite(d) || v instanceof Float f && Float.isFinite(f)) {
        return;
      }
      if (v instanceof Map<?, ?> m) {
        for (Map.Entry<?, ?> e : m.entrySet()) {
          if (!(e.getKey() instanceof String)) {
            throw new IllegalArgumentException(field + " has a key that is not a string at " + where);
          }
          plain(field, new Where(where, (String) e.getKey(), -1), e.getValue(), depth + 1);
        }
        return;
      }
      if (v instanceof List<?> l) {
        for (int i = 0; i < l.size(); i++) {
          plain(field, new Where(where, null, i), l.get(i), depth + 1);
        }
        return;
      }
      throw new IllegalArgumentException(field + " holds a " + v.getClass().getName() + " at " + where
          + "; only JSON data (maps with string keys, lists, strings, finite numbers, booleans, null) can be stored");
    }

    /** Where in a document a value is, spelled only when an error names it ({@code $.a[2].b}). */
    private record Where(Where parent, String key, int index) {
      static final Where ROOT = new Where(null, null, -1);

      @Override
      public String toString() {
        return parent == null ? "$" : parent + (key != null ? "." + key : "[" + index + "]");
      }
    }
  }
}
