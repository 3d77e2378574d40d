package dev.loopflow.core.internal.exec;

import dev.loopflow.core.expr.Values;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.model.StateMerge;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.NodeResults;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.secrets.CredentialNames;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.core.store.NodeExecution;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The run-wide data of one run: the shared {@code state}, LLM sessions, and the top frame of node results.
 * Everything a node may read is handed out as a read-only snapshot of the top-level maps (O(keys), never a deep
 * copy), so nodes running concurrently cannot see each other's half-written data.
 */
final class RunState {
  final Workflow workflow;
  final Map<String, Object> inputs;
  final Frame top;
  private final Map<String, Object> flow;
  /** {@code env}: the run's environment without the variables whose names say they hold credentials. */
  private final Map<String, Object> env;
  /** {@code run}: the run's identity, set once the run record exists (before any node runs). */
  private volatile Map<String, Object> run = Map.of();
  private final Map<String, Object> state = new LinkedHashMap<>();
  /** The snapshot handed out since the last write, or null; guarded by this. */
  private Map<String, Object> view;
  private final Map<String, ConversationImpl> conversations = new ConcurrentHashMap<>();

  RunState(Workflow workflow, Map<String, Object> inputs, Budgets runBudget, Map<String, String> environment) {
    this.workflow = workflow;
    Map<String, Object> visible = new TreeMap<>();
    environment.forEach((k, v) -> {
      if (!CredentialNames.isCredential(k)) {
        visible.put(k, v);
      }
    });
    this.env = Collections.unmodifiableMap(visible);
    this.inputs = Collections.unmodifiableMap(new LinkedHashMap<>(inputs));
    this.top = Frame.top(runBudget);
    this.flow = Map.of("input", this.inputs, "name", workflow.name());
    state.putAll(inputs);
    workflow.stateMerge().forEach((key, merge) -> {
      if (merge == StateMerge.APPEND && state.get(key) instanceof List<?> l) {
        state.put(key, AppendList.of(l));
      }
    });
  }

  /** What a node at {@code frame} reads now: a snapshot, looked up lazily (see {@link NodeScope}). */
  Map<String, Object> scope(Frame frame) {
    Object pipeline = workflow.restartPolicy() != null && workflow.restartPolicy().isPipeline()
        ? PipelineScope.of(frame, workflow.restartPolicy()) : null;
    return new NodeScope(frame, inputs, flow, stateView(), env, run, frame.loopVars(), pipeline);
  }

