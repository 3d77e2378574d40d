package dev.loopflow.core.run;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Why a run failed or was cancelled: its {@link ErrorCode}, the message, the node it happened in (may be null), that
 * node's position path when it sits inside loops (e.g. {@code fix[2].test}), and code-specific details (a loop
 * edge's {@code edgeFrom}, {@code edgeTo}, {@code maxIterations}). Errors are told apart by {@link #errorCode()},
 * never by their message.
 */
public record RunError(ErrorCode errorCode, String message, String node, String path, Map<String, Object> details) {
  public RunError {
    Objects.requireNonNull(errorCode, "errorCode");
    details = details == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(details));
  }

  public RunError(ErrorCode code, String message, String node) {
    this(code, message, node, null, Map.of());
  }

  /**
   * The exception the run failed or was cancelled with, rebuilt from this error (see
   * {@link LoopflowException#rebuilt}): a loop that exhausted its bound gives a
   * {@link dev.loopflow.core.error.LoopIterationExceededException} or
   * {@link dev.loopflow.core.error.MaxIterationsExceededException}
   * with its loop, bound and passes.
   */
  public LoopflowException toException() {
    return LoopflowException.rebuilt(errorCode, message, path != null ? path : node, details);
  }

  /** The code's stable string form, as JSON output and the journal carry it (e.g. {@code budget_exceeded}). */
  public String code() {
    return errorCode.code();
  }
}
