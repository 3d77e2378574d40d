package dev.loopflow.core;

import dev.loopflow.core.model.NodePosition;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A loop ({@code loop}, {@code while_loop}, {@code loop_group}) ran {@code maxIterations} passes and its exit test
 * still asked for another, with {@code on_exhausted: fail}. Code {@link ErrorCode#MAX_ITERATIONS_EXCEEDED}.
 */
public final class MaxIterationsExceededException extends LoopflowException {
  private final String loopId;
  private final String construct;
  private final int maxIterations;

  public MaxIterationsExceededException(String construct, String loopId, int maxIterations, String why,
      NodePosition position) {
    super(ErrorCode.MAX_ITERATIONS_EXCEEDED, construct + " '" + loopId + "' exceeded max_iterations ("
        + maxIterations + ")" + (why == null ? "" : ": " + why), position);
    this.loopId = loopId;
    this.construct = construct;
    this.maxIterations = maxIterations;
  }

  public String loopId() {
    return loopId;
  }

  public String construct() {
    return construct;
  }

  public int maxIterations() {
    return maxIterations;
  }

  @Override
  public Map<String, Object> details() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("loop", loopId);
    m.put("maxIterations", maxIterations);
    return m;
  }
}