  /** Sets {@code run}: the run's id, workflow name and file, and when it first started (kept across resumes). */
  void identify(String runId, Instant startedAt) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("id", runId);
    r.put("workflow", workflow.name());
    r.put("file", workflow.file());
    r.put("started_at", startedAt.toString());
    run = Collections.unmodifiableMap(r);
  }

  void complete(Frame frame, String id, Map<String, Object> result, Map<String, Object> statePatch,
      String stateKey, Object stateValue, NodeStatus status) {
    synchronized (this) {
      if (statePatch != null) {
        statePatch.forEach(this::merge);
      }
      if (stateKey != null) {
        merge(stateKey, stateValue);
      }
    }
    frame.complete(id, result, status);
  }

  /**
   * Applies an execution the journal holds as completed: its result, its state delta and its {@code output:} key,
   * exactly as when it ran. A resumed run restores its completed executions with this, and the report of a run that
   * is still running (or whose process died) is rebuilt with it, so both merge {@code state} like the engine.
   */
  void restore(Frame frame, Node node, NodeExecution row) {
    Map<String, Object> result = new LinkedHashMap<>(row.result() == null ? Map.of() : row.result());
    complete(frame, node.id(), result, row.statePatch(), node.stateKey(), stateValue(node, result),
        NodeStatus.COMPLETED);
  }

  /**
   * What a completed node's {@code output: key} stores: its whole result when its program says so (an llm node's
   * reply with its text, json and usage), else its output.
   */
  static Object stateValue(Node node, Map<String, Object> result) {
    return node.body() instanceof Node.Work w && w.program().storesWholeResult() ? Values.plain(result)
        : result.get("output");
  }

  /**
   * The workflow's result: the {@code output} template, else an output node's value, else the last output. A
   * template that fails to render throws: the run must not report success with a result it could not compute.
   */
  Object workflowOutput() {
    if (workflow.output() != null) {
      return Values.plain(workflow.output().evaluate(scope(top)));
    }
    for (Node n : workflow.nodes()) {
      if (n.body() instanceof Node.Output && top.ownStatus(n.id()) == NodeStatus.COMPLETED) {
        return top.ownResult(n.id()).get("output");
      }
    }
    String last = top.lastCompleted();
    return last == null ? null : top.ownResult(last).get("output");
  }

  /** Every write to state goes through here, so a key's declared merge applies whoever writes it. Guarded by this. */
  private void merge(String key, Object value) {
    view = null;
    if (workflow.merge(key) != StateMerge.APPEND) {
      state.put(key, value);
      return;
    }
    Object current = state.get(key);
    if (current != null && !(current instanceof List<?>)) {
      throw new IllegalStateException("state." + key + " is declared 'merge: append' but holds "
          + Values.describe(current) + ", not a list");
    }
    List<?> added = value instanceof List<?> l ? l : Collections.singletonList(value);
    state.put(key, AppendList.appendTo(current == null ? List.of() : (List<?>) current, added));
  }

  /**
   * Sets {@code state.PATH} ({@code PATH} dotted for nested maps) to {@code value}, replacing what is there whatever
   * the key's merge: what a fork's {@code --set state.x=...} does at its point. Maps on the path are copied, never
   * changed in place, since snapshots share them.
   */
  synchronized void edit(String path, Object value) {
    view = null;
    String[] keys = path.split("\\.");
    if (keys.length == 1) {
      state.put(path, value);
      return;
    }
    state.put(keys[0], withPath(state.get(keys[0]), keys, 1, value));
  }

  private static Object withPath(Object current, String[] keys, int i, Object value) {
    if (i == keys.length) {
      return value;
    }
    Map<String, Object> copy = new LinkedHashMap<>();
    if (current instanceof Map<?, ?> m) {
      m.forEach((k, v) -> copy.put(String.valueOf(k), v));
    }
    copy.put(keys[i], withPath(copy.get(keys[i]), keys, i + 1, value));
    return copy;
  }

  synchronized Map<String, Object> stateCopy() {
    return castMap(Values.plain(state));
  }

  /**
   * A read-only snapshot of the top-level state map, shared by every reader until the next write: a loop pass reads
   * the state more often (the node's scope, the loop's condition) than it writes it, and a snapshot is O(keys).
   * Values are never mutated in place (patches replace them), so sharing the snapshot is safe.
   */
  synchronized Map<String, Object> stateView() {
    Map<String, Object> v = view;
    if (v == null) {
      v = Collections.unmodifiableMap(new LinkedHashMap<>(state));
      view = v;
    }
    return v;
  }

  /**
   * The top-level {@code nodes} report of a result: every node of the workflow in definition order, with its status
   * ({@code not_run} when it has none) and its latest result; a loop edge's loop summary is on its source node's
   * result.
   */
  Map<String, Map<String, Object>> nodeReports() {
    Map<String, Map<String, Object>> out = new LinkedHashMap<>();
    for (Node n : workflow.nodes()) {
      Map<String, Object> r = top.ownResult(n.id());
      NodeStatus s = top.ownStatus(n.id());
      Map<String, Object> report = NodeResults.report(r, s == null ? NodeStatus.NOT_RUN : s);
      report.replaceAll((k, v) -> Values.plain(v));
      out.put(n.id(), report);
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> castMap(Object o) {
    return (Map<String, Object>) o;
  }

  NodeContext.Conversation conversation(String name) {
    return conversations.computeIfAbsent(name, n -> new ConversationImpl());
  }

  private static final class ConversationImpl implements NodeContext.Conversation {
    private final List<Turn> turns = new ArrayList<>();

    @Override
    public synchronized List<Turn> turns() {
      return List.copyOf(turns);
    }

    @Override
    public synchronized void append(Turn turn) {
      turns.add(turn);
    }
  }
}
