package dev.loopflow.core.run;

import java.util.Map;

/**
 * Why a run failed or was cancelled: stable code, message, the node it happened in (may be null), that node's
 * position path when it sits inside loops (e.g. {@code fix[2].test}), and code-specific details (a loop edge's
 * {@code edgeFrom}, {@code edgeTo}, {@code maxIterations}).
 */
public record RunError(String code, String message, String node, String path, Map<String, Object> details) {
  public RunError {
    details = details == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(details));
  }

  public RunError(String code, String message, String node) {
    this(code, message, node, null, Map.of());
  }
}
