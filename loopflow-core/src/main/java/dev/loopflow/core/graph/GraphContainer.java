package dev.loopflow.core.graph;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The body of one loop, drawn as a box: the nested body of a {@code while_loop} or {@code loop_group}, the nodes
 * between a {@code loop} and its {@code exit} or an {@code iterator} and its {@code aggregator}, or the cycle
 * region a loop edge repeats.
 *
 * @param key unique in the graph: {@code [<loop node's key>]}, or {@code [<from>-><to>]} (with the level's key
 *     prefix) for a loop edge's region
 * @param node the key of the loop node; null for a loop edge's region, which has none
 * @param title what to show, e.g. {@code fix body (loop_group, max 5)}
 * @param construct {@code loop}, {@code while_loop}, {@code loop_group}, {@code iterator} or {@code loop_edge}
 * @param max the bound on passes; null for an iterator (one pass per item)
 * @param parent the key of the enclosing container; null at the top
 * @param path the match path of the loop's own events ({@code loop.started}, {@code loop.iteration}, ...); for a
 *     loop node the same as the node's path, for a loop edge {@code <from>-><to>} under the enclosing loops. The
 *     paths of the nodes inside start with it and a dot.
 */
public record GraphContainer(String key, String node, String title, String construct, Integer max, String parent,
    String path) implements GraphElement {
  /** The construct name of a loop edge's region, as its loop events name it. */
  public static final String LOOP_EDGE = "loop_edge";

  public GraphContainer {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(title, "title");
    Objects.requireNonNull(construct, "construct");
    Objects.requireNonNull(path, "path");
  }

  Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("key", key);
    m.put("node", node);
    m.put("title", title);
    m.put("construct", construct);
    m.put("max", max);
    m.put("parent", parent);
    m.put("path", path);
    return m;
  }
}
