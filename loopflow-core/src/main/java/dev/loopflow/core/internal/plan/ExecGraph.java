package dev.loopflow.core.internal.plan;

import dev.loopflow.core.expr.Condition;
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

/*
 * Design notes.
 *
 * A workflow is a tree of graphs. Each level is acyclic and is scheduled by one coordinator; every loop is one
 * unit of its enclosing level and owns the graph of its body:
 *   - a loop edge S->T becomes a region unit whose body is the cycle region (nodes reachable from T by forward
 *     edges that can reach S);
 *   - a `loop` or `iterator` node keeps its place and owns the nodes between it and its paired exit/aggregator
 *     (forward reachability from it ∩ backward reachability from the exit); the exit stays outside and depends
 *     on the loop node;
 *   - while_loop and loop_group own their nested `body`/`nodes` declarations.
 * Graph-form constructs must nest (one's span inside the other's inner set) or be disjoint; anything else is a
 * load error reported by the loader through construct discovery here.
 *
 * An Incoming keeps the node it really comes from, so edge conditions and router branches are evaluated
 * against the node that produced the value, while dependency counting uses that node's owner at this level
 * (the loop or region unit containing it). Incoming edges from outside a level are already settled when the
 * level runs and are not counted. Edges from a graph-form loop node into its body are entry edges: active
 * while the loop runs.
 */
/** The execution plan of one graph level (the workflow's top level or a loop body). Immutable. */
public final class ExecGraph {
  /** An incoming dependency; {@code when} and {@code branch} are null for unconditional ones. */
  public record Incoming(String from, Condition when, String branch) {}

  /** Something this level schedules. */
  public sealed interface Unit {
    String id();
  }

  /** A node of the workflow (work, control or loop node). */
  public record NodeUnit(Node node) implements Unit {
    public String id() {
      return node.id();
    }
  }

  /** A loop edge's cycle region, run as one unit. Its id is {@code from->to}. */
  public record RegionUnit(String id, Edge edge, ExecGraph body, Set<String> members) implements Unit {}

  /**
   * A loop node's body: its graph; for graph-form loops, the edges that reach its exit/aggregator; for a loop_group
   * with an {@code until_command}, the one-unit level that runs the command after a pass (else null).
   */
  public record Body(ExecGraph graph, List<Incoming> exitEdges, ExecGraph until) {}

  private final List<Unit> units;
  private final Map<String, Unit> byId;
  private final Map<String, List<Incoming>> incoming;
  private final Map<String, List<String>> successors;
  private final Map<String, Integer> deps;
  private final Map<String, Body> bodies;
  private final String entry;

  private ExecGraph(List<Unit> units, Map<String, List<Incoming>> incoming, Map<String, List<String>> successors,
      Map<String, Integer> deps, Map<String, Body> bodies, String entry) {
    this.units = List.copyOf(units);
    Map<String, Unit> m = new LinkedHashMap<>();
    units.forEach(u -> m.put(u.id(), u));
    this.byId = Collections.unmodifiableMap(m);
    this.incoming = incoming;
    this.successors = successors;
    this.deps = deps;
    this.bodies = bodies;
    this.entry = entry;
  }

  public List<Unit> units() {
    return units;
  }

  public Unit unit(String id) {
    return byId.get(id);
  }

  public List<Incoming> incoming(String unitId) {
    return incoming.getOrDefault(unitId, List.of());
  }

  public List<String> successors(String unitId) {
    return successors.getOrDefault(unitId, List.of());
  }

  /** How many units of this level must settle before {@code unitId} is ready. */
  public int dependencyCount(String unitId) {
    return deps.getOrDefault(unitId, 0);
  }

  /** The body of the loop node {@code loopId} at this level. */
  public Body body(String loopId) {
    return bodies.get(loopId);
  }

  /** The graph-form loop whose edges into this level are always active, or null. */
  public String entry() {
    return entry;
  }

  // ---------------------------------------------------------------------------------------------------------
  // Construct discovery (shared with the loader's validation)

  /** A graph-form construct: what it occupies at its level ({@code span}) and what it owns ({@code inner}). */
  public record Construct(String id, Edge loopEdge, Node loopNode, String pairId, Set<String> span,
      Set<String> inner) {}

  /** Why discovery could not place a construct; the loader turns these into problems with locations. */
  public record Issue(Object where, String message) {}

