package dev.loopflow.core.internal.exec;

import dev.loopflow.core.ErrorCode;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.expr.Values;
import dev.loopflow.core.internal.plan.ExecGraph;
import dev.loopflow.core.internal.util.Durations;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.NodeResults;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RunError;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.secrets.Redactor;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/*
 * Design notes.
 *
 * The run: it owns the run record, the run-level deadline and cancellation, and turns the top level's outcome
 * into the run's status and result. Scheduling itself is GraphRun's (one coordinator per graph level), loops are
 * LoopRunner's, and single node executions are NodeRunner's; this class only wires them to one RunContext.
 *
 * Credentials: one Redactor per run, built before anything is written, masks every record, execution and event
 * on its way to the journal and to listeners, and the result handed back is made from the masked record, so
 * `run --json` prints exactly what `show --json` reads back later.
 *
 * Cancellation and the run deadline both interrupt the run's thread, where the top-level coordinator waits;
 * it interrupts its running units and so on down every loop body. Every terminal path goes through finish(),
 * which journals the run record and then closes the event bus, so a node that ignores its interrupt cannot
 * publish anything after run.finished.
 */
final class Scheduler implements RunHandle {
  private final String runId;
  private final Workflow workflow;
  private final RunOptions options;
  private final RunStore store;
  private final Clock clock;
  private final RunState runState;
  private final EventBus bus;
  private final Budgets budgets;
  private final RunContext ctx;
  private final RunRecord resumeFrom;
  private final RunLease lease;
  private final Redactor redactor;
  private final CountDownLatch done = new CountDownLatch(1);
  private volatile Thread thread;
  private volatile RunResult result;
  private volatile String cancelReason;
  private volatile boolean timedOut;
  private volatile List<String> timedOutRunning = List.of();
  private RunRecord record;

  Scheduler(String runId, Workflow workflow, Map<String, Object> inputs, RunOptions options, RunStore store,
      Map<Class<?>, Object> services, Clock clock, ExecutorService executor, RunRecord resumeFrom,
      RunContext.Replay replay, long lastSeq, RunLease lease) {
    this.runId = runId;
    this.lease = lease;
    this.workflow = workflow;
    this.options = options;
    this.store = store;
    this.clock = clock;
    this.resumeFrom = resumeFrom;
    this.budgets = new Budgets(workflow.budget());
    // A resumed run's budget starts from everything its journal says was spent, not only what it restores.
    budgets.add(replay.total());
    this.runState = new RunState(workflow, inputs, budgets, options.environment());
    this.redactor = Redactor.forRun(environment(options), workflow, inputs);
    this.bus = new EventBus(clock, options.listeners(), lastSeq, redactor);
    this.bus.subscribe(store::appendEvent);
    this.ctx = new RunContext(runId, workflow, options, store, clock, executor, runState, bus, budgets, services,
        replay, redactor);
    ctx.runner = new NodeRunner(ctx);
    ctx.loops = new LoopRunner(ctx);
  }

  /** What nodes see plus the process environment, where LLM providers find their keys. */
  private static Map<String, String> environment(RunOptions options) {
    Map<String, String> env = new LinkedHashMap<>(System.getenv());
    env.putAll(options.environment());
    return env;
  }

  @Override
  public String runId() {
    return runId;
  }

  @Override
  public void cancel(String reason) {
    if (cancelReason == null) {
      cancelReason = reason == null ? "cancelled" : reason;
    }
    ctx.stopRequested = true;
    Thread t = thread;
    if (t != null && done.getCount() > 0) {
      t.interrupt();
    }
  }

  @Override
  public RunResult await() throws InterruptedException {
    done.await();
    return result;
  }

  @Override
  public Optional<RunResult> await(Duration timeout) throws InterruptedException {
    return done.await(timeout.toMillis(), TimeUnit.MILLISECONDS) ? Optional.of(result) : Optional.empty();
  }

  @Override
  public List<String> runningNodes() {
    return new ArrayList<>(ctx.running.keySet());
  }

  void run() {
    thread = Thread.currentThread();
    if (cancelReason != null) {
      thread.interrupt();
    }
    try {
      result = execute();
    } catch (RuntimeException | Error e) {
      result = new RunResult(runId, RunStatus.FAILED, null, redactor.map(runState.stateCopy()),
          masked(nodeReports()), budgets.used(), redactor.error(new RunError(ErrorCode.NODE_FAILED.code(),
          "internal error: " + e, null)));
    } finally {
      bus.close();
      ctx.closed = true;
      Thread.interrupted();
      try {
        store.flush();
      } catch (RuntimeException e) {
        // The run record is already written; only trailing events are lost, and the store reported why to the run.
      }
      lease.stop();
      done.countDown();
    }
  }

