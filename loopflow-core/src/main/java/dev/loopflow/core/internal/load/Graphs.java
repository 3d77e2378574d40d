package dev.loopflow.core.internal.load;

import dev.loopflow.core.error.Location;
import dev.loopflow.core.internal.plan.Constructs;
import dev.loopflow.core.internal.plan.GraphPlan;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.LoopConfig;
import dev.loopflow.core.model.Node;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

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

  /**
   * Pairs every loop with its exit marker and every iterator with its aggregator (the graph-form loops end at
   * their marker) and checks loop edges and nesting, in this list and in every nested body; returns the nodes with
   * their pairings filled in.
   */
  static List<Node> pair(List<Node> nodes, List<Edge> edges, Problems problems, Set<String> invalidLoops) {
    List<Constructs.Issue> issues = new ArrayList<>();
    List<Constructs.Construct> cs = Constructs.find(nodes, edges, issues);
    for (Constructs.Issue i : issues) {
      // A marker whose loop node failed to load is unpaired only because of that failure, already reported.
      if (i.where() instanceof Node m && m.body() instanceof Node.Marker
          && invalidLoops.contains(m.kind().equals("exit") ? "loop" : "iterator")) {
        continue;
      }
      Location at = i.where() instanceof Node n ? n.location() : i.where() instanceof Edge e ? e.location()
          : Location.UNKNOWN;
      String path = i.where() instanceof Node n ? "nodes." + n.id() : "edges";
      problems.add(at, path, i.message());
    }
    Map<String, String> pairOf = new HashMap<>();
    Map<String, String> loopOf = new HashMap<>();
    Map<String, Constructs.Construct> constructOf = new HashMap<>();
    Map<String, Node> byId = new HashMap<>();
    nodes.forEach(x -> byId.putIfAbsent(x.id(), x));
    for (Constructs.Construct c : cs) {
      if (c.loopNode() != null) {
        constructOf.putIfAbsent(c.loopNode().id(), c);
        pairOf.put(c.loopNode().id(), c.pairId());
        loopOf.put(c.pairId(), c.loopNode().id());
      }
    }
    List<Node> out = new ArrayList<>();
    for (Node n : nodes) {
      Node.Body b = n.body();
      if (b instanceof Node.Loop l) {
        LoopConfig cfg = switch (l.config()) {
          case LoopConfig.Refine r -> new LoopConfig.Refine(pairOf.getOrDefault(n.id(), r.exitId()), r.exitCondition(),
              r.stabilityThreshold(), r.feedbackMode());
          case LoopConfig.Iterate it -> new LoopConfig.Iterate(pairOf.getOrDefault(n.id(), it.aggregatorId()),
              it.items(), it.concurrency(), it.continueOnError());
          default -> l.config();
        };
        List<Node> body = l.body().isEmpty() ? l.body() : pair(l.body(), List.of(), problems, invalidLoops);
        b = new Node.Loop(cfg, l.maxIterations(), l.onExhausted(), l.budget(), l.input(), body);
        if (cfg instanceof LoopConfig.Refine r && r.exitCondition() == LoopConfig.ExitCondition.EVALUATOR) {
          Constructs.Construct c = constructOf.get(n.id());
          boolean router = c != null && c.inner().stream().anyMatch(id -> byId.get(id) != null
              && byId.get(id).body() instanceof Node.Router);
          if (c != null && !router) {
            problems.add(n.location(), "nodes." + n.id(), "loop '" + n.id() + "' uses exitCondition evaluator, "
                + "but its body has no router to choose 'done' or 'continue'");
          }
        }
      } else if (b instanceof Node.Marker && loopOf.containsKey(n.id())) {
        b = new Node.Marker(loopOf.get(n.id()));
      }
      out.add(b == n.body() ? n : ModelFactory.withBody(n, b));
    }
    return out;
  }
}
