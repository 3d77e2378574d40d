package dev.loopflow.store.jdbc.workers;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.task.CompletionHandler;
import com.github.kagkarlsson.scheduler.task.ExecutionContext;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.store.jdbc.JdbcStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import javax.sql.DataSource;

/*
 * Design notes.
 *
 * db-scheduler gives at-least-once delivery: a queued run is picked by one worker (FOR UPDATE SKIP LOCKED), the
 * worker heartbeats while it executes, and when its heartbeats stop (killed, partitioned, paused) another worker
 * revives the execution and picks it. So a run can be handed to a second worker while the first still executes
 * it. Two things keep that harmless: the run's lease in the store (a worker executes a run only after claiming it;
 * a live claim elsewhere makes the engine answer run_busy, and this worker waits for it to lapse), and lease-epoch
 * fencing (once the second worker claimed the run, every write of the first fails, and its engine stops the run
 * without writing). Execution is always a resume from the journal: completed node executions are restored, the one
 * that was in flight runs again.
 *
 * One execution per run: the queue's instance id is the run id, and a finished, cancelled or paused run removes it.
 * A paused run is queued again with its answer (RunQueue.enqueueResume).
 */
/**
 * A worker process's engine: takes queued runs from a PostgreSQL store's queue and executes them, up to
 * {@link WorkerSettings#concurrency()} at once, until {@link #close() closed}.
 */
public final class Worker implements AutoCloseable {
  private final Loopflow engine;
  private final WorkerSettings settings;
  private final Function<RunRecord, RunOptions> options;
  private final Consumer<String> log;
  private final Scheduler scheduler;
  private final DataSource queue;
  private volatile AutoCloseable listener;
  private final Map<String, RunHandle> executing = new ConcurrentHashMap<>();
  private final ParsedWorkflows parsed;
  private volatile boolean draining;

  private Worker(Loopflow engine, WorkerSettings settings, Function<RunRecord, RunOptions> options,
      Consumer<String> log) {
    this.engine = engine;
    this.settings = settings;
    this.options = options;
    this.log = log;
    this.parsed = new ParsedWorkflows(engine);
    this.queue = JdbcStores.queueDataSource(engine.store());
    this.scheduler = Scheduler.create(queue, RunTasks.task(this::execute))
        .tableName(RunTasks.TABLE)
        .serializer(RunTasks.TEXT)
        .threads(settings.concurrency())
        .pollingInterval(settings.pollingInterval())
        .heartbeatInterval(settings.heartbeatInterval())
        .missedHeartbeatsLimit(settings.missedHeartbeats())
        .schedulerName(new SchedulerName.Fixed(settings.name()))
        // Fetch again as soon as one thread is free (lower limit: all threads but one busy), never more than the
        // free threads: a worker keeps all its threads busy from a backlog, and holds no run it cannot start now
        // (another worker can take it). The default, half the threads, left a worker half idle between fetches.
        .pollUsingLockAndFetch((settings.concurrency() - 0.5) / settings.concurrency(), 1.0)
        .shutdownMaxWait(settings.drainTimeout())
        .build();
  }

  /**
   * Starts taking runs. {@code options} gives the run options a run executes with (environment, working directory,
   * policies), from its journaled record; {@code log} gets one line per run taken, ended or handed back.
   */
  public static Worker start(Loopflow engine, WorkerSettings settings, Function<RunRecord, RunOptions> options,
      Consumer<String> log) {
    Worker w = new Worker(engine, settings, options, log);
    w.scheduler.start();
    // Runs are announced when queued: look for them then, not only at the next poll.
    w.listener = JdbcStores.listen(engine.store(), RunTasks.CHANNEL, "loopflow queue listener",
        w.scheduler::triggerCheckForDueExecutions);
    return w;
  }

  /** The runs executing here now. */
  public List<String> executing() {
    return List.copyOf(executing.keySet());
  }

  /**
   * Drains: takes no more runs, lets the runs executing here finish for up to the drain timeout, then hands the
   * rest back to the queue (another worker continues them from their journal once this process has exited).
   */
  @Override
  public void close() {
    draining = true;
    try {
      AutoCloseable l = listener;
      if (l != null) {
        l.close();
      }
    } catch (Exception e) {
      // It is a daemon thread on a connection of its own: nothing is lost if it lingers.
    }
    scheduler.stop();
  }

