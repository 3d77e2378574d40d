package dev.loopflow.core.internal.exec;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ForkEdits;
import dev.loopflow.core.run.ForkPlan;
import dev.loopflow.core.run.ForkPoint;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.ResumeRefusal;
import dev.loopflow.core.run.RunError;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.secrets.Redactor;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.core.store.JournalSlice;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunInfo;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import java.util.function.Function;

/** Starts runs. Holds what is shared by all runs of one engine: store, services, clock, executor. */
public final class Engine {
  private final RunStore store;
  private final Map<Class<?>, Object> services;
  private final Clock clock;
  private final ExecutorService executor;
  private final EngineParts parts;
  private final Function<RunRecord, Workflow> journaledWorkflow;
  private final String ownerId = RunLease.newOwnerId();
  /**
   * The runs this engine is executing now. Their lease is held by this engine's owner id, which the store treats as
   * a renewal, so the lease cannot tell a cancel or resume from here that the run is busy: this map does.
   */
  private final Map<String, RunExecution> executing = new ConcurrentHashMap<>();

  /**
   * {@code journaledWorkflow} parses the workflow source a run journaled (null when it has none or no longer
   * loads); it is needed to rebuild the report of a run that did not journal one.
   */
  public Engine(RunStore store, Map<Class<?>, Object> services, Clock clock,
      Function<RunRecord, Workflow> journaledWorkflow) {
    this(store, services, clock, System.getenv(), journaledWorkflow);
  }

