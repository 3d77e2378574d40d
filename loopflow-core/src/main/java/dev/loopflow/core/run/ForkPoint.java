package dev.loopflow.core.run;

import dev.loopflow.core.error.NodePosition.LoopFrame;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Where a fork starts in the run it comes from: the start of one pass of a loop ({@code LOOP:PASS}, nested as
 * {@code OUTER:2/INNER:3}), or just before a node's last execution ({@code NODE}). What the origin journaled before
 * that point is reused by the fork; everything from it on executes.
 *
 * <p>The start of a pass comes before the loop decides whether to run it: a {@code while_loop} forked at pass 3 tests
 * its condition again, on the state as edited. A loop is named by its id as it appears in node positions ({@code
 * LOOP[PASS].node}); every loop construct has one (a loop edge's region, a {@code loop}, a {@code while_loop}, a
 * {@code loop_group}, an iterator, a pipeline's restart loop).
 */
public sealed interface ForkPoint {
  /** The start of pass {@code path.getLast().iteration()} of the loop {@code path.getLast().loopId()}, inside the
   *  passes of the enclosing loops before it, outermost first. */
  record Pass(List<LoopFrame> path) implements ForkPoint {
    public Pass {
      path = List.copyOf(path);
      if (path.isEmpty()) {
        throw new IllegalArgumentException("a fork point names at least one loop pass");
      }
    }

    /** The loop whose pass it is. */
    public String loopId() {
      return path.getLast().loopId();
    }

    /** The pass, from 1. */
    public int pass() {
      return path.getLast().iteration();
    }

    /** The passes of the loops around it, outermost first. */
    public List<LoopFrame> enclosing() {
      return path.subList(0, path.size() - 1);
    }

    @Override
    public String text() {
      StringBuilder sb = new StringBuilder();
      for (LoopFrame f : path) {
        sb.append(sb.isEmpty() ? "" : "/").append(f.loopId()).append(':').append(f.iteration());
      }
      return sb.toString();
    }
  }

  /** Just before the last execution of node {@code nodeId}. */
  record BeforeNode(String nodeId) implements ForkPoint {
    public BeforeNode {
      if (nodeId == null || !ID.matcher(nodeId).matches()) {
        throw new IllegalArgumentException("a fork point's node must be a node id, was '" + nodeId + "'");
      }
    }

    @Override
    public String text() {
      return nodeId;
    }
  }

  /** Node ids, as the workflow format allows them. */
  Pattern ID = Pattern.compile("[A-Za-z_][A-Za-z0-9_-]*");
  /** Loop ids: a node id, or a loop edge's {@code FROM->TO}. */
  Pattern LOOP_ID = Pattern.compile("[A-Za-z_][A-Za-z0-9_-]*(->[A-Za-z_][A-Za-z0-9_-]*)?");

  /** As written: {@code LOOP:PASS}, {@code OUTER:2/INNER:3} or {@code NODE}. */
  String text();

  /**
   * Reads {@code LOOP:PASS}, {@code OUTER:2/INNER:3} or {@code NODE}; throws {@link IllegalArgumentException} with a
   * one-line message naming what is wrong.
   */
  static ForkPoint parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("the fork point is empty; write LOOP:PASS (e.g. refine:3), "
          + "OUTER:2/INNER:3 or a node id");
    }
    if (text.length() > 1024) {
      throw new IllegalArgumentException("the fork point is " + text.length() + " characters; the limit is 1024");
    }
    if (!text.contains(":") && !text.contains("/") && !text.contains(">")) {
      if (!ID.matcher(text).matches()) {
        throw new IllegalArgumentException("fork point '" + printable(text) + "' is not a node id nor LOOP:PASS");
      }
      return new BeforeNode(text);
    }
    List<LoopFrame> path = new ArrayList<>();
    for (String part : text.split("/", -1)) {
      int colon = part.lastIndexOf(':');
      String id = colon < 0 ? part : part.substring(0, colon);
      String pass = colon < 0 ? "" : part.substring(colon + 1);
      if (!LOOP_ID.matcher(id).matches() || !pass.matches("[1-9][0-9]{0,8}")) {
        throw new IllegalArgumentException("fork point '" + printable(text) + "': '" + printable(part)
            + "' is not LOOP:PASS (a loop id, a colon and a pass number from 1)");
      }
      path.add(new LoopFrame(id, Integer.parseInt(pass)));
    }
    return new Pass(path);
  }

  private static String printable(String s) {
    StringBuilder sb = new StringBuilder();
    s.codePoints().limit(80).forEach(c -> sb.append(Character.isISOControl(c) ? "?" : Character.toString(c)));
    return sb.toString();
  }
}
