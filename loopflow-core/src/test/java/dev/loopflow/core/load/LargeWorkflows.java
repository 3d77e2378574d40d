package dev.loopflow.core.load;

import java.util.function.IntFunction;

/**
 * Generated workflows of a given node count, in the shapes that made loading quadratic: a chain, a wide fan-out, a
 * wide fan-in, and many small loops of each form (loop_group bodies, loop edges, loop/exit node pairs). Shared by the
 * tests and by {@link LoadTimings}, the standalone measurement.
 */
final class LargeWorkflows {
  private LargeWorkflows() {}

  enum Shape {
    CHAIN(LargeWorkflows::chain),
    FAN_OUT(LargeWorkflows::fanOut),
    FAN_IN(LargeWorkflows::fanIn),
    LOOP_GROUPS(LargeWorkflows::loopGroups),
    LOOP_EDGES(LargeWorkflows::loopEdges),
    LOOP_NODES(LargeWorkflows::loopNodes);

    final IntFunction<String> source;

    Shape(IntFunction<String> source) {
      this.source = source;
    }
  }

  /** n transforms, each reading the one before, joined by an edge list. */
  static String chain(int n) {
    StringBuilder sb = new StringBuilder("name: chain\nnodes:\n");
    for (int i = 0; i < n; i++) {
      sb.append("  - {id: n").append(i).append(", type: transform, template: \"")
          .append(i == 0 ? "start" : "{{ n" + (i - 1) + ".output }} x").append("\"}\n");
    }
    sb.append("edges:\n");
    for (int i = 1; i < n; i++) {
      sb.append("  - {from: n").append(i - 1).append(", to: n").append(i).append("}\n");
    }
    return sb.toString();
  }

  /** One root and n - 1 transforms depending on it. */
  static String fanOut(int n) {
    StringBuilder sb = new StringBuilder("name: fan\nnodes:\n  - {id: root, type: transform, template: r}\n");
    for (int i = 0; i < n - 1; i++) {
      sb.append("  - {id: c").append(i).append(", type: transform, depends_on: [root], template: \"{{ root.output }} ")
          .append(i).append("\"}\n");
    }
    return sb.toString();
  }

  /** n - 1 transforms and one that depends on all of them. */
  static String fanIn(int n) {
    StringBuilder sb = new StringBuilder("name: fanin\nnodes:\n");
    for (int i = 0; i < n - 1; i++) {
      sb.append("  - {id: c").append(i).append(", type: transform, template: \"").append(i).append("\"}\n");
    }
    sb.append("  - id: sink\n    type: transform\n    template: \"{{ c0.output }}\"\n    depends_on:\n");
    for (int i = 0; i < n - 1; i++) {
      sb.append("      - c").append(i).append('\n');
    }
    return sb.toString();
  }

  /** n / 4 loop_groups of three nodes each, one after the other. */
  static String loopGroups(int n) {
    StringBuilder sb = new StringBuilder("name: loops\nnodes:\n");
    for (int i = 0; i < n / 4; i++) {
      sb.append("  - id: g").append(i).append('\n');
      if (i > 0) {
        sb.append("    depends_on: [g").append(i - 1).append("]\n");
      }
      sb.append("    loop_group:\n      max_iterations: 3\n      nodes:\n")
          .append("        - {id: a").append(i).append(", type: transform, template: a}\n")
          .append("        - {id: b").append(i).append(", type: transform, depends_on: [a").append(i)
          .append("], template: \"{{ a").append(i).append(".output }}\"}\n")
          .append("        - {id: c").append(i).append(", type: transform, depends_on: [b").append(i)
          .append("], template: \"{{ b").append(i).append(".output }}\"}\n")
          .append("      until: \"{{ c").append(i).append(".output == 'a' }}\"\n");
    }
    return sb.toString();
  }

  /** A chain of n transforms with a loop edge over every four. */
  static String loopEdges(int n) {
    StringBuilder sb = new StringBuilder("name: edgeloops\nnodes:\n");
    for (int i = 0; i < n; i++) {
      sb.append("  - {id: n").append(i).append(", type: transform, template: x}\n");
    }
    sb.append("edges:\n");
    for (int i = 1; i < n; i++) {
      sb.append("  - {from: n").append(i - 1).append(", to: n").append(i).append("}\n");
    }
    for (int i = 0; i + 3 < n; i += 4) {
      sb.append("  - {from: n").append(i + 3).append(", to: n").append(i).append(", type: loop, maxIterations: 2}\n");
    }
    return sb.toString();
  }

  /** n / 4 graph-form loops (loop, two body nodes, exit), one after the other; exits paired by position. */
  static String loopNodes(int n) {
    StringBuilder nodes = new StringBuilder("name: nodeloops\nnodes:\n");
    StringBuilder edges = new StringBuilder("edges:\n");
    for (int i = 0; i < n / 4; i++) {
      nodes.append("  - {id: l").append(i).append(", type: loop, input: x, maxIterations: 2, exitCondition: ")
          .append("max_iterations}\n")
          .append("  - {id: a").append(i).append(", type: transform, template: \"{{ loop.input }}\"}\n")
          .append("  - {id: b").append(i).append(", type: transform, template: \"{{ a").append(i).append(".output }}\"}\n")
          .append("  - {id: l").append(i).append("_exit, type: exit}\n");
      if (i > 0) {
        edges.append("  - {from: l").append(i - 1).append("_exit, to: l").append(i).append("}\n");
      }
      edges.append("  - {from: l").append(i).append(", to: a").append(i).append("}\n")
          .append("  - {from: a").append(i).append(", to: b").append(i).append("}\n")
          .append("  - {from: b").append(i).append(", to: l").append(i).append("_exit}\n");
    }
    return nodes.append(edges).toString();
  }
}