  private RunResult execute() {
    Instant started = clock.instant();
    Duration timeout = options.timeout() != null ? options.timeout() : workflow.limits().timeout();
    ctx.deadline = timeout == null ? null : started.plus(timeout);
    if (resumeFrom == null) {
      // The hash is of the source as written, credentials included: resume compares it with the file.
      record = redactor.record(new RunRecord(runId, workflow.name(), workflow.file(), workflow.source(),
          Hashes.sha256(workflow.source()), runState.inputs, RunStatus.RUNNING, started, null, Usage.NONE, null, null,
          null, null, options.workingDirectory().toString(), null, null));
      store.createRun(record);
      lease.acquire().ifPresent(held -> {
        throw new IllegalStateException("a new run's lease is held by " + held.owner());
      });
    } else {
      record = resumeFrom.resumed();
      store.updateRun(record);
    }
    runState.identify(runId, record.startedAt());
    lease.keep(() -> cancel("cancelled from another process"), () -> cancel("another process took over the run's "
        + "lease; this engine stalled past its expiry"));
    bus.publish((seq, at) -> new Event.RunStarted(runId, seq, at, workflow.name(), runState.inputs));
    Thread watchdog = null;
    if (ctx.deadline != null) {
      Thread self = Thread.currentThread();
      Duration t = timeout;
      watchdog = Thread.ofVirtual().start(() -> {
        try {
          Thread.sleep(Math.max(0, Duration.between(clock.instant(), ctx.deadline).toMillis()));
          timedOutRunning = new ArrayList<>(ctx.running.keySet());
          timedOut = true;
          ctx.stopRequested = true;
          self.interrupt();
        } catch (InterruptedException e) {
          // the run ended first
        }
      });
    }
    GraphRun.Result top;
    try {
      top = new GraphRun(ctx, ExecGraph.of(workflow.nodes(), workflow.edges()), runState.top, null).run();
    } finally {
      if (watchdog != null) {
        watchdog.interrupt();
      }
    }
    Thread.interrupted();
    return switch (top) {
      case GraphRun.Result.Completed c -> finish(RunStatus.COMPLETED, null);
      case GraphRun.Result.Failed f -> finish(RunStatus.FAILED, f.error());
      case GraphRun.Result.Paused p -> paused();
      case GraphRun.Result.Cancelled c -> {
        if (timedOut) {
          yield finish(RunStatus.FAILED, new RunError(ErrorCode.TIMEOUT.code(), "run timed out after "
              + Durations.format(timeout) + " (limits.timeout); running: " + timedOutRunning, null));
        }
        if (c.error() != null) {
          yield finish(RunStatus.CANCELLED, c.error());
        }
        yield finish(RunStatus.CANCELLED, new RunError(ErrorCode.CANCELLED.code(), "run cancelled: "
            + (cancelReason == null ? "cancelled" : cancelReason), null));
      }
    };
  }

  private RunResult paused() {
    RunContext.Pause p = ctx.pause();
    String at = p == null ? null : p.at().path();
    String message = p == null ? null : p.message();
    Usage usage = budgets.used();
    Map<String, Object> state = runState.stateCopy();
    Map<String, Map<String, Object>> nodes = nodeReports();
    record = redactor.record(record.paused(clock.instant(), usage, at, message, state, new LinkedHashMap<>(nodes)));
    store.updateRun(record);
    return new RunResult(runId, RunStatus.PAUSED, null, record.state(), nodes(record), usage, null,
        new RunResult.Pause(at, record.pauseMessage()));
  }

  private RunResult finish(RunStatus finalStatus, RunError finalError) {
    RunStatus status = finalStatus;
    RunError error = finalError;
    Object output = null;
    if (status == RunStatus.COMPLETED || status == RunStatus.CANCELLED) {
      try {
        output = ctx.runner.workflowOutput();
      } catch (RuntimeException ex) {
        if (status == RunStatus.COMPLETED) {
          status = RunStatus.FAILED;
          error = new RunError(ErrorCode.NODE_FAILED.code(), "the workflow's output: " + (ex.getMessage() == null
              ? ex.toString() : ex.getMessage()), null);
        }
      }
    }
    RunStatus s = status;
    Usage usage = budgets.used();
    Instant end = clock.instant();
    Map<String, Object> state = runState.stateCopy();
    Map<String, Map<String, Object>> nodes = nodeReports();
    record = redactor.record(record.finish(status, end, usage, output, error, state, new LinkedHashMap<>(nodes)));
    store.updateRun(record);
    RunError e = record.error();
    bus.publish((seq, at) -> new Event.RunFinished(runId, seq, at, s.json(), e == null ? null : e.code(),
        e == null ? null : e.message(), usage.inputTokens(), usage.outputTokens(), usage.costUsd(),
        usage.llmCalls()));
    return new RunResult(runId, status, record.output(), record.state(), nodes(record), usage, e);
  }

  private static Map<String, Map<String, Object>> nodes(RunRecord r) {
    return typed(r.nodes());
  }

  private Map<String, Map<String, Object>> masked(Map<String, Map<String, Object>> reports) {
    return typed(redactor.map(new LinkedHashMap<String, Object>(reports)));
  }

  /** Node reports as the result holds them (each report is a map). */
  @SuppressWarnings("unchecked")
  private static Map<String, Map<String, Object>> typed(Map<String, Object> reports) {
    Map<String, Map<String, Object>> out = new LinkedHashMap<>();
    reports.forEach((k, v) -> out.put(k, (Map<String, Object>) v));
    return out;
  }

  private Map<String, Map<String, Object>> nodeReports() {
    Map<String, Map<String, Object>> out = new LinkedHashMap<>();
    Frame top = runState.top;
    for (Node n : workflow.nodes()) {
      Map<String, Object> r = top.ownResult(n.id());
      NodeStatus s = top.ownStatus(n.id());
      Map<String, Object> report = NodeResults.report(r, s == null ? NodeStatus.NOT_RUN : s);
      report.replaceAll((k, v) -> Values.plain(v));
      out.put(n.id(), report);
    }
    return out;
  }
}
