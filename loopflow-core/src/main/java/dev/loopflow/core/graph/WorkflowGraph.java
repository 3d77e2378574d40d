package dev.loopflow.core.graph;

import dev.loopflow.core.model.RestartPolicy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One description of what a workflow looks like as a graph, for everything that draws it ({@code loopflow graph},
 * the web UI) or places a run on it. Every loop is a loop: the bodies of {@code while_loop}, {@code loop_group},
 * {@code loop} + {@code exit}, {@code iterator} + {@code aggregator} and a loop edge's region are
 * {@link GraphContainer}s, a loop going round again is a {@link GraphEdge.Kind#LOOP_BACK} edge with its bound, and
 * a restart policy's back edges are {@link GraphEdge.Kind#RESTART} edges.
 *
 * <p><b>Placing a run on the graph.</b> Every journaled event and node execution that concerns a node carries a
 * path such as {@code fix_until_pass[2].implement}. Remove every {@code [k]} ({@link #matchPath}) and look the
 * result up: a {@link GraphNode} with that {@code path} if there is one, else a {@link GraphContainer} (the events of
 * a loop edge, which has no node of its own), else the {@link GraphRestart} ({@code restart}, the restart loop's own
 * events). An execution holding restart decisions ({@code restart[k].<node>~restart}) belongs to the node it was
 * decided after (or to the loop edge's container, when it was decided after a loop edge's region settled).
 * {@link #at} does exactly this. Node paths are unique, and so are container paths.
 *
 * <p>Ids and titles are data: they are carried as written, never escaped or cut (renderers do that for their
 * format), and they are only ever values in {@link #toJson()}, never keys, so no id ({@code __proto__},
 * {@code constructor}) can change the JSON's shape.
 */
public final class WorkflowGraph {
  private static final Pattern ITERATION = Pattern.compile("\\[\\d+]");

  private final String workflow;
  private final List<GraphNode> nodes;
  private final List<GraphContainer> containers;
  private final List<GraphEdge> edges;
  private final GraphRestart restart;
  private final Map<String, GraphNode> nodesByPath = new HashMap<>();
  private final Map<String, GraphContainer> containersByPath = new HashMap<>();

  WorkflowGraph(String workflow, List<GraphNode> nodes, List<GraphContainer> containers, List<GraphEdge> edges,
      GraphRestart restart) {
    this.workflow = workflow;
    this.nodes = List.copyOf(nodes);
    this.containers = List.copyOf(containers);
    this.edges = List.copyOf(edges);
    this.restart = restart;
    for (GraphNode n : this.nodes) {
      if (n.path() != null && nodesByPath.put(n.path(), n) != null) {
        throw new IllegalStateException("two graph nodes have the path '" + n.path() + "'");
      }
    }
    for (GraphContainer c : this.containers) {
      if (containersByPath.put(c.path(), c) != null) {
        throw new IllegalStateException("two graph containers have the path '" + c.path() + "'");
      }
    }
  }

  /**
   * A graph of these parts; the engine makes a workflow's ({@code Loopflow.graph}). Refuses two nodes, or two
   * containers, with one path.
   */
  public static WorkflowGraph of(String workflow, List<GraphNode> nodes, List<GraphContainer> containers,
      List<GraphEdge> edges, GraphRestart restart) {
    return new WorkflowGraph(workflow, nodes, containers, edges, restart);
  }

  /** The workflow's name; null when it has none. */
  public String workflow() {
    return workflow;
  }

  /**
   * Nodes in drawing order: start (when an edge names {@code __start__}), each level's nodes in definition order
   * with a nested body's nodes right after its loop node, end last.
   */
  public List<GraphNode> nodes() {
    return nodes;
  }

  /** Containers, each after the one holding it. */
  public List<GraphContainer> containers() {
    return containers;
  }

  public List<GraphEdge> edges() {
    return edges;
  }

  /** The restart loop; null when the workflow has no restart policy. */
  public GraphRestart restart() {
    return restart;
  }

  /**
   * A journaled path with every iteration suffix removed: {@code restart[1].fix[2].implement} gives
   * {@code restart.fix.implement}. Node ids hold only letters, digits, '_' and '-', so a {@code [k]} is never part
   * of an id.
   */
  public static String matchPath(String path) {
    return ITERATION.matcher(path).replaceAll("");
  }

  /** The node whose match path is {@code matchPath}. */
  public Optional<GraphNode> node(String matchPath) {
    return Optional.ofNullable(nodesByPath.get(matchPath));
  }

  /** The container whose match path is {@code matchPath}. */
  public Optional<GraphContainer> container(String matchPath) {
    return Optional.ofNullable(containersByPath.get(matchPath));
  }

  /**
   * The element a journaled event's or node execution's {@code path} belongs to (see the class comment); empty
   * when it names nothing of this workflow (a run of another version of the file).
   */
  public Optional<GraphElement> at(String path) {
    String p = matchPath(path);
    GraphElement e = nodesByPath.get(p);
    if (e == null) {
      e = containersByPath.get(p);
    }
    if (e == null && restart != null && p.equals(restart.path())) {
      e = restart;
    }
    if (e == null) {
      int dot = p.lastIndexOf('.');
      String after = RestartPolicy.decidedAfter(RestartPolicy.DECISIONS_KIND, p.substring(dot + 1));
      if (after != null) {
        String decidedAt = p.substring(0, dot + 1) + after;
        e = nodesByPath.containsKey(decidedAt) ? nodesByPath.get(decidedAt) : containersByPath.get(decidedAt);
      }
    }
    return Optional.ofNullable(e);
  }

  /**
   * The JSON form: {@code {"workflow", "nodes": [...], "containers": [...], "edges": [...], "restart": {...} |
   * null}}, with the fields of each record (snake_case) and nulls written out.
   */
  public Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("workflow", workflow);
    m.put("nodes", list(nodes.stream().map(GraphNode::toJson).toList()));
    m.put("containers", list(containers.stream().map(GraphContainer::toJson).toList()));
    m.put("edges", list(edges.stream().map(GraphEdge::toJson).toList()));
    m.put("restart", restart == null ? null : restart.toJson());
    return Collections.unmodifiableMap(m);
  }

  private static List<Object> list(List<Map<String, Object>> items) {
    return Collections.unmodifiableList(new ArrayList<>(items));
  }

  @Override
  public String toString() {
    return "WorkflowGraph[" + workflow + ", " + nodes.size() + " nodes, " + containers.size() + " containers, "
        + edges.size() + " edges]";
  }
}
