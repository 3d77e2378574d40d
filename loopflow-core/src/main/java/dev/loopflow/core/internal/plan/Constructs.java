package dev.loopflow.core.internal.plan;

import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.LoopConfig;
import dev.loopflow.core.model.Node;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

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
    Map<String, Integer> index = new HashMap<>();
    for (int i = 0; i < nodes.size(); i++) {
      index.putIfAbsent(nodes.get(i).id(), i);
    }
    Map<String, Integer> rank = ranks(nodes, out, in);
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
      String exit = pair.isEmpty() ? null : pair;
      if (exit == null) {
        // The markers reached before any other marker, less those another of them leads to: the nearest ones are
        // this loop's candidates. Each search stops where it can no longer matter (at markers; past the last
        // candidate in topological order), so a long chain of loops is not searched to its end once per loop.
        Set<String> first = new LinkedHashSet<>();
        for (String id : reach(n.id(), out, id -> isMarker(byId.get(id), marker), null)) {
          if (isMarker(byId.get(id), marker)) {
            first.add(id);
          }
        }
        int last = Integer.MIN_VALUE;
        for (String c : first) {
          last = Math.max(last, rank.getOrDefault(c, Integer.MAX_VALUE));
        }
        Set<String> behind = new HashSet<>();
        for (String c : first) {
          behind.addAll(reach(c, out, id -> false, bound(rank, last, true)));
        }
        Set<String> near = new LinkedHashSet<>();
        for (String c : first) {
          if (!behind.contains(c)) {
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
      } else if (!reach(n.id(), out, id -> false, bound(rank, rank.getOrDefault(exit, Integer.MAX_VALUE), true))
              .contains(exit)) {
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
      String stop = exit;
      Set<String> body = new LinkedHashSet<>(reach(n.id(), out, stop::equals, null));
      // Only the part of the exit's downstream that can still meet the body matters.
      int last = Integer.MIN_VALUE;
      for (String b : body) {
        last = Math.max(last, rank.getOrDefault(b, Integer.MAX_VALUE));
      }
      body.removeAll(reach(exit, out, id -> false, bound(rank, last, true)));
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
      found.add(new Construct(n.id(), null, n, exit, order(span, index), order(body, index)));
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
      // A cycle region lies between the target and the source in topological order: neither search goes past.
      Set<String> region = new LinkedHashSet<>(reach(e.to(), out, id -> false,
          bound(rank, rank.getOrDefault(e.from(), Integer.MAX_VALUE), true)));
      region.add(e.to());
      Set<String> back = reach(e.from(), in, id -> false,
          bound(rank, rank.getOrDefault(e.to(), Integer.MIN_VALUE), false));
      back.add(e.from());
      region.retainAll(back);
      if (!region.contains(e.from())) {
        issues.add(new Issue(e, "loop edge " + e.from() + " -> " + e.to() + " goes forward: '" + e.from()
            + "' is not reachable from '" + e.to() + "' by forward edges, so there is no cycle to repeat"));
        continue;
      }
      Set<String> r = order(region, index);
      found.add(new Construct(e.from() + "->" + e.to(), e, null, null, r, r));
    }
    // Nesting: spans must be disjoint or one inside the other's inner set. Only constructs that share a node with
    // this one can break the rule, so only those are compared (in the order they were accepted).
    List<Construct> ok = new ArrayList<>();
    Map<String, List<Integer>> okByNode = new HashMap<>();
    for (Construct c : found) {
      boolean bad = false;
      TreeSet<Integer> sharing = new TreeSet<>();
      for (String id : c.span()) {
        sharing.addAll(okByNode.getOrDefault(id, List.of()));
      }
      for (int k : sharing) {
        Construct o = ok.get(k);
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
        for (String id : c.span()) {
          okByNode.computeIfAbsent(id, x -> new ArrayList<>()).add(ok.size());
        }
        ok.add(c);
      }
    }
    return ok;
  }

  private static String describe(Construct c) {
    return c.loopEdge() != null ? "loop edge " + c.loopEdge().from() + " -> " + c.loopEdge().to() + " "
        + c.span() : c.loopNode().kind() + " '" + c.id() + "' " + c.inner();
  }

  private static boolean isMarker(Node m, String kind) {
    return m != null && m.body() instanceof Node.Marker && m.kind().equals(kind);
  }

  /** The node ids of {@code ids}, in declaration order (ids that name no node are left out). */
  private static Set<String> order(Set<String> ids, Map<String, Integer> index) {
    List<String> known = new ArrayList<>();
    for (String id : ids) {
      if (index.containsKey(id)) {
        known.add(id);
      }
    }
    known.sort(Comparator.comparingInt(index::get));
    return new LinkedHashSet<>(known);
  }

  /**
   * A node's position in a topological order of the forward graph. Empty when the graph has a cycle (reported
   * elsewhere): then no search is cut short.
   */
  private static Map<String, Integer> ranks(List<Node> nodes, Map<String, List<String>> out,
      Map<String, List<String>> in) {
    Map<String, Integer> pending = new HashMap<>();
    ArrayDeque<String> ready = new ArrayDeque<>();
    Set<String> all = new LinkedHashSet<>();
    nodes.forEach(n -> all.add(n.id()));
    all.addAll(out.keySet());
    all.addAll(in.keySet());
    for (String id : all) {
      int k = in.getOrDefault(id, List.of()).size();
      pending.put(id, k);
      if (k == 0) {
        ready.add(id);
      }
    }
    Map<String, Integer> rank = new HashMap<>();
    while (!ready.isEmpty()) {
      String x = ready.poll();
      rank.put(x, rank.size());
      for (String y : out.getOrDefault(x, List.of())) {
        if (pending.merge(y, -1, Integer::sum) == 0) {
          ready.add(y);
        }
      }
    }
    return rank.size() == all.size() ? rank : Map.of();
  }

  /**
   * Which ids a search may enter: with a topological order, those at or before {@code limit} (forward searches)
   * or at or after it (backward ones), since nothing past it can lead back; null (everything) without an order.
   */
  private static Predicate<String> bound(Map<String, Integer> rank, int limit, boolean forward) {
    if (rank.isEmpty()) {
      return null;
    }
    return forward ? id -> rank.getOrDefault(id, Integer.MIN_VALUE) <= limit
        : id -> rank.getOrDefault(id, Integer.MAX_VALUE) >= limit;
  }

  /**
   * The ids reachable from {@code from} (not itself unless on a cycle) over {@code adj}. A node that {@code stop}
   * holds for is included but not searched past; one {@code within} refuses (when given) is neither.
   */
  private static Set<String> reach(String from, Map<String, List<String>> adj,
      Predicate<String> stop, Predicate<String> within) {
    Set<String> seen = new LinkedHashSet<>();
    ArrayDeque<String> q = new ArrayDeque<>();
    q.add(from);
    while (!q.isEmpty()) {
      String x = q.poll();
      for (String y : adj.getOrDefault(x, List.of())) {
        if ((within == null || within.test(y)) && seen.add(y) && !stop.test(y)) {
          q.add(y);
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
