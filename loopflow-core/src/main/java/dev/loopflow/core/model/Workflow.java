package dev.loopflow.core.model;

import dev.loopflow.core.expr.Template;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A loaded and validated workflow. {@code source} is the text it was loaded from (null when built in code);
 * {@code blocks} keeps top-level sections that extensions read (e.g. {@code mock}).
 */
public record Workflow(String name, String description, String file, String source, Map<String, InputSpec> inputs,
    Map<String, Object> defaults, Budget budget, Limits limits, List<Node> nodes, List<Edge> edges,
    Template output, Map<String, Object> blocks, Map<String, StateMerge> stateMerge) {

  public Workflow {
    stateMerge = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(stateMerge));
    inputs = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(inputs));
    defaults = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(defaults));
    blocks = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(blocks));
    nodes = List.copyOf(nodes);
    edges = List.copyOf(edges);
  }

  /** How a state key is merged; REPLACE unless declared otherwise. */
  public StateMerge merge(String key) {
    return stateMerge.getOrDefault(key, StateMerge.REPLACE);
  }

  public Node node(String id) {
    for (Node n : nodes) {
      if (n.id().equals(id)) {
        return n;
      }
    }
    return null;
  }
}
