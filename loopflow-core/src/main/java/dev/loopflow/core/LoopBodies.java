package dev.loopflow.core;

import dev.loopflow.core.internal.plan.Constructs;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.Node;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The bodies of the graph-form loops of one graph level ({@code loop} + {@code exit}, {@code iterator} +
 * {@code aggregator}), as the scheduler runs them: the nodes between the loop node and its paired marker, plus
 * dead-end branches inside (an evaluator's {@code continue} path). Tools that draw or report a workflow use this
 * so they show the same body the run repeats; the loop node and its marker are not part of the body.
 */
public final class LoopBodies {
  private LoopBodies() {}

  /**
   * Loop node id to its body's node ids (in definition order), for a validated level ({@code nodes} and
   * {@code edges} of a loaded workflow, or a nested body's nodes with no edges). Loop edges are not included: their
   * region is drawn by the edge itself.
   */
  public static Map<String, List<String>> of(List<Node> nodes, List<Edge> edges) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (Constructs.Construct c : Constructs.find(nodes, edges, new ArrayList<>())) {
      if (c.loopNode() != null) {
        out.put(c.loopNode().id(), List.copyOf(c.inner()));
      }
    }
    return out;
  }
}
