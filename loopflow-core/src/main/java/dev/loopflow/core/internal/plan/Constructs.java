package dev.loopflow.core.internal.plan;

import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.LoopConfig;
import dev.loopflow.core.model.Node;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Loop construct discovery for one graph level: loop edges' cycle regions and the bodies of graph-form loops
 * ({@code loop} + {@code exit}, {@code iterator} + {@code aggregator}), with their pairing and nesting checked.
 * Constructs must nest (one's span inside the other's inner set) or be disjoint; anything else is an {@link Issue}
 * the loader reports with its location. The execution plan ({@link ExecGraph}) is built from what is found here,
 * once, when a workflow is loaded.
 */
public final class Constructs {
  private Constructs() {}

  /** A graph-form construct: what it occupies at its level ({@code span}) and what it owns ({@code inner}). */
  public record Construct(String id, Edge loopEdge, Node loopNode, String pairId, Set<String> span,
      Set<String> inner) {}

  /** Why discovery could not place a construct; the loader turns these into problems with locations. */
  public record Issue(Object where, String message) {}

  /** Finds loop-edge regions and loop/iterator bodies among top-level nodes, checking pairing and nesting. */
  public static List<Construct> find(List<Node> nodes, List<Edge> edges, List<Issue> issues) {
    Map<String, List<String>> out = new HashMap<>();
    Map<String, List<String>> in = new HashMap<>();
    for (Edge e : forward(nodes, edges)) {
      out.computeIfAbsent(e.from(), k -> new ArrayList<>()).add(e.to());
      in.computeIfAbsent(e.to(), k -> new ArrayList<>()).add(e.from());
    }
    for (Node n : nodes) {
      for (String d : n.dependsOn()) {
        out.computeIfAbsent(d, k -> new ArrayList<>()).add(n.id());
        in.computeIfAbsent(n.id(), k -> new ArrayList<>()).add(d);
      }
    }
    List<Construct> found = new ArrayList<>();
    Map<String, Node> byId = new LinkedHashMap<>();
    nodes.forEach(n -> byId.put(n.id(), n));
    Map<String, String> pairedBy = new HashMap<>();
    for (Node n : nodes) {
      if (!(n.body() instanceof Node.Loop loop)) {
        continue;
      }
      String pair = switch (loop.config()) {
        case LoopConfig.Refine r -> r.exitId();
        case LoopConfig.Iterate it -> it.aggregatorId();
        case LoopConfig.While w -> null;
        case LoopConfig.Group g -> null;
      };
      if (pair == null) {
        continue;
      }
      String marker = loop.config() instanceof LoopConfig.Refine ? "exit" : "aggregator";
      // The paired marker: the one named by the config, else the single marker reachable without passing another.
      Set<String> fwd = reach(n.id(), out, Set.of());
      Set<String> candidates = new LinkedHashSet<>();
      for (String id : fwd) {
        Node m = byId.get(id);
        if (m != null && m.body() instanceof Node.Marker && m.kind().equals(marker)) {
          candidates.add(id);
        }
      }
      String exit = pair.isEmpty() ? null : pair;
      if (exit == null) {
        // Stop at markers: the nearest ones are this loop's candidates.
        Set<String> stops = new LinkedHashSet<>();
        for (String c : candidates) {
          Node m = byId.get(c);
          stops.add(m.id());
        }
        Set<String> near = new LinkedHashSet<>();
        for (String c : stops) {
          boolean behindAnother = false;
          for (String o : stops) {
            if (!o.equals(c) && reach(o, out, Set.of()).contains(c)) {
              behindAnother = true;
            }
          }
          if (!behindAnother) {
            near.add(c);
          }
        }
        if (near.size() != 1) {
          near.forEach(x -> pairedBy.putIfAbsent(x, n.id()));
          issues.add(new Issue(n, near.isEmpty()
              ? n.kind() + " '" + n.id() + "' has no " + marker + " node downstream of it (every " + n.kind()
                  + " needs exactly one paired " + marker + ")"
              : n.kind() + " '" + n.id() + "' reaches several " + marker + " nodes " + near + "; it needs exactly one"));
          continue;
        }
        exit = near.iterator().next();
      } else if (!fwd.contains(exit)) {
        pairedBy.putIfAbsent(exit, n.id());
        issues.add(new Issue(n, n.kind() + " '" + n.id() + "': " + marker + " '" + exit + "' is not downstream of it"));
        continue;
      }
      if (pairedBy.containsKey(exit)) {
        issues.add(new Issue(n, marker + " '" + exit + "' is paired with both '" + pairedBy.get(exit) + "' and '"
            + n.id() + "'"));
        continue;
      }
      pairedBy.put(exit, n.id());
      // A loop's body is the nodes on paths from the loop to its exit; a dead-end branch inside it (the evaluator's
      // `continue` path that feeds the next pass) belongs to it too: everything downstream of the loop node that
      // is not downstream of its exit.
      Set<String> body = new LinkedHashSet<>(reach(n.id(), out, Set.of(exit)));
      body.removeAll(reach(exit, out, Set.of()));
      body.remove(n.id());
      body.remove(exit);
      if (body.isEmpty()) {
        issues.add(new Issue(n, n.kind() + " '" + n.id() + "' has an empty body: no node lies between it and "
            + marker + " '" + exit + "'"));
        continue;
      }
      Set<String> span = new LinkedHashSet<>(body);
      span.add(n.id());
      span.add(exit);
      found.add(new Construct(n.id(), null, n, exit, order(span, nodes), order(body, nodes)));
    }
    for (Node n : nodes) {
      if (n.body() instanceof Node.Marker && !pairedBy.containsKey(n.id())) {
        String wanted = n.kind().equals("exit") ? "loop" : "iterator";
        issues.add(new Issue(n, n.kind() + " '" + n.id() + "' has no paired " + wanted + " node upstream of it"));
      }
    }
    for (Edge e : edges) {
      if (!e.isLoop()) {
        continue;
      }
      Set<String> region = new LinkedHashSet<>(reach(e.to(), out, Set.of()));
      region.add(e.to());
      Set<String> back = reach(e.from(), in, Set.of());
      back.add(e.from());
      region.retainAll(back);
      if (!region.contains(e.from())) {
        issues.add(new Issue(e, "loop edge " + e.from() + " -> " + e.to() + " goes forward: '" + e.from()
            + "' is not reachable from '" + e.to() + "' by forward edges, so there is no cycle to repeat"));
        continue;
      }
      Set<String> r = order(region, nodes);
      found.add(new Construct(e.from() + "->" + e.to(), e, null, null, r, r));
    }
    // Nesting: spans must be disjoint or one inside the other's inner set.
    List<Construct> ok = new ArrayList<>();
    for (Construct c : found) {
      boolean bad = false;
      for (Construct o : ok) {
        boolean disjoint = Collections.disjoint(c.span(), o.span());
        // Checked first: two loop edges over the same region each "contain" the other, and the run would then
        // never loop back.
        boolean same = c.span().equals(o.span());
        if (!same && (disjoint || o.inner().containsAll(c.span()) || c.inner().containsAll(o.span()))) {
          continue;
        }
        if (same) {
          issues.add(new Issue(c.loopEdge() != null ? c.loopEdge() : c.loopNode(), describe(c) + " repeats exactly"
              + " the same nodes as " + describe(o) + "; merge them into one loop"));
        } else {
          issues.add(new Issue(c.loopEdge() != null ? c.loopEdge() : c.loopNode(), describe(c) + " overlaps "
              + describe(o) + " without one containing the other; loops must nest or be disjoint"));
        }
        bad = true;
        break;
      }
      if (!bad) {
        ok.add(c);
      }
    }
    return ok;
  }

