package dev.loopflow.core.internal.exec;

import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.run.NodeStatus;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One layer of node results: the run's top level, or one loop's body. Lookups fall through to the enclosing
 * frames, so a body reads outer results it does not shadow. Keeps only each node's latest result, so memory and
 * the cost of building a scope do not grow with the number of iterations.
 *
 * <p>What must stay true: a frame is written by the node threads of the level it belongs to (hence the lock).
 * Readers take a {@link #snapshot}: a read-only copy made once after each write and shared by every reader until
 * the next one, so a node's scope stays what it was when taken without copying the results for every reader.
 * The copy iterates in the order of the results map, which is written in place as it always was: that order is
 * visible where a whole scope or {@code loop.prev} is printed or iterated.
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
  /** The snapshot of {@link #results} handed out since the last write, or null. Guarded by this. */
  private Map<String, Map<String, Object>> published;
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
    NodePosition.LoopFrame[] l = loops.toArray(new NodePosition.LoopFrame[loops.size() + 1]);
    l[loops.size()] = new NodePosition.LoopFrame(loopId, iteration);
    List<Budgets> b = budgets;
    if (loopBudget != null) {
      Budgets[] more = budgets.toArray(new Budgets[budgets.size() + 1]);
      more[budgets.size()] = loopBudget;
      b = List.of(more);
    }
    return new Frame(this, List.of(l), vars, sessionScope != null ? sessionScope : this.sessionScope, b);
  }

  NodePosition position(String nodeId) {
    return new NodePosition(loops, nodeId);
  }

  /** The results as they are now, read-only; never changed afterwards. */
  synchronized Map<String, Map<String, Object>> snapshot() {
    Map<String, Map<String, Object>> p = published;
    if (p == null) {
      p = Collections.unmodifiableMap(new LinkedHashMap<>(results));
      published = p;
    }
    return p;
  }

  /** Replaces {@code id}'s result; called holding this frame's lock. */
  private void putResult(String id, Map<String, Object> result) {
    results.put(id, result);
    published = null;
  }

  synchronized void complete(String id, Map<String, Object> result, NodeStatus status) {
    putResult(id, Collections.unmodifiableMap(result));
    statuses.put(id, status);
    if (status == NodeStatus.COMPLETED) {
      completionOrder.remove(id);
      completionOrder.add(id);
    }
  }

  synchronized void mark(String id, NodeStatus status, Map<String, Object> result) {
    statuses.put(id, status);
    if (result != null) {
      putResult(id, Collections.unmodifiableMap(result));
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
    putResult(id, Collections.unmodifiableMap(r));
  }

  /** Forgets these nodes' results and statuses (a restart that does not preserve outputs). */
  synchronized void forget(Set<String> ids) {
    published = null;
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

  /** This frame's results, read-only: its {@link #snapshot}, shared rather than copied for each reader. */
  Map<String, Map<String, Object>> ownResults() {
    return snapshot();
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
      parent.published = null;
      parent.statuses.putAll(s);
      parent.completionOrder.removeAll(order);
      parent.completionOrder.addAll(order);
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
