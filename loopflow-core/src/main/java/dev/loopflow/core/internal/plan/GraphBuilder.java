package dev.loopflow.core.internal.plan;

import dev.loopflow.core.graph.GraphContainer;
import dev.loopflow.core.graph.GraphEdge;
import dev.loopflow.core.graph.GraphNode;
import dev.loopflow.core.graph.GraphRestart;
import dev.loopflow.core.graph.WorkflowGraph;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.LoopConfig;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.model.RestartPolicy;
import dev.loopflow.core.model.Workflow;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Builds a {@link WorkflowGraph}. Which nodes a loop repeats and where each node sits comes from the workflow's
 * execution plan, the one the engine runs: a level's units, the bodies of its loop nodes and the regions of its
 * loop edges. So a node's path is, by construction, the position the engine journals it at, and the bodies are
 * those of {@link dev.loopflow.core.LoopBodies} (both are built by the same construct discovery).
 *
 * <p>Keys: a node's key is its id at the top level and {@code <loop key>/<id>} in a nested body; the nodes of a
 * graph-form body or a loop edge's region stay on their level, so they keep their level's keys. A container's key
 * is {@code [<loop key>]} or {@code [<level prefix><from>-><to>]}. Ids hold no '/', '[' or '>', so no two keys
 * collide.
 */
public final class GraphBuilder {
  static final String START = "__start__";
  static final String END = "__end__";

  private final List<GraphNode> nodes = new ArrayList<>();
  private final List<GraphContainer> containers = new ArrayList<>();
  private final List<GraphEdge> edges = new ArrayList<>();

  /** Where one node of a level sits: its container, its match path, and the plan level whose unit it is. */
  private record Placement(String container, String path, ExecGraph owner) {}

  private GraphBuilder() {}

  /** The graph of a workflow the engine made, as the engine will run it. */
  public static WorkflowGraph build(Workflow wf) {
    GraphBuilder b = new GraphBuilder();
    RestartPolicy policy = wf.restartPolicy();
    // A restartable workflow runs its top level as the passes of the restart loop: positions restart[k].<node>.
    String top = policy == null ? "" : RestartPolicy.LOOP_ID + ".";
    b.level(wf.nodes(), LoadedWorkflow.planOf(wf), topEdges(wf), "", top, null);
    boolean start = b.edges.stream().anyMatch(e -> e.from().equals(START));
    boolean end = b.edges.stream().anyMatch(e -> e.to().equals(END));
    GraphRestart restart = policy == null ? null : b.restart(wf, policy);
    List<GraphNode> all = new ArrayList<>();
    if (start) {
      all.add(new GraphNode(START, START, "start", null, null, null, null, GraphNode.Role.START));
    }
    all.addAll(b.nodes);
    if (end) {
      all.add(new GraphNode(END, END, "end", null, null, null, null, GraphNode.Role.END));
    }
    return WorkflowGraph.of(wf.name(), all, b.containers, b.edges, restart);
  }

  /** The declared edges as drawn (loop edges, start and end included) plus the engine's dependencies. */
  private static List<Edge> topEdges(Workflow wf) {
    List<Edge> out = new ArrayList<>(wf.edges());
    for (Edge d : wf.dependencies()) {
      if (!wf.edges().contains(d)) {
        out.add(d);
      }
    }
    return out;
  }

