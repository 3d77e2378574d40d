package dev.loopflow.core.internal.exec;

import dev.loopflow.core.model.NodePosition;
import dev.loopflow.core.run.NodeStatus;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One layer of node results: the run's top level, or one loop's body. Lookups fall through to the enclosing
 * frames, so a body reads outer results it does not shadow. Keeps only each node's latest result, so memory and
 * the cost of building a scope do not grow with the number of iterations.
 *
 * <p>What must stay true: a frame is written by the node threads of the level it belongs to (hence the lock)
 * and read through {@link #collect}, which copies references only.
 */
final class Frame {
  final Frame parent;
  /** The loops around nodes of this frame, outermost first. */
  final List<NodePosition.LoopFrame> loops;
  /** The {@code loop} variable seen by nodes of this frame; null at top level. */
  volatile Map<String, Object> loopVars;
  /** Non-null when LLM sessions are scoped to this pass ({@code fresh_context: true}). */
  final String sessionScope;
  /** Budget chain: the run's, then each enclosing loop's, innermost last. */
  final List<Budgets> budgets;
  private final Map<String, Map<String, Object>> results = new HashMap<>();
  private final Map<String, NodeStatus> statuses = new HashMap<>();
  private final List<String> completionOrder = new ArrayList<>();

  Frame(Frame parent, List<NodePosition.LoopFrame> loops, Map<String, Object> loopVars, String sessionScope,
      List<Budgets> budgets) {
    this.parent = parent;
    this.loops = List.copyOf(loops);
    this.loopVars = loopVars;
    this.sessionScope = sessionScope;
    this.budgets = List.copyOf(budgets);
  }

  static Frame top(Budgets run) {
    return new Frame(null, List.of(), null, null, List.of(run));
  }

  /** A body frame one loop pass deeper. */
  Frame child(String loopId, int iteration, Map<String, Object> vars, String sessionScope, Budgets loopBudget) {
    List<NodePosition.LoopFrame> l = new ArrayList<>(loops);
    l.add(new NodePosition.LoopFrame(loopId, iteration));
    List<Budgets> b = new ArrayList<>(budgets);
    if (loopBudget != null) {
      b.add(loopBudget);
    }
    return new Frame(this, l, vars, sessionScope != null ? sessionScope : this.sessionScope, b);
  }

  NodePosition position(String nodeId) {
    return new NodePosition(loops, nodeId);
  }

  synchronized void complete(String id, Map<String, Object> result, NodeStatus status) {
    results.put(id, Collections.unmodifiableMap(result));
    statuses.put(id, status);
    if (status == NodeStatus.COMPLETED) {
      completionOrder.remove(id);
      completionOrder.add(id);
    }
  }

  synchronized void mark(String id, NodeStatus status, Map<String, Object> result) {
    statuses.put(id, status);
    if (result != null) {
      results.put(id, Collections.unmodifiableMap(result));
    }
  }

  /**
   * Marks a node only if nothing settled it yet (no status, or still paused), in one step: a coordinator timing a
   * node out and the node's own thread reporting its interrupt race for the same node, and the timeout must win.
   * Returns whether it marked.
   */
  synchronized boolean markIfUnsettled(String id, NodeStatus status, Map<String, Object> result) {
    NodeStatus own = statuses.get(id);
    if (own != null && own != NodeStatus.PAUSED) {
      return false;
    }
    mark(id, status, result);
    return true;
  }

  /**
   * Adds one field to a node's result, creating the result if the node has none (a loop edge's {@code loop} summary
   * goes on its source node, which may have failed before completing a pass). The status is left as it is.
   */
  synchronized void attach(String id, String field, Object value) {
    Map<String, Object> r = new LinkedHashMap<>();
    Map<String, Object> old = results.get(id);
    if (old != null) {
      r.putAll(old);
    }
    r.put(field, value);
    results.put(id, Collections.unmodifiableMap(r));
  }

  /** Forgets these nodes' results and statuses (a restart that does not preserve outputs). */
  synchronized void forget(java.util.Set<String> ids) {
    for (String id : ids) {
      results.remove(id);
      statuses.remove(id);
      completionOrder.remove(id);
    }
  }

  /** Forget statuses (not results) so a new pass starts clean while last pass's outputs stay readable. */
  synchronized void newPass() {
    statuses.clear();
    completionOrder.clear();
  }

  synchronized NodeStatus ownStatus(String id) {
    return statuses.get(id);
  }

  NodeStatus status(String id) {
    for (Frame f = this; f != null; f = f.parent) {
      NodeStatus s = f.ownStatus(id);
      if (s != null) {
        return s;
      }
    }
    return null;
  }

  synchronized Map<String, Object> ownResult(String id) {
    return results.get(id);
  }

  Map<String, Object> result(String id) {
    for (Frame f = this; f != null; f = f.parent) {
      Map<String, Object> r = f.ownResult(id);
      if (r != null) {
        return r;
      }
    }
    return null;
  }

  /** The last node of this frame to complete in the current pass, or null. */
  synchronized String lastCompleted() {
    return completionOrder.isEmpty() ? null : completionOrder.get(completionOrder.size() - 1);
  }

  synchronized Map<String, Map<String, Object>> ownResults() {
    return new LinkedHashMap<>(results);
  }

  /** Publishes this frame's results and statuses into the parent (graph-form loops: body ids are outer ids). */
  void copyUp() {
    Map<String, Map<String, Object>> r;
    Map<String, NodeStatus> s;
    List<String> order;
    synchronized (this) {
      r = new HashMap<>(results);
      s = new HashMap<>(statuses);
      order = new ArrayList<>(completionOrder);
    }
    synchronized (parent) {
      parent.results.putAll(r);
      parent.statuses.putAll(s);
      parent.completionOrder.removeAll(order);
      parent.completionOrder.addAll(order);
    }
  }

  /** Every visible result, innermost winning. */
  void collect(Map<String, Object> into) {
    if (parent != null) {
      parent.collect(into);
    }
    synchronized (this) {
      into.putAll(results);
    }
  }

  /** The {@code loop} variable of the innermost enclosing loop, or null. */
  Map<String, Object> loopVars() {
    for (Frame f = this; f != null; f = f.parent) {
      if (f.loopVars != null) {
        return f.loopVars;
      }
    }
    return null;
  }
}
