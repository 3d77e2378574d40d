package dev.loopflow.server.spi;

import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunOptions;

/**
 * Where runs started or resumed over HTTP execute when not in the server's own process: a queue that worker
 * processes take runs from. Set with {@code LoopflowServer.Builder.dispatch}; without one, runs execute in the
 * server.
 */
public interface RunDispatch {
  /**
   * Journals a new run of {@code workflow} with {@code options} (its id, inputs and working directory are set) and
   * queues it; returns once the run is journaled, so it can be looked up at once. Throws the engine's errors.
   */
  void enqueue(Workflow workflow, RunOptions options) throws InterruptedException;

  /**
   * Queues a journaled run to be continued with {@code answer} (already checked against what the run waits for).
   * Throws {@code run_busy} when it is queued or executing already.
   */
  void enqueueResume(String runId, ResumeInput answer);
}