  /** {@code environment}: the process environment runs see (injected, like the clock, for tests). */
  public Engine(RunStore store, Map<Class<?>, Object> services, Clock clock, Map<String, String> environment,
      Function<RunRecord, Workflow> journaledWorkflow) {
    this.store = store;
    this.services = Map.copyOf(services);
    this.clock = clock;
    this.journaledWorkflow = journaledWorkflow;
    this.executor = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("loopflow-node-", 0).factory());
    this.parts = new EngineParts(store, this.services, clock, executor, environment);
  }

  /** The process environment runs see. */
  public Map<String, String> environment() {
    return parts.environment();
  }

  public RunHandle start(Workflow workflow, Map<String, Object> inputs, RunOptions options) {
    return start(workflow, inputs, options, null);
  }

  /**
   * Starts a run; {@code caller} non-null makes it a child run of the node it came from: its LLM calls are reserved
   * in that node's budgets too, and it counts in that run's tally of child runs.
   */
  public RunHandle start(Workflow workflow, Map<String, Object> inputs, RunOptions options, ChildLedger caller) {
    String runId = options.runId() != null ? options.runId() : newRunId();
    RunExecution scheduler = new RunExecution(runId, workflow, inputs, options, parts, null,
        null, RunContext.Replay.NONE, 0, new RunLease(store, runId, ownerId, clock), caller);
    execute(runId, scheduler);
    return scheduler;
  }

  /**
   * Journals a new run (its record and {@code run.started}) without executing it, gives its id to {@code handOver}
   * once that is durable, and returns: the run stays {@code running} with no lease, and whichever engine resumes it
   * executes it from the start. This is how a run is queued for a worker process ({@code handOver} queues it; when
   * it throws, the run ends failed with its error).
   */
  public RunResult journalOnly(Workflow workflow, Map<String, Object> inputs, RunOptions options,
      Consumer<String> handOver) throws InterruptedException {
    String runId = options.runId() != null ? options.runId() : newRunId();
    RunExecution scheduler = new RunExecution(runId, workflow, inputs, options, parts, null,
        null, RunContext.Replay.NONE, 0, new RunLease(store, runId, ownerId, clock));
    scheduler.journalOnly(handOver);
    scheduler.run();
    return scheduler.await();
  }

  /**
   * Continues a paused, failed or interrupted run from its journal: executions that completed are restored, not
   * repeated, and {@code input} answers what the run waits for. The run options it journaled (the mock provider
   * and its script, say) apply unless {@code options} sets the same option. The caller checks that
   * {@code workflow} is the one the run started with.
   */
  public RunHandle resume(Workflow workflow, RunRecord run, ResumeInput input, RunOptions options) {
    String id = run.runId();
    if (executingHere(id) != null) {
      throw new LoopflowException(ErrorCode.RUN_BUSY, "run '" + id + "' is being executed by this engine; cancel it "
          + "or wait for it to end");
    }
    RunLease lease = new RunLease(store, run.runId(), ownerId, clock);
    lease.acquire().ifPresent(held -> {
      throw new LoopflowException(ErrorCode.RUN_BUSY, "run '" + id + "' is being executed by "
          + held.owner() + " (its lease runs until " + held.until() + "); cancel it there or wait for it to end");
    });
    // Re-read under the lease: another process may have finished or answered the run since the caller looked.
    run = store.findRun(run.runId()).orElse(run);
    Optional<ResumeRefusal> refused = ResumeRefusal.check(run.runId(), run.status(), run.waiting(), input,
        clock.instant());
    if (refused.isPresent()) {
      lease.stop();
      ResumeRefusal r = refused.get();
      throw new LoopflowException(r.reason() == ResumeRefusal.Reason.NOT_RESUMABLE ? ErrorCode.RUN_NOT_RESUMABLE
          : r.reason() == ResumeRefusal.Reason.INVALID_VALUES ? ErrorCode.ANSWER_INVALID : ErrorCode.USAGE,
          r.message());
    }
    // A cancel request left from before (answered by a process that died, say) must not stop the resumed run. It is
    // read first: most resumes have none to clear, and a read costs less than a write.
    if (store.cancelRequest(run.runId()).isPresent()) {
      store.requestCancel(run.runId(), null);
    }
    List<NodeExecution> rows = store.nodeExecutions(run.runId());
    long lastSeq = 0;
    List<Event> events = store.events(run.runId());
    for (Event e : events) {
      lastSeq = Math.max(lastSeq, e.seq());
    }
    RunContext.Replay replay;
    Forks.Origin fork = Forks.Origin.of(run);
    if (fork == null) {
      replay = new RunContext.Replay(rows, run.pausedAt(), input, events);
    } else {
      // A fork resumes from what it reuses of its origin (read there, by reference) and what it journaled itself;
      // its budget is charged with its own spending only.
      RunRecord origin = store.findRun(fork.runId()).orElseThrow(() -> new LoopflowException(
          ErrorCode.RUN_NOT_RESUMABLE, "run '" + id + "' is a fork of run '" + fork.runId() + "', which is no "
              + "longer in the store"));
      ForkPoint at = ForkPoint.parse(fork.at());
      Forks.Cut cut = Forks.cut(origin.runId(), Forks.rows(store, origin), Forks.events(store, origin), at);
      List<NodeExecution> all = new ArrayList<>(Forks.withOutputs(origin.runId(), cut.reused(),
          fork.edits()));
      all.addAll(rows);
      List<Event> allEvents = new ArrayList<>(cut.reusedEvents());
      allEvents.addAll(events);
      replay = new RunContext.Replay(all, run.pausedAt(), input, allEvents).forFork(
          new ForkSteer(at, fork.edits(), cut.nodeAt()), new RunContext.Replay(rows, null, null, events).total());
      lastSeq = Math.max(lastSeq, fork.eventSeq());
    }
    RunExecution scheduler = new RunExecution(run.runId(), workflow, run.inputs(), options.withOptionDefaults(run.options()),
        parts, run, input, replay, lastSeq, lease);
    execute(run.runId(), scheduler);
    return scheduler;
  }

  /**
   * Starts a fork of {@code origin} at {@code at}: a new run of {@code workflow} that reuses what the origin
   * journaled before the point (read from the origin's journal, not copied, not charged to the fork's budget),
   * applies {@code edits} at the point and executes everything from it on. The caller checks that {@code workflow}
   * leaves the nodes before the point as the origin ran them.
   */
  public RunHandle fork(RunRecord origin, Workflow workflow, ForkPoint at, ForkEdits edits, RunOptions options) {
    if (options.options().containsKey(RunOptions.FORKED_FROM)) {
      throw new LoopflowException(ErrorCode.USAGE, "the run option '" + RunOptions.FORKED_FROM + "' is the "
          + "engine's own; start a fork with fork(...)", null);
    }
    Forks.Cut cut = Forks.cut(origin.runId(), Forks.rows(store, origin), Forks.events(store, origin), at);
    List<NodeExecution> reused = Forks.withOutputs(origin.runId(), cut.reused(), edits);
    Usage reusedUsage = new RunContext.Replay(cut.reused(), null, null, cut.reusedEvents()).total();
    RunContext.Replay replay = new RunContext.Replay(reused, null, null, cut.reusedEvents())
        .forFork(new ForkSteer(at, edits, cut.nodeAt()), Usage.NONE);
    Map<String, Object> inputs = new LinkedHashMap<>(origin.inputs());
    inputs.putAll(edits.inputs());
    Map<String, Object> defaults = new LinkedHashMap<>(origin.options());
    defaults.put(RunOptions.FORKED_FROM, new Forks.Origin(origin.runId(), at.text(), cut.rows(), cut.eventSeq(),
        edits).toJson(reusedUsage));
    String runId = options.runId() != null ? options.runId() : newRunId();
    RunExecution run = new RunExecution(runId, workflow, inputs, options.withOptionDefaults(defaults), parts, null, null, replay, cut.eventSeq(), new RunLease(store, runId, ownerId, clock));
    execute(runId, run);
    return run;
  }

  /** What a fork of {@code origin} at {@code at} would reuse and execute; nothing is started or called. */
  public ForkPlan planFork(RunRecord origin, ForkPoint at, ForkEdits edits) {
    List<Event> events = Forks.events(store, origin);
    Forks.Cut cut = Forks.cut(origin.runId(), Forks.rows(store, origin), events, at);
    Forks.withOutputs(origin.runId(), cut.reused(), edits); // refuses an output edit of a node that did not run
    return Forks.plan(origin.runId(), at, cut, events);
  }

  /**
   * The node executions of a run as it reads with what it reuses: for a fork, its origin's executions before the
   * fork point (their {@code runId} is the origin's), then its own; for any other run, its own.
   */
  public List<NodeExecution> executions(RunRecord run) {
    return Forks.rows(store, run);
  }

  /**
   * The executions of {@link #executions} in {@code slice}; a run that is no fork reads only those rows from the
   * store.
   */
  public List<NodeExecution> executions(RunRecord run, JournalSlice slice) {
    if (Forks.Origin.of(run) == null) {
      return store.nodeExecutions(run.runId(), slice);
    }
    return slice.executions(Forks.rows(store, run));
  }

  /** The run's events in {@code slice}, a fork's reused ones first; a run that is no fork reads only those rows. */
  public List<Event> events(RunRecord run, JournalSlice slice) {
    if (Forks.Origin.of(run) == null) {
      return store.events(run.runId(), slice);
    }
    return slice.events(Forks.events(store, run));
  }

  /**
   * The events a fork reuses from its origin's journal (those before its point, without the origin's run-level
   * events), which come before its own; none for a run that is no fork.
   */
  public List<Event> reusedEvents(RunRecord run) {
    if (Forks.Origin.of(run) == null) {
      return List.of();
    }
    List<Event> all = Forks.events(store, run);
    int own = store.events(run.runId()).size();
    return List.copyOf(all.subList(0, all.size() - own));
  }

  /** The runs forked from {@code runId}, oldest first. */
  public List<RunRecord> forksOf(String runId) {
    List<RunRecord> out = new ArrayList<>();
    for (RunRecord r : store.listRuns()) {
      Forks.Origin o = Forks.Origin.of(r);
      if (o != null && o.runId().equals(runId)) {
        out.add(r);
      }
    }
    out.sort(Comparator.comparing(RunRecord::startedAt));
    return out;
  }

  /** Runs the scheduler on its own thread, known as executing here until it has ended. */
  private void execute(String runId, RunExecution scheduler) {
    // A run of this id still executing here stays the one known (a second start of the id fails on its own).
    executing.compute(runId, (id, current) -> current != null && !current.ended() ? current : scheduler);
    Thread.ofVirtual().name("loopflow-run-" + runId).start(() -> {
      try {
        scheduler.run();
      } finally {
        executing.remove(runId, scheduler);
      }
    });
  }

  /** The run's scheduler when this engine executes it and it has not ended, else null. */
  private RunExecution executingHere(String runId) {
    RunExecution s = executing.get(runId);
    return s == null || s.ended() ? null : s;
  }

  /** See {@link dev.loopflow.core.Loopflow#cancel}. */
  public RunStatus cancel(String runId, String reason, Duration wait) {
    RunRecord run = store.findRun(runId).orElseThrow(() -> new LoopflowException(ErrorCode.RUN_NOT_RESUMABLE,
        "no run '" + runId + "' in this store"));
    if (run.status().isTerminal()) {
      return run.status();
    }
    String why = reason == null || reason.isBlank() ? "cancelled" : reason;
    RunExecution here = executingHere(runId);
    if (here != null) {
      // Its lease is this engine's own: stop it directly, as its handle would, and wait as for another process.
      here.cancel(Redactor.ofEnvironment(parts.environment()).text(why));
      try {
        here.await(wait);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      RunStatus now = store.findRun(runId).map(RunRecord::status).orElse(RunStatus.RUNNING);
      if (now != RunStatus.PAUSED || !here.ended()) {
        return now;
      }
      // It had paused before the cancel reached it (its record said paused while it was still finishing): it is now
      // a paused run nobody executes, cancelled as such below.
      run = store.findRun(runId).orElse(run);
    }
    RunLease lease = new RunLease(store, runId, ownerId, clock);
    if (lease.acquire().isEmpty()) {
      try {
        run = store.findRun(runId).orElse(run);
        if (run.status().isTerminal()) {
          return run.status();
        }
        cancelHere(run, why);
        return RunStatus.CANCELLED;
      } finally {
        lease.stop();
      }
    }
    store.requestCancel(runId, Redactor.ofEnvironment(parts.environment()).text(why));
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

  /**
   * Cancels a run no engine executes (paused, failed, or left running by a dead process), under its lease. Its
   * report is completed as a run's end would: a run that never journaled one gets the derived report, and a node
   * that was waiting for a person shows cancelled.
   */
  private void cancelHere(RunRecord run, String why) {
    Instant now = clock.instant();
    RunResult report = report(run);
    // The reason is the caller's text: masked like everything a run writes (its journal already is).
    Redactor redactor = Redactor.ofEnvironment(parts.environment());
    RunError error = new RunError(ErrorCode.CANCELLED, "run cancelled: " + why, null);
    RunRecord ended = RunReports.endRecord(redactor, run, RunStatus.CANCELLED, now, report.usage(), null, error,
        report.state(), report.nodes(), report.pipeline());
    long seq = 0;
    for (Event e : store.events(run.runId())) {
      seq = Math.max(seq, e.seq());
    }
    store.finishRun(ended, RunReports.finishedEvent(ended, seq + 1, now)); // both or neither
    // A cancelled run cannot be resumed: its WORKFLOW shared memory goes, as when a run is cancelled while it runs.
    // When the journaled workflow no longer parses, whether it keeps its memory is unknown, and it is kept.
    Workflow wf;
    try {
      wf = journaledWorkflow.apply(run);
    } catch (RuntimeException e) {
      wf = null;
    }
    if (wf != null) {
      RunMemory.clearWorkflow(wf, store, run.runId());
    }
  }

  /** The result object of a journaled run; see {@link RunReports}. */
  public Optional<RunResult> result(String runId) {
    return inspect(runId).map(RunInfo::result);
  }

  /** A journaled run with its result, read once. */
  public Optional<RunInfo> inspect(String runId) {
    return store.findRun(runId).map(r -> new RunInfo(r, report(r)));
  }

  private RunResult report(RunRecord r) {
    return RunReports.of(r.nodes() == null ? journaledWorkflow.apply(r) : null, r,
        r.nodes() == null ? store.nodeExecutions(r.runId()) : List.of());
  }

  public RunStore store() {
    return store;
  }

  static String newRunId() {
    String u = UUID.randomUUID().toString().replace("-", "");
    return "run_" + u.substring(0, 16);
  }
}