  private static String describe(Construct c) {
    return c.loopEdge() != null ? "loop edge " + c.loopEdge().from() + " -> " + c.loopEdge().to() + " "
        + c.span() : c.loopNode().kind() + " '" + c.id() + "' " + c.inner();
  }

  private static Set<String> order(Set<String> ids, List<Node> nodes) {
    Set<String> out = new LinkedHashSet<>();
    for (Node n : nodes) {
      if (ids.contains(n.id())) {
        out.add(n.id());
      }
    }
    return out;
  }

  private static Set<String> reach(String from, Map<String, List<String>> adj, Set<String> stop) {
    Set<String> seen = new LinkedHashSet<>();
    ArrayDeque<String> q = new ArrayDeque<>();
    q.add(from);
    while (!q.isEmpty()) {
      String x = q.poll();
      if (stop.contains(x) && !x.equals(from)) {
        continue;
      }
      for (String y : adj.getOrDefault(x, List.of())) {
        if (seen.add(y) && !stop.contains(y)) {
          q.add(y);
        } else if (stop.contains(y)) {
          seen.add(y);
        }
      }
    }
    return seen;
  }

  private static List<Edge> forward(List<Node> nodes, List<Edge> edges) {
    List<Edge> out = new ArrayList<>();
    for (Edge e : edges) {
      if (!e.isLoop() && !e.from().equals("__start__") && !e.to().equals("__end__")) {
        out.add(e);
      }
    }
    return out;
  }
}
