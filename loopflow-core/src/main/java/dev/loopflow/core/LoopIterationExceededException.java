package dev.loopflow.core;

import dev.loopflow.core.model.NodePosition;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A loop edge (001) would have started pass {@code maxIterations + 1}: the loop-back from {@code edgeFrom} to
 * {@code edgeTo} fired once more than its bound allows. Code {@link ErrorCode#LOOP_ITERATION_EXCEEDED}.
 */
public final class LoopIterationExceededException extends LoopflowException {
  private final String edgeFrom;
  private final String edgeTo;
  private final int maxIterations;

  public LoopIterationExceededException(String edgeFrom, String edgeTo, int maxIterations, NodePosition position) {
    super(ErrorCode.LOOP_ITERATION_EXCEEDED, "loop edge " + edgeFrom + " -> " + edgeTo + " exceeded maxIterations ("
        + maxIterations + "): '" + edgeFrom + "' asked for pass " + (maxIterations + 1), position);
    this.edgeFrom = edgeFrom;
    this.edgeTo = edgeTo;
    this.maxIterations = maxIterations;
  }

  public String edgeFrom() {
    return edgeFrom;
  }

  public String edgeTo() {
    return edgeTo;
  }

  public int maxIterations() {
    return maxIterations;
  }

  @Override
  public Map<String, Object> details() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("edgeFrom", edgeFrom);
    m.put("edgeTo", edgeTo);
    m.put("maxIterations", maxIterations);
    return m;
  }
}
