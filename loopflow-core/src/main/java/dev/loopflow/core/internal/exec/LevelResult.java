package dev.loopflow.core.internal.exec;

import dev.loopflow.core.run.RunError;

/**
 * How the execution of one level of a graph ended, as its coordinator ({@link GraphRun}) reports it to the unit
 * executor that asked for it. A type of its own, so that what runs a level and what asks for one depend on it rather
 * than on each other.
 */
sealed interface LevelResult {
  record Completed() implements LevelResult {}

  record Failed(RunError error) implements LevelResult {}

  record Cancelled(RunError error) implements LevelResult {}

  record Paused() implements LevelResult {}

  /** A restart was accepted: the units running finished, nothing more of this pass ran. */
  record Restart() implements LevelResult {}
}
