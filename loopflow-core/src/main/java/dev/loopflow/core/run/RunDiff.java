package dev.loopflow.core.run;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Two points of runs side by side, what {@code loopflow diff} compares: two passes of one loop (the central
 * question of a refine loop: what changed between drafts), or a fork and its origin.
 *
 * @param left the earlier side
 * @param right the later side
 */
public record RunDiff(Side left, Side right) {
  /**
   * One side: {@code label} says what it is ({@code run_x refine:2}); {@code state} is the run's state after it
   * (after the pass, or at the run's end); {@code outputs} are the outputs of the nodes it covers, by node (for a
   * pass, the path inside the pass: {@code draft}, {@code inner[2].check}).
   */
  public record Side(String label, Map<String, Object> state, Map<String, Object> outputs) {
    public Map<String, Object> toJson() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("label", label);
      m.put("state", state);
      m.put("outputs", outputs);
      return m;
    }
  }

  public Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("left", left.toJson());
    m.put("right", right.toJson());
    return m;
  }
}
