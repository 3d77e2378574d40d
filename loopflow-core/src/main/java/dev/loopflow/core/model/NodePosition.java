package dev.loopflow.core.model;

import java.util.List;

/**
 * Where a node execution sits in a run: the loops around it (outermost first), each with its iteration, and
 * the node id. Two executions of the same node in different passes have different positions, so nothing that
 * is keyed by position (events, journal rows, results) collides across iterations.
 */
public record NodePosition(List<LoopFrame> loops, String nodeId) {
  public NodePosition {
    loops = List.copyOf(loops);
  }

  public static NodePosition top(String nodeId) {
    return new NodePosition(List.of(), nodeId);
  }

  /** One enclosing loop pass: the loop's node id and the 1-based iteration. */
  public record LoopFrame(String loopId, int iteration) {}

  /** e.g. {@code fix_until_pass[2].implement}; a top-level node is just its id. */
  public String path() {
    StringBuilder sb = new StringBuilder();
    for (LoopFrame f : loops) {
      sb.append(f.loopId()).append('[').append(f.iteration()).append("].");
    }
    return sb.append(nodeId).toString();
  }

  @Override
  public String toString() {
    return path();
  }
}
