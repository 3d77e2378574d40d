package dev.loopflow.core.internal.exec;

import dev.loopflow.core.run.RunError;

/**
 * How one unit of a level (a node, or a loop edge's region) ended, as its coordinator sees it. Every way a unit
 * can end is a value here, pauses included: nothing unwinds through a coordinator as an exception.
 */
sealed interface Outcome {
  /** {@code cancelRun}: a cancel node asks to end the run, with this reason; null otherwise. */
  record Completed(String cancelRun) implements Outcome {}

  /** {@code allowed}: the failure is forgiven ({@code allow_failure}); the level goes on. */
  record Failed(RunError error, boolean allowed) implements Outcome {}

  /** Interrupted, or a body ended the run as cancelled ({@code error} says where; null when interrupted). */
  record Cancelled(RunError error) implements Outcome {}

  /** The run paused inside this unit (an approval, a loop gate); nothing after it ran. */
  record Paused() implements Outcome {}

  Outcome COMPLETED = new Completed(null);
  Outcome PAUSED = new Paused();
  Outcome INTERRUPTED = new Cancelled(null);
}
