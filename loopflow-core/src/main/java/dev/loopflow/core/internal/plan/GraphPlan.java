package dev.loopflow.core.internal.plan;

import dev.loopflow.core.expr.Condition;
import dev.loopflow.core.model.Dependencies;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.model.Workflow;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Forward dependencies of a workflow's nodes, by the one rule in {@link Dependencies}, as a graph the loader
 * checks for cycles.
 */
public final class GraphPlan {
  /** An incoming dependency; {@code when} and {@code branch} are null for unconditional ones. */
  public record Incoming(String from, Condition when, String branch) {}

  private final List<String> order;
  private final Map<String, List<Incoming>> incoming;
  private final Map<String, List<String>> successors;

  private GraphPlan(List<String> order, Map<String, List<Incoming>> incoming, Map<String, List<String>> successors) {
    this.order = order;
    this.incoming = incoming;
    this.successors = successors;
  }

  public static GraphPlan of(List<Node> nodes, List<Edge> edges) {
    List<String> order = new ArrayList<>();
    Map<String, List<Incoming>> in = new LinkedHashMap<>();
    // Successor sets keep insertion order and answer "already there?" in constant time: a list's contains made a
    // wide fan-out quadratic.
    Map<String, Set<String>> out = new HashMap<>();
    for (Node n : nodes) {
      order.add(n.id());
      in.put(n.id(), new ArrayList<>());
      out.put(n.id(), new LinkedHashSet<>());
    }
    for (Edge e : Dependencies.of(nodes, edges)) {
      if (in.containsKey(e.to()) && out.containsKey(e.from())) {
        add(in, out, e.from(), e.to(), e.when(), e.branch());
      }
    }
    Map<String, List<Incoming>> frozenIn = new LinkedHashMap<>();
    in.forEach((k, v) -> frozenIn.put(k, List.copyOf(v)));
    Map<String, List<String>> frozenOut = new HashMap<>();
    out.forEach((k, v) -> frozenOut.put(k, List.copyOf(v)));
    return new GraphPlan(List.copyOf(order), Collections.unmodifiableMap(frozenIn),
        Collections.unmodifiableMap(frozenOut));
  }

  public static GraphPlan of(Workflow wf) {
    return of(wf.nodes(), wf.edges());
  }

  private static void add(Map<String, List<Incoming>> in, Map<String, Set<String>> out, String from, String to,
      Condition when, String branch) {
    in.get(to).add(new Incoming(from, when, branch));
    out.get(from).add(to);
  }

  public List<String> order() {
    return order;
  }

  public List<Incoming> incoming(String id) {
    return incoming.getOrDefault(id, List.of());
  }

  public List<String> successors(String id) {
    return successors.getOrDefault(id, List.of());
  }

  /** A dependency cycle as a list of ids with the first repeated at the end, or an empty list. */
  public List<String> findCycle() {
    Map<String, Integer> color = new HashMap<>();
    for (String start : order) {
      if (color.getOrDefault(start, 0) != 0) {
        continue;
      }
      List<String> stack = new ArrayList<>();
      List<Integer> next = new ArrayList<>();
      stack.add(start);
      next.add(0);
      color.put(start, 1);
      while (!stack.isEmpty()) {
        String top = stack.get(stack.size() - 1);
        List<String> succ = successors(top);
        int i = next.get(next.size() - 1);
        if (i < succ.size()) {
          next.set(next.size() - 1, i + 1);
          String s = succ.get(i);
          int c = color.getOrDefault(s, 0);
          if (c == 1) {
            List<String> cycle = new ArrayList<>(stack.subList(stack.indexOf(s), stack.size()));
            cycle.add(s);
            return cycle;
          }
          if (c == 0) {
            color.put(s, 1);
            stack.add(s);
            next.add(0);
          }
        } else {
          color.put(top, 2);
          stack.remove(stack.size() - 1);
          next.remove(next.size() - 1);
        }
      }
    }
    return List.of();
  }
}
