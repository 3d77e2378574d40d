package dev.loopflow.core.error;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A node failed but has a partial result worth keeping (a shell command's stdout, stderr and exit code; an
 * HTTP status). The fields appear in the node's result next to {@code error}.
 */
public final class NodeFailedException extends LoopflowException {
  private final Map<String, Object> partialResult;

  public NodeFailedException(String message, Map<String, Object> partialResult) {
    super(ErrorCode.NODE_FAILED, message);
    this.partialResult = Collections.unmodifiableMap(new LinkedHashMap<>(partialResult));
  }

  public Map<String, Object> partialResult() {
    return partialResult;
  }
}