  private CompletionHandler<String> execute(TaskInstance<String> instance, ExecutionContext ctx) {
    String runId = instance.getId();
    ResumeInput answer = RunTasks.answer(instance.getData());
    while (true) {
      if (draining || Thread.currentThread().isInterrupted()) {
        return handBack();
      }
      RunRecord rec = engine.store().findRun(runId).orElse(null);
      if (rec == null) {
        log.accept("run " + runId + ": not in the store; dropped from the queue");
        return done();
      }
      if (rec.status().isTerminal() || rec.status() == RunStatus.PAUSED && answer.isEmpty()) {
        return done();
      }
      RunHandle handle;
      try {
        Workflow wf = workflow(rec);
        handle = engine.resume(wf, rec, rec.status() == RunStatus.PAUSED ? answer : ResumeInput.none(),
            options.apply(rec), false);
      } catch (LoopflowException e) {
        if (e.code() == ErrorCode.RUN_BUSY) {
          // Another engine holds a live lease (a worker that stopped heartbeating but may still be alive): wait for
          // it to end or lapse. db-scheduler keeps this execution alive meanwhile.
          if (!pause()) {
            return handBack();
          }
          continue;
        }
        if (e.code() == ErrorCode.STORE_UNAVAILABLE) {
          throw e; // retried later by the task's failure handler
        }
        log.accept("run " + runId + ": cannot be continued: " + e.getMessage());
        if (e.code() == ErrorCode.WORKFLOW_INVALID || e.code() == ErrorCode.WORKFLOW_CHANGED
            || e.code() == ErrorCode.RUN_NOT_RESUMABLE && rec.status() == RunStatus.RUNNING) {
          cancel(runId, "a worker cannot continue the run: " + e.getMessage());
        }
        return done();
      }
      executing.put(runId, handle);
      log.accept("run " + runId + ": taken by " + settings.name());
      try {
        RunResult r = handle.await();
        if (r.error() != null && r.error().errorCode() == ErrorCode.LEASE_LOST) {
          log.accept("run " + runId + ": stopped here without writing [lease_lost]: another worker took it over");
        } else {
          log.accept("run " + runId + ": " + r.status().json() + (r.error() == null ? "" : " [" + r.error().code()
              + "]"));
        }
        return done();
      } catch (InterruptedException e) {
        log.accept("run " + runId + ": handed back (the worker stopped before it ended)");
        return handBack();
      } finally {
        executing.remove(runId);
      }
    }
  }

  /**
   * The workflow a run executes: its journaled source when that is exact; else (credentials were masked in the
   * journal) the file it was started from, found from its working directory, when it still hashes as journaled.
   */
  private Workflow workflow(RunRecord rec) {
    if (rec.source() != null && rec.sourceIsExact()) {
      return parsed.parse(rec.source(), rec.file());
    }
    if (rec.file() != null) {
      Path f = Path.of(rec.file());
      if (!f.isAbsolute() && rec.workingDirectory() != null) {
        f = Path.of(rec.workingDirectory()).resolve(f);
      }
      if (Files.isRegularFile(f)) {
        Workflow wf = engine.load(f);
        if (rec.sourceHash() == null || rec.sourceHash().equals(Loopflow.sourceHash(wf.source()))) {
          return wf;
        }
      }
    }
    throw new LoopflowException(ErrorCode.WORKFLOW_CHANGED, "run '" + rec.runId() + "' journaled its workflow with "
        + "credentials masked, and its file " + rec.file() + " is not on this worker as it was; pass credentials "
        + "through the workers' environment instead of writing them in the workflow");
  }

  private void cancel(String runId, String reason) {
    try {
      engine.cancel(runId, reason, Duration.ofSeconds(5));
    } catch (RuntimeException e) {
      log.accept("run " + runId + ": could not be cancelled: " + e.getMessage());
    }
  }

  /** Waits a little before asking again; false when the worker is stopping. */
  private boolean pause() {
    try {
      Thread.sleep(Math.min(500, settings.pollingInterval().toMillis()));
      return !draining;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static CompletionHandler<String> done() {
    return new CompletionHandler.OnCompleteRemove<>();
  }

  /** Puts the run back in the queue, due now, and tells the other workers (the update is committed when it returns). */
  private CompletionHandler<String> handBack() {
    return (complete, ops) -> {
      ops.reschedule(complete, Instant.now());
      RunTasks.announce(queue);
    };
  }
}
