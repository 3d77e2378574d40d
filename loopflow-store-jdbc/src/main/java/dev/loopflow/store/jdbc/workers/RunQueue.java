package dev.loopflow.store.jdbc.workers;

import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.task.helper.CustomTask;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.store.jdbc.JdbcStores;
import java.time.Instant;
import javax.sql.DataSource;

/**
 * Queues runs for worker processes in a PostgreSQL store. A queued run is journaled at once (its record, status
 * {@code running}, and {@code run.started}), so it is listed, shown and followed like any other run while it waits;
 * a worker then takes it and executes it from its journal.
 */
public final class RunQueue {
  private final Loopflow engine;
  private final SchedulerClient client;
  private final CustomTask<String> task;
  private final DataSource queue;

  private RunQueue(Loopflow engine) {
    this.engine = engine;
    this.task = RunTasks.task((instance, ctx) -> {
      throw new IllegalStateException("a queue only schedules runs; workers execute them");
    });
    this.queue = JdbcStores.queueDataSource(engine.store());
    this.client = SchedulerClient.Builder.create(queue, task)
        .tableName(RunTasks.TABLE).serializer(RunTasks.TEXT).build();
  }

  /**
   * The queue of {@code engine}'s store. Throws {@link IllegalArgumentException} when the store is not a PostgreSQL
   * store opened by {@link JdbcStores}: workers on other machines can only share a database.
   */
  public static RunQueue of(Loopflow engine) {
    return new RunQueue(engine);
  }

  /**
   * Journals a new run of {@code workflow} (inputs are checked as for a run started here) and queues it; returns
   * its result object as journaled: status {@code running}, or {@code failed} when it could not be journaled (then
   * nothing is queued) or could not be queued (then the run is journaled as failed with {@code store_unavailable}
   * and the queue's error, so no run is left {@code running} that no worker will ever take).
   */
  public RunResult enqueue(Workflow workflow, RunOptions options) throws InterruptedException {
    return engine.journalNew(workflow, options, id -> schedule(id, ResumeInput.none()));
  }

  /**
   * Queues a journaled run to be continued by a worker: a paused run with the answer to what it waits for, a failed
   * run, or one left running by a process that died. The caller checks the answer first (the worker checks again
   * under the run's lease). Throws {@code run_busy} when the run is queued or executing on a worker already.
   */
  public void enqueueResume(String runId, ResumeInput answer) {
    if (!schedule(runId, answer == null ? ResumeInput.none() : answer)) {
      throw new LoopflowException(ErrorCode.RUN_BUSY, "run '" + runId + "' is queued or executing on a worker "
          + "already");
    }
  }

  /** Whether the run has an execution in the queue (waiting, or picked by a worker). */
  public boolean isQueued(String runId) {
    return client.getScheduledExecution(
        com.github.kagkarlsson.scheduler.task.TaskInstanceId.of(RunTasks.TASK, runId)).isPresent();
  }

  /** Adds the run's queue row; a database failure is the store's error ({@code store_unavailable}). */
  private boolean schedule(String runId, ResumeInput answer) {
    try {
      boolean added = client.scheduleIfNotExists(task.instance(runId, RunTasks.data(answer)), Instant.now());
      if (added) {
        RunTasks.announce(queue);
      }
      return added;
    } catch (RuntimeException e) {
      Throwable root = e;
      while (root.getCause() != null && root.getCause() != root) {
        root = root.getCause();
      }
      // The driver's first line (PostgreSQL adds a position or a hint on the next ones): the error stays one line.
      String reason = root.getMessage() == null || root.getMessage().isBlank() ? root.toString()
          : root.getMessage().lines().findFirst().orElse("");
      throw new LoopflowException(ErrorCode.STORE_UNAVAILABLE, "cannot add run '" + runId + "' to the queue in "
          + engine.store() + ": " + reason, null, e);
    }
  }
}
