package dev.loopflow.core.graph;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * A node of the drawn graph.
 *
 * @param key unique in the graph: the node id at the top level, {@code loop/child} in a nested body; edges and
 *     {@code parent} refer to keys
 * @param id the node id as written (for the synthetic roles, {@code __start__}, {@code __end__}, {@code $until},
 *     {@code gate})
 * @param title what to show; the id for workflow nodes
 * @param kind the node's kind ({@code llm}, {@code shell}, {@code loop_group}, ...); null for start and end
 * @param parent the key of the innermost container holding the node; null at the top
 * @param path the match path: the path of the node's journaled events and executions with every {@code [k]}
 *     iteration suffix removed ({@link WorkflowGraph#matchPath}); null for start and end, which never run
 * @param loop for a loop node, its construct and bound; null otherwise
 * @param role what the node stands for
 */
public record GraphNode(String key, String id, String title, String kind, String parent, String path, Loop loop,
    Role role) implements GraphElement {
  public GraphNode {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(title, "title");
    Objects.requireNonNull(role, "role");
  }

  /** A loop node's construct ({@code loop}, {@code while_loop}, {@code loop_group}, {@code iterator}) and bound. */
  public record Loop(String construct, Integer max) {
    Map<String, Object> toJson() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("construct", construct);
      m.put("max", max);
      return m;
    }
  }

  /**
   * What a graph node stands for. Besides the workflow's own nodes: the start and end markers that edges from
   * {@code __start__} and to {@code __end__} name, and two steps a {@code loop_group} takes between its passes,
   * journaled at positions of their own: its {@code until_command} ({@code <group>[k].$until}) and the pause of an
   * interactive group ({@code <group>[k].gate}). Those two have no edges.
   */
  public enum Role {
    NODE, START, END, UNTIL_COMMAND, GATE;

    /** The name in JSON. */
    public String jsonName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("key", key);
    m.put("id", id);
    m.put("title", title);
    m.put("kind", kind);
    m.put("parent", parent);
    m.put("path", path);
    m.put("loop", loop == null ? null : loop.toJson());
    m.put("role", role.jsonName());
    return m;
  }
}
