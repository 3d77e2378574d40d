package dev.loopflow.core.internal.exec;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.internal.plan.ExecGraph;
import dev.loopflow.core.internal.plan.LoadedWorkflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.NodeResults;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RestartRequest;
import dev.loopflow.core.run.RestartResponse;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunError;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.secrets.Redactor;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.core.store.LeaseLostException;
import dev.loopflow.core.store.RunCommand;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.core.time.Durations;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

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
 *
 * Internal failures (an unexpected exception anywhere in the engine, the journal refusing a write) take the same
 * road as a cancel (RunContext.failRun stops everything) and end in finish(FAILED, internal_error), so the journal
 * never keeps a run as running unless this process died. Only if the store also refuses that last write does the
 * journal keep "running"; resume treats such a run like a crashed one.
 *
 * The result handed back is built from the record just journaled (RunReports.result), the same function that
 * `loopflow show` uses, so what a run printed and what the journal shows cannot drift apart.
 */
final class RunExecution implements RunHandle {
  private final String runId;
  private final Workflow workflow;
  private final RunOptions options;
  private final RunStore store;
  private final Clock clock;
  private final RunState runState;
  private final EventBus bus;
  private final Budgets budgets;
  private final RunContext ctx;
  private final Units units;
  private final RunRecord resumeFrom;
  private final ResumeInput answer;
  private final RunLease lease;
  private final Redactor redactor;
  private final CountDownLatch done = new CountDownLatch(1);
  private volatile Thread thread;
  private volatile RunResult result;
  private volatile String cancelReason;
  private volatile boolean timedOut;
  /**
   * Journal the new run (record and run.started) and stop there, leaving it for any engine to continue; non-null
   * also hands the run over (queues it) once that is durable, and ends it failed if that fails.
   */
  private volatile Consumer<String> journalOnly;
  private volatile List<String> timedOutRunning = List.of();
  private RunRecord record;

  /**
   * {@code resumeFrom} and {@code answer}: the journaled run this attempt continues and what the person answered
   * (null for a new run).
   */
  RunExecution(String runId, Workflow workflow, Map<String, Object> inputs, RunOptions options, EngineParts parts,
      RunRecord resumeFrom, ResumeInput answer, RunContext.Replay replay, long lastSeq, RunLease lease) {
    this(runId, workflow, inputs, options, parts, resumeFrom, answer, replay, lastSeq, lease, null);
  }

  /** {@code caller}: what a child run owes the node that started it; null for a run nobody started. */
  RunExecution(String runId, Workflow workflow, Map<String, Object> inputs, RunOptions options, EngineParts parts,
      RunRecord resumeFrom, ResumeInput answer, RunContext.Replay replay, long lastSeq, RunLease lease,
      ChildLedger caller) {
    RunStore store = parts.store();
    Clock clock = parts.clock();
    ExecutorService executor = parts.executor();
    Map<Class<?>, Object> services = parts.services();
    this.runId = runId;
    this.lease = lease;
    this.workflow = workflow;
    this.options = options;
    this.store = store;
    this.clock = clock;
    this.resumeFrom = resumeFrom;
    this.answer = answer;
    this.budgets = caller == null ? new Budgets(workflow.budget()) : new Budgets(workflow.budget(), caller.budgets);
    // A resumed run's budget starts from everything its journal says was spent, not only what it restores.
    budgets.add(replay.charged());
    this.runState = new RunState(workflow, inputs, budgets, options.environment());
    this.redactor = Redactor.forRun(environment(parts.environment(), options), workflow,
        workflow instanceof LoadedWorkflow w ? w.credentials() : null, inputs);
    this.bus = new EventBus(runId, clock, options.listeners(), lastSeq, redactor);
    this.bus.journal(store::appendEvent, this::journalFailed);
    this.ctx = new RunContext(runId, workflow, options, store, clock, executor, runState, bus, budgets, services,
        replay, redactor, caller == null ? new AtomicInteger() : caller.childRuns);
    this.units = new Units(ctx, new Recorder(ctx));
    ctx.onFatal = this::stopForInternalFailure;
  }

