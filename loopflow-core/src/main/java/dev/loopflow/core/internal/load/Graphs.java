package dev.loopflow.core.internal.load;

import dev.loopflow.core.internal.plan.GraphPlan;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.Location;
import dev.loopflow.core.model.Node;
import java.util.List;
import java.util.Map;

/** Whole-graph checks: forward cycles (router branch edges are checked as edges are loaded). */
final class Graphs {
  private Graphs() {}

  static void check(List<Node> nodes, List<Edge> edges, Map<String, Node.Router> routers, Problems problems,
      String file) {
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
