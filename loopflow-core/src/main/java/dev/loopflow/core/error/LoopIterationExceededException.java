package dev.loopflow.core.error;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A loop edge (001) would have started pass {@code maxIterations + 1}: the loop-back from {@code edgeFrom} to
 * {@code edgeTo} fired once more than its bound allows. Code {@link ErrorCode#LOOP_ITERATION_EXCEEDED}.
 *
 * <p>The run's error carries the same fields as details ({@code edgeFrom}, {@code edgeTo}, {@code maxIterations},
 * {@code passes}), so {@link dev.loopflow.core.run.RunResult#orThrow()} gives this exception back, equal in every
 * field, also for a result read from a store.
 */
public final class LoopIterationExceededException extends LoopflowException {
  private final String edgeFrom;
  private final String edgeTo;
  private final int maxIterations;
  private final int passes;

  public LoopIterationExceededException(String edgeFrom, String edgeTo, int maxIterations, NodePosition position) {
    this(edgeFrom, edgeTo, maxIterations, maxIterations, "loop edge " + edgeFrom + " -> " + edgeTo
        + " exceeded maxIterations (" + maxIterations + "): '" + edgeFrom + "' asked for pass " + (maxIterations + 1),
        position);
  }

  /** As journaled: the message the run failed with, kept word for word. */
  LoopIterationExceededException(String edgeFrom, String edgeTo, int maxIterations, int passes, String message,
      NodePosition position) {
    super(ErrorCode.LOOP_ITERATION_EXCEEDED, message, position);
    this.edgeFrom = edgeFrom;
    this.edgeTo = edgeTo;
    this.maxIterations = maxIterations;
    this.passes = passes;
  }

  /** The loop edge's id, {@code edgeFrom->edgeTo}: the loop in paths such as {@code reviewer->coder[2].coder}. */
  public String loopId() {
    return edgeFrom + "->" + edgeTo;
  }

  public String edgeFrom() {
    return edgeFrom;
  }

  public String edgeTo() {
    return edgeTo;
  }

  /** The bound: the most passes of the edge's region, the first included. */
  public int maxIterations() {
    return maxIterations;
  }

  /** The passes of the region that ran (all of them: the bound is exhausted only after the last one). */
  public int passes() {
    return passes;
  }

  @Override
  public Map<String, Object> details() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("edgeFrom", edgeFrom);
    m.put("edgeTo", edgeTo);
    m.put("maxIterations", maxIterations);
    m.put("passes", passes);
    return m;
  }
}
