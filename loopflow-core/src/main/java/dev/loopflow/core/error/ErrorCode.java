package dev.loopflow.core.error;

import java.util.Locale;

/** Stable error codes. The string form is what JSON output, the journal and the CLI carry. */
public enum ErrorCode {
  WORKFLOW_INVALID,
  LOOP_ITERATION_EXCEEDED,
  MAX_ITERATIONS_EXCEEDED,
  BUDGET_EXCEEDED,
  NODE_FAILED,
  TIMEOUT,
  CANCELLED,
  MAX_STEPS_EXCEEDED,
  USAGE,
  /** The run is being executed by another engine (it holds the run's lease). */
  RUN_BUSY,
  /** The run resumed does not exist, or cannot be resumed in its state (completed, cancelled). */
  RUN_NOT_RESUMABLE,
  /**
   * A fork cannot start as asked: its point is not in the run's journal (no such loop pass or node execution), an
   * edit names a node that did not run before the point, or an edited workflow changes a node that ran before it.
   */
  FORK_REFUSED,
  /**
   * A run cannot be deleted because forks reuse its node executions (a fork reads its origin's rows for everything
   * before its point); the message names the forks, which must be deleted first.
   */
  RUN_HAS_FORKS,
  /** The workflow file changed since the run started; resuming needs the original or an explicit force. */
  WORKFLOW_CHANGED,
  /**
   * Something failed that no workflow can cause: an unexpected exception in the engine or a handler's engine-facing
   * method, or the run store refusing a write. The run ends failed with this code; resume continues it.
   */
  INTERNAL_ERROR,
  /**
   * The run store cannot be opened, reached, read or written: a database that refuses connections, a store file
   * that cannot be created, a journal that does not read back. A run whose journal write is refused still fails
   * with {@link #INTERNAL_ERROR}; this is the code of the store's own exception.
   */
  STORE_UNAVAILABLE,
  /**
   * The run's lease was claimed by another engine (this one stalled, was partitioned from the database, or was
   * thought dead): the store refuses every further write of this engine for the run, and the engine stops the run
   * without writing anything more. The run goes on wherever its lease now is.
   */
  LEASE_LOST,
  RESTART_VALIDATION_FAILED,
  VALIDATION_RETRY_EXHAUSTED,
  RESTART_COOLDOWN_NOT_ELAPSED,
  STAGE_NOT_RESTARTABLE,
  REQUESTER_NOT_AUTHORIZED,
  SHARED_MEMORY_KEY_NOT_FOUND,
  /**
   * A process node was not started because the run requires a sandbox ({@code --sandbox required}) and the node
   * could not have one: bubblewrap does not work here, or the node asks for {@code sandbox: off}.
   */
  SANDBOX_REQUIRED,
  /**
   * A paused step's form was answered with values that are missing or do not fit its schema (or a step without a
   * form was given values). Nothing is resumed; the run stays paused and can be answered again.
   */
  ANSWER_INVALID;


  /**
   * The code whose string form is {@code code} (as journals and JSON carry it). Throws
   * {@link IllegalArgumentException} naming the value when no code has that form.
   */
  public static ErrorCode of(String code) {
    for (ErrorCode c : values()) {
      if (c.code().equals(code)) {
        return c;
      }
    }
    throw new IllegalArgumentException("unknown error code '" + code + "'");
  }

  /** The lower-case code, e.g. {@code budget_exceeded}. */
  public String code() {
    return name().toLowerCase(Locale.ROOT);
  }

  @Override
  public String toString() {
    return code();
  }
}
