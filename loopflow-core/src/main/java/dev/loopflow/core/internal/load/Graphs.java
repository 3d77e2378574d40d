package dev.loopflow.core.internal.load;

import dev.loopflow.core.internal.plan.GraphPlan;
import dev.loopflow.core.internal.util.Names;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.Location;
import dev.loopflow.core.model.Node;
import java.util.List;
import java.util.Map;

/** Whole-graph checks: forward cycles and router branch edges. */
final class Graphs {
  private Graphs() {}

  static void check(List<Node> nodes, List<Edge> edges, Map<String, Node.Router> routers, Problems problems,
      String file) {
    for (Edge e : edges) {
      if (e.branch() == null) {
        continue;
      }
      Node.Router r = routers.get(e.from());
      boolean isNode = nodes.stream().anyMatch(n -> n.id().equals(e.from()));
      if (r == null) {
        if (isNode) {
          problems.add(e.location(), "edges", "edge " + e.from() + " -> " + e.to() + " names branch '" + e.branch()
              + "' but '" + e.from() + "' is not a router");
        }
        continue;
      }
      java.util.Set<String> branches = r.byLlm() ? r.descriptions().keySet() : r.routes().keySet();
      if (!branches.contains(e.branch())) {
        problems.add(e.location(), "edges", "router '" + e.from() + "' has no branch '" + e.branch() + "'"
            + Names.suggest(e.branch(), branches) + "; its branches are " + branches);
      }
    }
    List<String> cycle = GraphPlan.of(nodes, edges).findCycle();
    if (!cycle.isEmpty()) {
      Location at = Location.UNKNOWN;
      for (Edge e : edges) {
        if (e.from().equals(cycle.get(0)) && e.to().equals(cycle.get(1))) {
          at = e.location();
        }
      }
      if (at == Location.UNKNOWN) {
        for (Node n : nodes) {
          if (n.id().equals(cycle.get(1))) {
            at = n.location();
          }
        }
      }
      problems.add(at, "edges", "dependency cycle: " + String.join(" -> ", cycle)
          + " (forward edges must be acyclic; use a loop to repeat work)");
    }
  }
}