  /**
   * One level (the top or a nested body): its containers, then its nodes in definition order, a nested body
   * right after its loop node, then the level's edges.
   */
  private void level(List<Node> levelNodes, ExecGraph plan, List<Edge> drawn, String keyPrefix, String pathPrefix,
      String container) {
    Map<String, Placement> placed = new HashMap<>();
    List<GraphContainer> formed = new ArrayList<>();
    walk(plan, keyPrefix, pathPrefix, container, placed, formed);
    Map<String, Integer> order = new HashMap<>();
    for (int i = 0; i < levelNodes.size(); i++) {
      order.put(keyPrefix + levelNodes.get(i).id(), i);
    }
    // Loop bodies in the order of their loop nodes, then the loop edges' regions (stable among themselves).
    formed.sort(Comparator.comparingInt(c -> c.node() == null ? Integer.MAX_VALUE : order.get(c.node())));
    containers.addAll(formed);
    Set<String> graphForm = new HashSet<>();
    formed.forEach(c -> graphForm.add(c.node()));
    for (Node n : levelNodes) {
      Placement p = placed.get(n.id());
      if (p == null) {
        throw new IllegalStateException("node '" + n.id() + "' is not in the workflow's execution plan");
      }
      String key = keyPrefix + n.id();
      Node.Loop loop = n.body() instanceof Node.Loop l ? l : null;
      nodes.add(new GraphNode(key, n.id(), n.id(), n.kind(), p.container(), p.path(),
          loop == null ? null : new GraphNode.Loop(loop.config().construct(), bound(loop)), GraphNode.Role.NODE));
      if (loop == null) {
        continue;
      }
      if (graphForm.contains(key)) {
        edges.add(new GraphEdge(boxKey(key), key, again(loop), GraphEdge.Kind.LOOP_BACK, bound(loop)));
      } else if (!loop.body().isEmpty()) {
        GraphContainer box = new GraphContainer(boxKey(key), key, title(n, loop), loop.config().construct(),
            bound(loop), p.container(), p.path());
        containers.add(box);
        edges.add(new GraphEdge(key, box.key(), null, GraphEdge.Kind.NEXT, null));
        level(loop.body(), p.owner().body(n.id()).graph(), loop.bodyDependencies(), key + "/", p.path() + ".",
            box.key());
        passSteps(loop, key, p.path(), box.key());
        edges.add(new GraphEdge(box.key(), key, again(loop), GraphEdge.Kind.LOOP_BACK, bound(loop)));
      }
    }
    for (Edge e : drawn) {
      String from = e.from().equals(START) ? START : keyPrefix + e.from();
      String to = e.to().equals(END) ? END : keyPrefix + e.to();
      String condition = e.when() == null ? null : e.when().source();
      if (e.isLoop()) {
        edges.add(new GraphEdge(from, to, condition, GraphEdge.Kind.LOOP_BACK, e.maxIterations()));
      } else if (e.branch() != null) {
        edges.add(new GraphEdge(from, to, e.branch(), GraphEdge.Kind.BRANCH, null));
      } else {
        edges.add(new GraphEdge(from, to, condition, GraphEdge.Kind.NEXT, null));
      }
    }
  }

  /**
   * Places the units of one plan level, descending into graph-form loop bodies and loop edges' regions, which stay
   * on the node list's level but add a loop (and so a path segment) to the positions inside them.
   */
  private void walk(ExecGraph g, String keyPrefix, String pathPrefix, String container,
      Map<String, Placement> placed, List<GraphContainer> formed) {
    for (ExecGraph.Unit u : g.units()) {
      switch (u) {
        case ExecGraph.NodeUnit nu -> {
          Node n = nu.node();
          String path = pathPrefix + n.id();
          placed.put(n.id(), new Placement(container, path, g));
          if (n.body() instanceof Node.Loop loop && graphForm(loop) && g.body(n.id()) != null) {
            String key = boxKey(keyPrefix + n.id());
            formed.add(new GraphContainer(key, keyPrefix + n.id(), title(n, loop), loop.config().construct(),
                bound(loop), container, path));
            walk(g.body(n.id()).graph(), keyPrefix, path + ".", key, placed, formed);
          }
        }
        case ExecGraph.RegionUnit r -> {
          String key = boxKey(keyPrefix + r.id());
          String path = pathPrefix + r.id();
          Edge e = r.edge();
          formed.add(new GraphContainer(key, null, e.from() + " -> " + e.to() + " (loop edge, max "
              + e.maxIterations() + ")", GraphContainer.LOOP_EDGE, e.maxIterations(), container, path));
          walk(r.body(), keyPrefix, path + ".", key, placed, formed);
        }
      }
    }
  }

