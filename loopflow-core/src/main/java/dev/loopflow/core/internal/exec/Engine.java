package dev.loopflow.core.internal.exec;

import dev.loopflow.core.ErrorCode;
import dev.loopflow.core.LoopflowException;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import java.util.List;
import java.time.Clock;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** Starts runs. Holds what is shared by all runs of one engine: store, services, clock, executor. */
public final class Engine {
  private final RunStore store;
  private final Map<Class<?>, Object> services;
  private final Clock clock;
  private final ExecutorService executor;
  private final String ownerId = RunLease.newOwnerId();

  public Engine(RunStore store, Map<Class<?>, Object> services, Clock clock) {
    this.store = store;
    this.services = Map.copyOf(services);
    this.clock = clock;
    this.executor = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("loopflow-node-", 0).factory());
  }

  public RunHandle start(Workflow workflow, Map<String, Object> inputs, RunOptions options) {
    String runId = options.runId() != null ? options.runId() : newRunId();
    Scheduler scheduler = new Scheduler(runId, workflow, inputs, options, store, services, clock, executor, null,
        RunContext.Replay.NONE, 0, new RunLease(store, runId, ownerId, clock));
    Thread.ofVirtual().name("loopflow-run-" + runId).start(scheduler::run);
    return scheduler;
  }

  /**
   * Continues a paused (or interrupted) run from its journal: executions that completed are restored, not
   * repeated, and {@code input} answers the gate the run paused at. The caller checks that {@code workflow} is
   * the one the run started with.
   */
  public RunHandle resume(Workflow workflow, RunRecord run, ResumeInput input, RunOptions options) {
    RunLease lease = new RunLease(store, run.runId(), ownerId, clock);
    String id = run.runId();
    lease.acquire().ifPresent(held -> {
      throw new LoopflowException(ErrorCode.RUN_BUSY, "run '" + id + "' is being executed by "
          + held.owner() + " (its lease runs until " + held.until() + "); cancel it there or wait for it to end");
    });
    // Re-read under the lease: another process may have finished the run since the caller looked.
    run = store.findRun(run.runId()).orElse(run);
    if (run.status() == RunStatus.COMPLETED || run.status() == RunStatus.CANCELLED) {
      lease.stop();
      throw new LoopflowException(ErrorCode.RUN_NOT_RESUMABLE, "run '" + run.runId() + "' is "
          + run.status().json() + " and cannot be resumed");
    }
    store.setCancelRequested(run.runId(), false);
    List<NodeExecution> rows = store.nodeExecutions(run.runId());
    long lastSeq = 0;
    for (dev.loopflow.core.event.Event e : store.events(run.runId())) {
      lastSeq = Math.max(lastSeq, e.seq());
    }
    RunContext.Replay replay = new RunContext.Replay(rows, run.pausedAt(), input);
    Scheduler scheduler = new Scheduler(run.runId(), workflow, run.inputs(), options, store, services, clock,
        executor, run, replay, lastSeq, lease);
    Thread.ofVirtual().name("loopflow-run-" + run.runId()).start(scheduler::run);
    return scheduler;
  }

  /** See {@link dev.loopflow.core.Loopflow#cancel}. */
  public RunStatus cancel(String runId, String reason, java.time.Duration wait) {
    RunRecord run = store.findRun(runId).orElseThrow(() -> new LoopflowException(ErrorCode.RUN_NOT_RESUMABLE,
        "no run '" + runId + "' in this store"));
    if (run.status().isTerminal()) {
      return run.status();
    }
    String why = reason == null ? "cancelled" : reason;
    RunLease lease = new RunLease(store, runId, ownerId, clock);
    if (lease.acquire().isEmpty()) {
      try {
        run = store.findRun(runId).orElse(run);
        if (run.status().isTerminal()) {
          return run.status();
        }
        java.time.Instant now = clock.instant();
        // The reason is the caller's text: masked like everything a run writes (its journal already is).
        String message = dev.loopflow.core.secrets.Redactor.ofEnvironment(System.getenv()).text("run cancelled: "
            + why);
        store.updateRun(run.finish(RunStatus.CANCELLED, now, run.usage(), null,
            new dev.loopflow.core.run.RunError(ErrorCode.CANCELLED.code(), message, null)));
        long seq = 0;
        for (dev.loopflow.core.event.Event e : store.events(runId)) {
          seq = Math.max(seq, e.seq());
        }
        dev.loopflow.core.spi.Usage u = run.usage() == null ? dev.loopflow.core.spi.Usage.NONE : run.usage();
        store.appendEvent(new dev.loopflow.core.event.Event.RunFinished(runId, seq + 1, now, "cancelled",
            ErrorCode.CANCELLED.code(), message, u.inputTokens(), u.outputTokens(), u.costUsd(),
            u.llmCalls()));
        store.flush();
        return RunStatus.CANCELLED;
      } finally {
        lease.stop();
      }
    }
    store.setCancelRequested(runId, true);
    long deadline = System.nanoTime() + wait.toNanos();
    while (System.nanoTime() < deadline) {
      RunStatus s = store.findRun(runId).map(RunRecord::status).orElse(RunStatus.RUNNING);
      if (s != RunStatus.RUNNING) {
        return s;
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    return store.findRun(runId).map(RunRecord::status).orElse(RunStatus.RUNNING);
  }

  public RunStore store() {
    return store;
  }

  static String newRunId() {
    String u = UUID.randomUUID().toString().replace("-", "");
    return "run_" + u.substring(0, 16);
  }
}