  /** What nodes see plus the process environment, where LLM providers find their keys. */
  private static Map<String, String> environment(Map<String, String> process, RunOptions options) {
    Map<String, String> env = new LinkedHashMap<>(process);
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

  /** Another thread failed the run: wake the run's thread as a cancel would (its own failures need no wake-up). */
  private void stopForInternalFailure() {
    Thread t = thread;
    if (t != null && t != Thread.currentThread() && done.getCount() > 0) {
      t.interrupt();
    }
  }

  private void journalFailed(Throwable e) {
    ctx.failRun("the run store refused an event: " + Throwables.describe(e), e);
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

  /**
   * Makes this new run's attempt only journal the run (its record and {@code run.started}), then give it to
   * {@code handOver} (with its id, once that is durable and while this attempt still holds the run's lease) and end,
   * its lease given up, with the run left {@code running}: an engine that resumes it then executes it from the start.
   * When {@code handOver} throws, nobody will execute the run, so it ends failed here with that error.
   */
  void journalOnly(Consumer<String> handOver) {
    journalOnly = Objects.requireNonNull(handOver, "handOver");
  }

  /** Whether the run has ended here: its result is set and its lease given up. */
  boolean ended() {
    return done.getCount() == 0;
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
      ctx.failRun("internal error: " + Throwables.describe(e), e);
      Thread.interrupted();
      result = endInternally();
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

  /**
   * Ends a run that hit an internal failure outside the normal paths: journaled as failed with it when the store
   * still takes writes, otherwise only returned (the journal then keeps the run as running, which resume treats
   * as a crash).
   */
  private RunResult endInternally() {
    RunError error = ctx.fatal();
    if (record != null && !ctx.leaseLost()) {
      try {
        return finish(RunStatus.FAILED, error);
      } catch (RuntimeException | Error again) {
        // fall through: the store refuses the run's end too
      }
    }
    Map<String, Map<String, Object>> nodes = Map.of();
    Map<String, Object> state = Map.of();
    try {
      nodes = runState.nodeReports();
      state = runState.stateCopy();
    } catch (RuntimeException | Error again) {
      // keep the empty report: the error says what happened
    }
    return new RunResult(runId, RunStatus.FAILED, null, redactor.map(state), redactor.map(nodes), budgets.used(),
        redactor.error(error), null);
  }

  private RunResult execute() {
    Instant started = clock.instant();
    Duration timeout = options.timeout() != null ? options.timeout() : workflow.limits().timeout();
    ctx.deadline = timeout == null ? null : started.plus(timeout);
    Map<String, Object> journaledOptions = journalable(options.options());
    if (resumeFrom == null) {
      // The hash is of the source as written, credentials included: resume compares it with the file.
      RunRecord fresh = redactor.record(RunRecord.builder().runId(runId).workflow(workflow.name())
          .file(workflow.file()).source(workflow.source()).sourceHash(RunRecord.hashOf(workflow.source()))
          .inputs(runState.inputs).options(journaledOptions).status(RunStatus.RUNNING).startedAt(started)
          .workingDirectory(options.workingDirectory().toString()).build());
      // Only a record this run created is ever written again: when its id is already taken (another run, another
      // process), the create fails and this run ends without touching the other run's record.
      store.createRun(fresh);
      record = fresh;
      lease.acquire().ifPresent(held -> {
        throw new IllegalStateException("a new run's lease is held by " + held.owner());
      });
      if (journalOnly != null) {
        runState.identify(runId, record.startedAt());
        bus.publish((seq, at) -> new Event.RunStarted(runId, seq, at, workflow.name(), runState.inputs));
        store.flush();
        try {
          journalOnly.accept(runId);
        } catch (RuntimeException e) {
          // The queue's own error says what failed (the callers say that the run could not be queued).
          return finish(RunStatus.FAILED, e instanceof LoopflowException le
              ? new RunError(le.code(), le.getMessage(), null)
              : new RunError(ErrorCode.INTERNAL_ERROR, "internal error while queueing the run: "
                  + Throwables.describe(e), null));
        }
        return RunReports.result(record);
      }
    } else {
      record = resumeFrom.resumed(journaledOptions);
      store.updateRun(record);
    }
    runState.identify(runId, record.startedAt());
    lease.keep(reason -> cancel(reason.isBlank() ? "cancelled from another process" : reason),
        () -> ctx.failRun("another engine took over the run's lease; this engine stalled past its expiry",
            new LeaseLostException(runId, "lease of run '" + runId + "' lost")),
        ctx.commands::poll);
    if (resumeFrom == null) {
      bus.publish((seq, at) -> new Event.RunStarted(runId, seq, at, workflow.name(), runState.inputs));
    } else {
      String from = switch (resumeFrom.status()) {
        case PAUSED -> "paused";
        case FAILED -> "failed";
        // Running with no process executing it: journaled only (queued) until an attempt shows in the journal.
        default -> ctx.replay.begun() ? "crashed" : "queued";
      };
      bus.publish((seq, at) -> new Event.RunResumed(runId, seq, at, workflow.name(), from, resumeFrom.pausedAt(),
          answerJson(answer)));
      // Durable before the first node starts: an attempt that dies before anything else is journaled (an LLM call in
      // flight, say) still shows as an attempt, so every repeated call can be accounted to a takeover.
      store.flush();
    }
    Thread watchdog = null;
    if (ctx.deadline != null) {
      Thread self = Thread.currentThread();
      Duration t = timeout;
      watchdog = Thread.ofVirtual().start(() -> {
        try {
          ctx.waits.sleepInterruptibly(Duration.between(clock.instant(), ctx.deadline));
          timedOutRunning = new ArrayList<>(ctx.running.keySet());
          timedOut = true;
          ctx.stopRequested = true;
          self.interrupt();
        } catch (InterruptedException e) {
          // the run ended first
        }
      });
    }
    if (resumeFrom != null) {
      ctx.commands.prepareResume(ctx.replay.decidedRestarts(), ctx.replay::completedAt, ctx.restartIteration());
    }
    LevelResult top;
    try {
      top = units.runTop(LoadedWorkflow.planOf(workflow), runState.top);
    } finally {
      if (watchdog != null) {
        watchdog.interrupt();
      }
    }
    Thread.interrupted();
    if (ctx.leaseLost()) {
      return endInternally();
    }
    if (ctx.fatal() != null) {
      return finish(RunStatus.FAILED, ctx.fatal());
    }
    return switch (top) {
      case LevelResult.Completed c -> finish(RunStatus.COMPLETED, null);
      case LevelResult.Failed f -> finish(RunStatus.FAILED, f.error());
      case LevelResult.Paused p -> paused();
      case LevelResult.Restart r -> finish(RunStatus.COMPLETED, null);
      case LevelResult.Cancelled c -> {
        if (timedOut) {
          yield finish(RunStatus.FAILED, new RunError(ErrorCode.TIMEOUT, "run timed out after "
              + Durations.format(timeout) + " (limits.timeout); running: " + timedOutRunning, null));
        }
        if (c.error() != null) {
          yield finish(RunStatus.CANCELLED, c.error());
        }
        yield finish(RunStatus.CANCELLED, new RunError(ErrorCode.CANCELLED, "run cancelled: "
            + (cancelReason == null ? "cancelled" : cancelReason), null));
      }
    };
  }

  /**
   * Every request still pending on the run's bus when it completes or is cancelled gets its answer: nothing decides
   * it any more. A requester waiting (loopflow signal) learns the run ended first.
   */
  private void answerLeftovers(RunStatus status) {
    if (status == RunStatus.FAILED) {
      return; // a failed run may be resumed, and its resumed run decides what is still pending
    }
    try {
      ctx.commands.poll();
      List<RunCommand> left = new ArrayList<>(ctx.commands.drain());
      for (RunCommand c : store.pendingCommands(runId)) {
        if (left.stream().noneMatch(x -> x.seq() == c.seq())) {
          left.add(c);
        }
      }
      for (RunCommand c : left) {
        RestartRequest req = RestartRequest.fromMap(c.payload());
        ctx.commands.respond(RestartResponse.runEnded(c.seq(), req.targetStageId(), status,
            ctx.restartIteration()));
      }
    } catch (RuntimeException e) {
      // The store is failing; the run's own end is what matters now.
    }
  }

  /**
   * The run's WORKFLOW shared-memory namespace ends with it, unless its restart policy keeps it. A failed run keeps
   * it: it can be resumed, and its resumed stages read what earlier stages stored there (a cut output's notice
   * names the key). It goes when the run completes or is cancelled (also when a failed run is cancelled later).
   */
  private void clearWorkflowMemory(RunStatus status) {
    if (status != RunStatus.FAILED) {
      RunMemory.clearWorkflow(workflow, store, runId);
    }
  }

  /** The answer as the run.resumed event carries it; null when none was given. */
  private static Map<String, Object> answerJson(ResumeInput in) {
    if (in == null || in.isEmpty() && in.comment() == null) {
      return null;
    }
    Map<String, Object> m = new LinkedHashMap<>();
    if (in.text() != null) {
      m.put("text", in.text());
    }
    if (in.decision() != null) {
      m.put("decision", in.decision().json());
    }
    if (in.comment() != null) {
      m.put("comment", in.comment());
    }
    if (in.values() != null) {
      m.put("values", in.values());
    }
    return m;
  }

  private RunResult paused() {
    record = redactor.record(record.paused(clock.instant(), budgets.used(), ctx.pause(), runState.stateCopy(),
        new LinkedHashMap<>(runState.nodeReports())).toBuilder().pipeline(pipeline()).build());
    store.updateRun(record);
    return RunReports.result(record);
  }

  /** The run's pipeline summary from its journal (one read, only for a workflow with a restart policy). */
  private Map<String, Object> pipeline() {
    return workflow.restartPolicy() == null ? null : RunReports.pipeline(workflow, store.nodeExecutions(runId));
  }

  private RunResult finish(RunStatus finalStatus, RunError finalError) {
    RunStatus status = finalStatus;
    RunError error = finalError;
    Object output = null;
    if (status == RunStatus.COMPLETED || status == RunStatus.CANCELLED) {
      try {
        output = runState.workflowOutput();
      } catch (RuntimeException ex) {
        if (status == RunStatus.COMPLETED) {
          status = RunStatus.FAILED;
          error = new RunError(ErrorCode.NODE_FAILED, "the workflow's output: " + (ex.getMessage() == null
              ? ex.toString() : ex.getMessage()), null);
        }
      }
    }
    record = RunReports.endRecord(redactor, record, status, clock.instant(), budgets.usedAtEnd(), output, error,
        runState.stateCopy(), runState.nodeReports(), pipeline());
    RunRecord ended = record;
    // The final record and its run.finished are journaled in one write: a process killed at any moment leaves both
    // or neither (it used to be two commits, and a worker killed between them left a completed run without its
    // run.finished). Listeners see run.finished once that write is durable.
    if (!bus.publishJournaled((seq, at) -> RunReports.finishedEvent(ended, seq, at),
        e -> store.finishRun(ended, (Event.RunFinished) e))) {
      store.updateRun(ended);
    }
    answerLeftovers(status);
    clearWorkflowMemory(status);
    return RunReports.result(record);
  }

  /**
   * The run options journaled with a run, for a resume to reuse: those whose values are plain JSON (text, numbers,
   * booleans, lists and maps of them). Anything else (a Java object handed in through the API) cannot be stored
   * and must be passed again on resume.
   */
  private static Map<String, Object> journalable(Map<String, Object> options) {
    Map<String, Object> out = new LinkedHashMap<>();
    options.forEach((k, v) -> {
      if (isPlainJson(v)) {
        out.put(k, v);
      }
    });
    return out;
  }

  private static boolean isPlainJson(Object v) {
    if (v == null || v instanceof String || v instanceof Boolean || v instanceof Number) {
      return true;
    }
    if (v instanceof List<?> l) {
      return l.stream().allMatch(RunExecution::isPlainJson);
    }
    if (v instanceof Map<?, ?> m) {
      return m.entrySet().stream().allMatch(e -> e.getKey() instanceof String && isPlainJson(e.getValue()));
    }
    return false;
  }
}
