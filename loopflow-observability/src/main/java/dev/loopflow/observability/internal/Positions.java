package dev.loopflow.observability.internal;

import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.model.RestartPolicy;
import java.util.List;

/** Where a position sits in a run's tree: the loop pass that holds it, and whether it is a top-level stage. */
final class Positions {
  private Positions() {}

  /** The key of the loop whose pass holds {@code p}, or null for a position at the top level. */
  static String enclosingLoop(NodePosition p) {
    List<NodePosition.LoopFrame> loops = p.loops();
    if (loops.isEmpty()) {
      return null;
    }
    NodePosition.LoopFrame last = loops.get(loops.size() - 1);
    return new NodePosition(loops.subList(0, loops.size() - 1), last.loopId()).path();
  }

  /** The key of the pass that holds {@code p}, or null at the top level. */
  static String enclosingPass(NodePosition p) {
    String loop = enclosingLoop(p);
    return loop == null ? null : pass(loop, p.loops().get(p.loops().size() - 1).iteration());
  }

  static String pass(String loopKey, int iteration) {
    return loopKey + "#" + iteration;
  }

  /** Whether {@code p} is the restart loop of a workflow with a restart policy (a pipeline's iterations). */
  static boolean isRestartLoop(NodePosition p) {
    return p != null && p.loops().isEmpty() && RestartPolicy.LOOP_ID.equals(p.nodeId());
  }

  /**
   * Whether {@code p} is a stage: a node of the restart loop's passes, the unit a restart policy restarts (a
   * pipeline's stages, or the top-level nodes of a graph with a restart policy).
   */
  static boolean isStage(NodePosition p, RestartPolicy policy) {
    return policy != null && p != null && p.loops().size() == 1
        && RestartPolicy.LOOP_ID.equals(p.loops().get(0).loopId());
  }
}
