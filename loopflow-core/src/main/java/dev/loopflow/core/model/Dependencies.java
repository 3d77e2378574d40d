package dev.loopflow.core.model;

import java.util.ArrayList;
import java.util.List;

/**
 * The one dependency rule of a graph level. Dependencies come from forward edges and {@code depends_on}; a level
 * that declares neither runs its nodes in listed order (a while_loop's body always does; a loop_group's body is
 * ordered by {@code depends_on} alone). Loop edges add no dependency (they repeat a region), and
 * edges touching {@code __start__} or {@code __end__} only mark roots and leaves. The loader's cycle check, the
 * execution plan and the drawn graph all read dependencies from here.
 */
public final class Dependencies {
  private Dependencies() {}

  /** The forward dependencies of a level, as edges (a {@code depends_on} entry becomes an unconditional edge). */
  public static List<Edge> of(List<Node> nodes, List<Edge> edges) {
    boolean declared = nodes.stream().anyMatch(n -> !n.dependsOn().isEmpty())
        || edges.stream().anyMatch(e -> !e.isLoop());
    if (!declared) {
      return listedOrder(nodes);
    }
    List<Edge> deps = dependsOnOnly(nodes);
    for (Edge e : edges) {
      if (!e.isLoop() && !e.from().equals("__start__") && !e.to().equals("__end__")) {
        deps.add(e);
      }
    }
    return deps;
  }

  /** A loop_group's body: only {@code depends_on} orders it; nodes that declare none start together. */
  public static List<Edge> dependsOnOnly(List<Node> nodes) {
    List<Edge> deps = new ArrayList<>();
    for (Node n : nodes) {
      for (String d : n.dependsOn()) {
        deps.add(Edge.forward(d, n.id()));
      }
    }
    return deps;
  }

  /** A level that runs in listed order: each node depends on the one before it (a while_loop's body). */
  public static List<Edge> listedOrder(List<Node> nodes) {
    List<Edge> deps = new ArrayList<>();
    for (int i = 1; i < nodes.size(); i++) {
      deps.add(Edge.forward(nodes.get(i - 1).id(), nodes.get(i).id()));
    }
    return deps;
  }
}
