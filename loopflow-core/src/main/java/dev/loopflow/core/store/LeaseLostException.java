package dev.loopflow.core.store;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;

/**
 * A journal write of a run refused because the run's lease moved to another engine since this one claimed it
 * (code {@link ErrorCode#LEASE_LOST}). Nothing of the refused write reached the store, and no later write of the
 * same claim will: the engine that gets this stops the run without writing anything more.
 */
public final class LeaseLostException extends LoopflowException {
  private final String runId;

  public LeaseLostException(String runId, String message) {
    super(ErrorCode.LEASE_LOST, message);
    this.runId = runId;
  }

  /** The run whose lease was lost. */
  public String runId() {
    return runId;
  }

  /** Whether {@code e} or one of its causes is a lost lease. */
  public static boolean isCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof LoopflowException le && le.code() == ErrorCode.LEASE_LOST) {
        return true;
      }
    }
    return false;
  }
}
