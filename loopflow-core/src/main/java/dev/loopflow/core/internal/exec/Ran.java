package dev.loopflow.core.internal.exec;

import dev.loopflow.core.run.RunError;
import dev.loopflow.core.spi.Usage;
import java.util.Map;

/**
 * What running a node's body produced: its shaped result, a pause (an approval asked a person, a loop gate waits),
 * or a loop that stopped abnormally. The node's lifecycle ({@link NodeRunner}) turns each into the node's record and
 * its coordinator's {@link Outcome}; none of them travels as an exception.
 */
sealed interface Ran {
  /**
   * A body that finished: its result fields, the value downstream nodes see ({@code output}), the state it writes,
   * whether it asks to cancel the run (with this reason), and what a loop's passes spent ({@code innerUsage}; the
   * passes journal it themselves, so it is reported with the loop but not journaled on the loop's row).
   */
  record Shaped(Map<String, Object> result, Object output, Map<String, Object> statePatch, String cancelRun,
      Usage innerUsage) implements Ran {
    Shaped(Map<String, Object> result, Object output) {
      this(result, output, null, null, Usage.NONE);
    }
  }

  /** The run pauses here; nothing after this node starts. */
  record Paused() implements Ran {}

  /**
   * A loop stopped abnormally: its body failed or was cancelled, or its bound was exhausted with {@code fail}.
   * {@code partial} is the loop's result so far (passes, outputs, exit reason); {@code error} is null for a bare
   * interrupt.
   */
  record Stopped(RunError error, boolean cancelled, Map<String, Object> partial) implements Ran {}

  Ran PAUSED = new Paused();
}
