package dev.loopflow.core.internal.exec;

import dev.loopflow.core.expr.Values;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.spi.NodeContext;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The mutable data of one run: state, each node's latest result and status, sessions. Everything a node may
 * read is handed out as a read-only snapshot of the top-level maps (O(keys), never a deep copy), so nodes
 * running concurrently cannot see each other's half-written data.
 */
final class RunState {
  final Workflow workflow;
  final Map<String, Object> inputs;
  private final Map<String, Object> state = new LinkedHashMap<>();
  private final Map<String, Map<String, Object>> results = new LinkedHashMap<>();
  private final Map<String, NodeStatus> statuses = new LinkedHashMap<>();
  private final Map<String, ConversationImpl> conversations = new ConcurrentHashMap<>();
  private String lastCompleted;

  RunState(Workflow workflow, Map<String, Object> inputs) {
    this.workflow = workflow;
    this.inputs = Collections.unmodifiableMap(new LinkedHashMap<>(inputs));
    state.putAll(inputs);
  }

  synchronized Map<String, Object> scope() {
    Map<String, Object> scope = new HashMap<>(results.size() + 8);
    for (Map.Entry<String, Map<String, Object>> e : results.entrySet()) {
      scope.put(e.getKey(), e.getValue());
    }
    scope.put("input", inputs);
    scope.put("flow", Map.of("input", inputs, "name", workflow.name()));
    scope.put("state", Collections.unmodifiableMap(new LinkedHashMap<>(state)));
    return Collections.unmodifiableMap(scope);
  }

  synchronized void complete(String id, Map<String, Object> result, Map<String, Object> statePatch, String stateKey,
      Object stateValue, NodeStatus status) {
    results.put(id, Collections.unmodifiableMap(result));
    statuses.put(id, status);
    if (statePatch != null) {
      state.putAll(statePatch);
    }
    if (stateKey != null) {
      state.put(stateKey, stateValue);
    }
    if (status == NodeStatus.COMPLETED) {
      lastCompleted = id;
    }
  }

  synchronized void mark(String id, NodeStatus status, Map<String, Object> result) {
    statuses.put(id, status);
    if (result != null) {
      results.put(id, Collections.unmodifiableMap(result));
    }
  }

  synchronized NodeStatus status(String id) {
    return statuses.get(id);
  }

  synchronized Map<String, Object> result(String id) {
    return results.get(id);
  }

  synchronized String lastCompleted() {
    return lastCompleted;
  }

  synchronized Map<String, Object> stateCopy() {
    return castMap(Values.plain(state));
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
