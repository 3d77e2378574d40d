package dev.loopflow.core.error;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A loop ({@code loop}, {@code while_loop}, {@code loop_group}, a pipeline's restarts) ran {@code maxIterations}
 * passes and its exit test still asked for another, with {@code on_exhausted: fail}. Code
 * {@link ErrorCode#MAX_ITERATIONS_EXCEEDED}.
 *
 * <p>The run's error carries the same fields as details ({@code loop}, {@code construct}, {@code maxIterations},
 * {@code passes}), so {@link dev.loopflow.core.run.RunResult#orThrow()} gives this exception back, also for a
 * result read from a store.
 */
public final class MaxIterationsExceededException extends LoopflowException {
  private final String loopId;
  private final String construct;
  private final int maxIterations;
  private final int passes;

  public MaxIterationsExceededException(String construct, String loopId, int maxIterations, String why,
      NodePosition position) {
    this(construct, loopId, maxIterations, maxIterations, construct + " '" + loopId + "' exceeded max_iterations ("
        + maxIterations + ")" + (why == null ? "" : ": " + why), position);
  }

  /** As journaled: the message the run failed with, kept word for word. */
  MaxIterationsExceededException(String construct, String loopId, int maxIterations, int passes, String message,
      NodePosition position) {
    super(ErrorCode.MAX_ITERATIONS_EXCEEDED, message, position);
    this.loopId = loopId;
    this.construct = construct;
    this.maxIterations = maxIterations;
    this.passes = passes;
  }

  /** The loop's id (for a pipeline's restarts, {@code restart}). */
  public String loopId() {
    return loopId;
  }

  /**
   * The construct: {@code loop}, {@code while_loop}, {@code loop_group}, or the pipeline's restart loop; null for
   * an error journaled without it.
   */
  public String construct() {
    return construct;
  }

  /** The bound: the most passes, the first included. */
  public int maxIterations() {
    return maxIterations;
  }

  /** The passes that ran (all of them: the bound is exhausted only after the last one). */
  public int passes() {
    return passes;
  }

  @Override
  public Map<String, Object> details() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("loop", loopId);
    m.put("construct", construct);
    m.put("maxIterations", maxIterations);
    m.put("passes", passes);
    return m;
  }
}
