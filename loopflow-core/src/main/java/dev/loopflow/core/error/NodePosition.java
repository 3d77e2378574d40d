package dev.loopflow.core.error;

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
    int n = loops.size();
    if (n == 0) {
      return String.valueOf(nodeId);
    }
    // Sized up front (ids, brackets, dot and up to 11 characters of iteration per loop): built once, never grown.
    int length = String.valueOf(nodeId).length();
    for (int i = 0; i < n; i++) {
      length += String.valueOf(loops.get(i).loopId()).length() + 14;
    }
    StringBuilder sb = new StringBuilder(length);
    for (int i = 0; i < n; i++) {
      LoopFrame f = loops.get(i);
      sb.append(f.loopId()).append('[').append(f.iteration()).append("].");
    }
    return sb.append(nodeId).toString();
  }

  @Override
  public String toString() {
    return path();
  }
}