  /** The steps a loop_group takes between passes, at positions of their own inside each pass. */
  private void passSteps(Node.Loop loop, String key, String path, String box) {
    if (!(loop.config() instanceof LoopConfig.Group g)) {
      return;
    }
    if (g.untilCommand() != null) {
      String id = LoopConfig.Group.UNTIL_COMMAND_ID;
      nodes.add(new GraphNode(key + "/" + id, id, "until", g.untilCommand().kind(), box, path + "." + id, null,
          GraphNode.Role.UNTIL_COMMAND));
    }
    if (g.interactive()) {
      String id = LoopConfig.Group.GATE_ID;
      nodes.add(new GraphNode(key + "/" + id, id, "gate", LoopConfig.Group.GATE_ID, box, path + "." + id, null,
          GraphNode.Role.GATE));
    }
  }

  /**
   * A restart policy's possible back edges: from each node that may request a restart (restart_triggers; when
   * unset, the nodes nothing depends on) to each node it may restart (restartable_stages; when unset, the nodes
   * that depend on nothing) upstream of it.
   */
  private GraphRestart restart(Workflow wf, RestartPolicy p) {
    if (!p.enabled()) {
      return new GraphRestart(false, List.of(), List.of(), p.maxIterations());
    }
    Map<String, List<String>> down = new HashMap<>();
    Set<String> hasUpstream = new HashSet<>();
    for (Edge d : wf.dependencies()) {
      down.computeIfAbsent(d.from(), k -> new ArrayList<>()).add(d.to());
      hasUpstream.add(d.to());
    }
    List<String> ids = wf.nodes().stream().map(Node::id).toList();
    List<String> triggers = !p.restartTriggers().isEmpty() ? p.restartTriggers()
        : ids.stream().filter(id -> !down.containsKey(id)).toList();
    List<String> targets = !p.restartableStages().isEmpty() ? p.restartableStages()
        : ids.stream().filter(id -> !hasUpstream.contains(id)).toList();
    for (String from : triggers) {
      for (String to : targets) {
        if (!from.equals(to) && reaches(down, to, from)) {
          edges.add(new GraphEdge(from, to, "restart", GraphEdge.Kind.RESTART, p.maxIterations()));
        }
      }
    }
    return new GraphRestart(true, targets, triggers, p.maxIterations());
  }

  private static boolean reaches(Map<String, List<String>> down, String from, String to) {
    ArrayDeque<String> todo = new ArrayDeque<>(List.of(from));
    Set<String> seen = new HashSet<>();
    while (!todo.isEmpty()) {
      String n = todo.poll();
      if (n.equals(to)) {
        return true;
      }
      if (seen.add(n)) {
        todo.addAll(down.getOrDefault(n, List.of()));
      }
    }
    return false;
  }

  /** loop + exit and iterator + aggregator: their body is the nodes between them on this level. */
  private static boolean graphForm(Node.Loop loop) {
    return loop.config() instanceof LoopConfig.Refine || loop.config() instanceof LoopConfig.Iterate;
  }

  private static String boxKey(String loopKey) {
    return "[" + loopKey + "]";
  }

  /** The bound on passes; an iterator has none (one pass per item). */
  private static Integer bound(Node.Loop loop) {
    return loop.config() instanceof LoopConfig.Iterate ? null : loop.maxIterations();
  }

  private static String title(Node n, Node.Loop loop) {
    return n.id() + " body (" + n.kind() + ", " + (loop.config() instanceof LoopConfig.Iterate it
        ? "one pass per item, concurrency " + it.concurrency() : "max " + loop.maxIterations()) + ")";
  }

  private static String again(Node.Loop loop) {
    return loop.config() instanceof LoopConfig.Iterate ? "next item" : "next pass";
  }
}
