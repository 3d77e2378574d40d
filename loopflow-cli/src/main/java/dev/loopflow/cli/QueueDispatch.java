package dev.loopflow.cli;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.server.spi.RunDispatch;
import dev.loopflow.store.jdbc.workers.RunQueue;

/** {@code loopflow server --dispatch workers}: the server's runs go to the store's queue for worker processes. */
final class QueueDispatch implements RunDispatch {
  private final RunQueue queue;

  QueueDispatch(RunQueue queue) {
    this.queue = queue;
  }

  @Override
  public void enqueue(Workflow workflow, RunOptions options) throws InterruptedException {
    RunResult r = queue.enqueue(workflow, options);
    if (r.status() != RunStatus.RUNNING) {
      throw new LoopflowException(r.error() == null ? ErrorCode.INTERNAL_ERROR : r.error().errorCode(),
          "run '" + r.runId() + "' could not be queued: " + (r.error() == null ? r.status().json()
              : r.error().message()));
    }
  }

  @Override
  public void enqueueResume(String runId, ResumeInput answer) {
    queue.enqueueResume(runId, answer);
  }
}
