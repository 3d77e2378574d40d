package dev.loopflow.core.internal.exec;

import dev.loopflow.core.model.Workflow;
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

  public Engine(RunStore store, Map<Class<?>, Object> services, Clock clock) {
    this.store = store;
    this.services = Map.copyOf(services);
    this.clock = clock;
    this.executor = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("loopflow-node-", 0).factory());
  }

  public RunHandle start(Workflow workflow, Map<String, Object> inputs, RunOptions options) {
    String runId = options.runId() != null ? options.runId() : newRunId();
    Scheduler scheduler = new Scheduler(runId, workflow, inputs, options, store, services, clock, executor, null,
        RunContext.Replay.NONE, 0);
    Thread.ofVirtual().name("loopflow-run-" + runId).start(scheduler::run);
    return scheduler;
  }

  /**
   * Continues a paused (or interrupted) run from its journal: executions that completed are restored, not
   * repeated, and {@code input} answers the gate the run paused at. The caller checks that {@code workflow} is
   * the one the run started with.
   */
  public RunHandle resume(Workflow workflow, RunRecord run, String input, RunOptions options) {
    List<NodeExecution> rows = store.nodeExecutions(run.runId());
    long lastSeq = 0;
    for (dev.loopflow.core.event.Event e : store.events(run.runId())) {
      lastSeq = Math.max(lastSeq, e.seq());
    }
    RunContext.Replay replay = new RunContext.Replay(rows, run.pausedAt(), input);
    Scheduler scheduler = new Scheduler(run.runId(), workflow, run.inputs(), options, store, services, clock,
        executor, run, replay, lastSeq);
    Thread.ofVirtual().name("loopflow-run-" + run.runId()).start(scheduler::run);
    return scheduler;
  }

  public RunStore store() {
    return store;
  }

  static String newRunId() {
    String u = UUID.randomUUID().toString().replace("-", "");
    return "run_" + u.substring(0, 16);
  }
}
