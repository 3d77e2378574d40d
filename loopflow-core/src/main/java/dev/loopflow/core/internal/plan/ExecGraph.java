package dev.loopflow.core.internal.plan;

import dev.loopflow.core.expr.Condition;
import dev.loopflow.core.model.Dependencies;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.LoopConfig;
import dev.loopflow.core.model.Node;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

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
 * load error reported by the loader through construct discovery ({@link Constructs}).
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
    return level(new LinkedHashSet<>(byId.keySet()), null, null,
        new Whole(byId, deps, Constructs.find(nodes, edges, new ArrayList<>())));
  }

  /**
   * What every level of one plan shares, indexed once so that building a level costs what the level holds, not
   * what the whole workflow holds (a workflow of many small loops would otherwise be quadratic to plan).
   */
  private static final class Whole {
    final Map<String, Node> byId;
    /** The dependencies into each node, in the order of the dependency list. */
    final Map<String, List<Edge>> depsTo = new HashMap<>();
    /** The constructs, in discovery order, and the positions of those whose span holds each node. */
    final List<Constructs.Construct> all;
    final Map<String, List<Integer>> spanning = new HashMap<>();

    Whole(Map<String, Node> byId, List<Edge> deps, List<Constructs.Construct> all) {
      this.byId = byId;
      this.all = all;
      for (Edge e : deps) {
        depsTo.computeIfAbsent(e.to(), k -> new ArrayList<>()).add(e);
      }
      for (int i = 0; i < all.size(); i++) {
        for (String id : all.get(i).span()) {
          spanning.computeIfAbsent(id, k -> new ArrayList<>()).add(i);
        }
      }
    }

    List<Edge> into(String id) {
      return depsTo.getOrDefault(id, List.of());
    }
  }

  /**
   * {@code entry}: the loop node whose body this level is; {@code self}: the region whose body this level is (it
   * must not be found again inside itself).
   */
  private static ExecGraph level(Set<String> members, String entry, String self, Whole w) {
    Map<String, Node> byId = w.byId;
    // The constructs inside this level: those whose span lies in it (each holds a member, so they are found
    // through the members), in discovery order.
    TreeSet<Integer> inside = new TreeSet<>();
    for (String id : members) {
      for (int i : w.spanning.getOrDefault(id, List.of())) {
        Constructs.Construct c = w.all.get(i);
        if (!inside.contains(i) && members.containsAll(c.span())) {
          inside.add(i);
        }
      }
    }
    // Maximal ones: inside no other one's inner set. Constructs nest or are disjoint, so one that holds c in its
    // inner set also spans c's first node.
    List<Constructs.Construct> here = new ArrayList<>();
    for (int i : inside) {
      Constructs.Construct c = w.all.get(i);
      if (c.id().equals(entry) || c.id().equals(self)) {
        continue;
      }
      boolean maximal = true;
      for (int j : w.spanning.getOrDefault(c.span().iterator().next(), List.of())) {
        Constructs.Construct o = w.all.get(j);
        if (o != c && !o.id().equals(self) && inside.contains(j) && o.inner().containsAll(c.span())) {
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
    Map<String, Constructs.Construct> regionOf = new HashMap<>();
    Set<String> exitsOf = new HashSet<>();
    for (Constructs.Construct c : here) {
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
    Map<Node, Constructs.Construct> constructOfLoop = new IdentityHashMap<>();
    for (Constructs.Construct c : here) {
      if (c.loopNode() != null) {
        constructOfLoop.putIfAbsent(c.loopNode(), c);
      }
    }
    List<Unit> units = new ArrayList<>();
    Map<String, Body> bodies = new HashMap<>();
    Set<String> placedRegions = new HashSet<>();
    for (String id : members) {
      String o = owner.get(id);
      if (o.equals(id)) {
        Node n = byId.get(id);
        units.add(new NodeUnit(n));
        if (n.body() instanceof Node.Loop loop) {
          Constructs.Construct c = constructOfLoop.get(n);
          if (c != null) {
            ExecGraph g = level(c.inner(), n.id(), null, w);
            List<Incoming> exits = new ArrayList<>();
            for (Edge e : w.into(c.pairId())) {
              if (c.inner().contains(e.from())) {
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
        Constructs.Construct c = regionOf.get(o);
        // The enclosing loop's entry edges stay active inside a region placed directly after the loop node.
        units.add(new RegionUnit(c.id(), c.loopEdge(), level(c.inner(), entry, c.id(), w),
            c.inner()));
      }
    }
    Map<String, List<Incoming>> incoming = new LinkedHashMap<>();
    Map<String, Set<String>> counted = new LinkedHashMap<>();
    Map<String, Unit> unitOf = new HashMap<>();
    for (Unit u : units) {
      unitOf.putIfAbsent(u.id(), u);
      incoming.put(u.id(), new ArrayList<>());
      counted.put(u.id(), new LinkedHashSet<>());
    }
    for (Edge e : levelDeps(members, w)) {
      String toUnit = owner.get(e.to());
      String fromUnit = members.contains(e.from()) ? owner.get(e.from()) : null;
      if (fromUnit != null && fromUnit.equals(toUnit)) {
        continue; // inside one construct: that construct's own level handles it
      }
      Unit u = unitOf.get(toUnit);
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
    for (Constructs.Construct c : here) {
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

  /** The dependencies into this level's members, in the order of the dependency list. */
  private static List<Edge> levelDeps(Set<String> members, Whole w) {
    List<Edge> out = new ArrayList<>();
    for (String id : members) {
      out.addAll(w.into(id));
    }
    // Grouped by target, not in list order: what depends on the order (each node's incoming edges) is kept.
    return out;
  }
}