  /** Finds loop-edge regions and loop/iterator bodies among top-level nodes, checking pairing and nesting. */
  public static List<Construct> constructs(List<Node> nodes, List<Edge> edges, List<Issue> issues) {
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

  // ---------------------------------------------------------------------------------------------------------
  // Building

  /** The plan of a whole workflow's top level. Assumes the workflow was validated by the loader. */
  public static ExecGraph of(List<Node> nodes, List<Edge> edges) {
    return of(nodes, edges, Dependencies.of(nodes, edges));
  }

  /** The plan of a nested body: while_loop bodies run in listed order, loop_group bodies by depends_on. */
  public static ExecGraph ofBody(List<Node> body, boolean sequential) {
    return of(body, List.of(), sequential ? Dependencies.listedOrder(body) : Dependencies.dependsOnOnly(body));
  }

  private static ExecGraph of(List<Node> nodes, List<Edge> edges, List<Edge> deps) {
    Map<String, Node> byId = new LinkedHashMap<>();
    nodes.forEach(n -> byId.put(n.id(), n));
    return level(new LinkedHashSet<>(byId.keySet()), null, byId, deps, constructs(nodes, edges, new ArrayList<>()));
  }

  private static ExecGraph level(Set<String> members, String entry, Map<String, Node> byId, List<Edge> deps,
      List<Construct> all) {
    return level(members, entry, null, byId, deps, all);
  }

  /** {@code self}: the region whose body this level is (it must not be found again inside itself). */
  private static ExecGraph level(Set<String> members, String entry, String self, Map<String, Node> byId,
      List<Edge> deps, List<Construct> all) {
    // Maximal constructs inside this level.
    List<Construct> here = new ArrayList<>();
    for (Construct c : all) {
      if (!members.containsAll(c.span()) || c.id().equals(entry) || c.id().equals(self)) {
        continue;
      }
      boolean maximal = true;
      for (Construct o : all) {
        if (o != c && !o.id().equals(self) && members.containsAll(o.span()) && o.inner().containsAll(c.span())) {
          maximal = false;
        }
      }
      if (maximal) {
        here.add(c);
      }
    }
    Map<String, String> owner = new HashMap<>();
    for (String id : members) {
      owner.put(id, id);
    }
    Map<String, Construct> regionOf = new HashMap<>();
    Set<String> exitsOf = new java.util.HashSet<>();
    for (Construct c : here) {
      String o = c.loopEdge() != null ? c.id() : c.loopNode().id();
      for (String id : c.inner()) {
        owner.put(id, o);
      }
      if (c.loopEdge() != null) {
        regionOf.put(c.id(), c);
      } else {
        exitsOf.add(c.pairId());
      }
    }
    List<Unit> units = new ArrayList<>();
    Map<String, Body> bodies = new HashMap<>();
    Set<String> placedRegions = new java.util.HashSet<>();
    for (String id : members) {
      String o = owner.get(id);
      if (o.equals(id)) {
        Node n = byId.get(id);
        units.add(new NodeUnit(n));
        if (n.body() instanceof Node.Loop loop) {
          Construct c = here.stream().filter(x -> x.loopNode() == n).findFirst().orElse(null);
          if (c != null) {
            ExecGraph g = level(c.inner(), n.id(), byId, deps, all);
            List<Incoming> exits = new ArrayList<>();
            for (Edge e : deps) {
              if (e.to().equals(c.pairId()) && c.inner().contains(e.from())) {
                exits.add(new Incoming(e.from(), e.when(), e.branch()));
              }
            }
            bodies.put(n.id(), new Body(g, List.copyOf(exits), null));
          } else if (!loop.body().isEmpty()) {
            Node until = loop.config() instanceof LoopConfig.Group g ? g.untilCommand() : null;
            bodies.put(n.id(), new Body(ofBody(loop.body(), loop.config() instanceof LoopConfig.While), List.of(),
                until == null ? null : ofBody(List.of(until), true)));
          }
        }
      } else if (regionOf.containsKey(o) && placedRegions.add(o)) {
        Construct c = regionOf.get(o);
        // The enclosing loop's entry edges stay active inside a region placed directly after the loop node.
        units.add(new RegionUnit(c.id(), c.loopEdge(), level(c.inner(), entry, c.id(), byId, deps, all),
            c.inner()));
      }
    }
    Map<String, List<Incoming>> incoming = new LinkedHashMap<>();
    Map<String, Set<String>> counted = new LinkedHashMap<>();
    for (Unit u : units) {
      incoming.put(u.id(), new ArrayList<>());
      counted.put(u.id(), new LinkedHashSet<>());
    }
    for (Edge e : deps) {
      if (!members.contains(e.to())) {
        continue;
      }
      String toUnit = owner.get(e.to());
      String fromUnit = members.contains(e.from()) ? owner.get(e.from()) : null;
      if (fromUnit != null && fromUnit.equals(toUnit)) {
        continue; // inside one construct: that construct's own level handles it
      }
      Unit u = units.stream().filter(x -> x.id().equals(toUnit)).findFirst().orElse(null);
      if (u == null) {
        continue; // into a loop node's body from outside it: the body level evaluates it
      }
      if (u instanceof NodeUnit nu && exitsOf.contains(nu.id()) && fromUnit != null
          && !fromUnit.equals(e.from())) {
        // An edge from a loop body into its exit marker is an exit edge of the loop; the marker depends on the loop.
        counted.get(toUnit).add(fromUnit);
        continue;
      }
      if (u instanceof NodeUnit) {
        incoming.get(toUnit).add(new Incoming(e.from(), e.when(), e.branch()));
      }
      if (fromUnit != null) {
        counted.get(toUnit).add(fromUnit);
      }
    }
    for (Construct c : here) {
      if (c.loopNode() != null && members.contains(c.pairId())) {
        counted.get(c.pairId()).add(c.loopNode().id());
        incoming.get(c.pairId()).add(new Incoming(c.loopNode().id(), null, null));
      }
    }
    Map<String, List<String>> successors = new HashMap<>();
    Map<String, Integer> depCount = new HashMap<>();
    for (Map.Entry<String, Set<String>> e : counted.entrySet()) {
      depCount.put(e.getKey(), e.getValue().size());
      for (String from : e.getValue()) {
        successors.computeIfAbsent(from, k -> new ArrayList<>()).add(e.getKey());
      }
    }
    Map<String, List<Incoming>> frozen = new HashMap<>();
    incoming.forEach((k, v) -> frozen.put(k, List.copyOf(v)));
    Map<String, List<String>> frozenSucc = new HashMap<>();
    successors.forEach((k, v) -> frozenSucc.put(k, List.copyOf(v)));
    return new ExecGraph(units, Collections.unmodifiableMap(frozen), Collections.unmodifiableMap(frozenSucc),
        Collections.unmodifiableMap(depCount), Collections.unmodifiableMap(bodies), entry);
  }
}
