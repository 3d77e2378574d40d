package dev.loopflow.core.internal.exec;

import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.store.RunStore;
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
    Scheduler scheduler = new Scheduler(runId, workflow, inputs, options, store, services, clock, executor);
    Thread.ofVirtual().name("loopflow-run-" + runId).start(scheduler::run);
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
