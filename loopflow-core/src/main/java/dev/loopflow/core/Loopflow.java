package dev.loopflow.core;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.Location;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.Problem;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.graph.WorkflowGraph;
import dev.loopflow.core.internal.exec.ChildRunner;
import dev.loopflow.core.internal.exec.ChildRuns;
import dev.loopflow.core.internal.exec.Engine;
import dev.loopflow.core.internal.exec.RestartRequests;
import dev.loopflow.core.internal.exec.RunDiffs;
import dev.loopflow.core.internal.exec.WorkflowEdits;
import dev.loopflow.core.internal.load.LoaderVocabulary;
import dev.loopflow.core.internal.load.WorkflowLoader;
import dev.loopflow.core.internal.nodes.BuiltinHandlers;
import dev.loopflow.core.internal.plan.GraphBuilder;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ForkEdits;
import dev.loopflow.core.run.ForkPlan;
import dev.loopflow.core.run.ForkPoint;
import dev.loopflow.core.run.RestartRequest;
import dev.loopflow.core.run.RestartResponse;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.ResumeRefusal;
import dev.loopflow.core.run.RunDiff;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.schema.WorkflowSchema;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.store.JournalSlice;
import dev.loopflow.core.store.LeaseOwners;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunInfo;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.core.store.RunSummary;
import dev.loopflow.core.yaml.YamlReader;
import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The engine's front door: load or build a workflow, then run it.
 *
 * <pre>{@code
 * Loopflow engine = Loopflow.create();
 * Workflow wf = engine.load(Path.of("examples/hello.yaml"));
 * RunResult result = engine.run(wf, Map.of("name", "Ada"));
 * }</pre>
 *
 * Node handlers and services on the class path are found with {@link ServiceLoader}
 * ({@link NodeHandler}, {@link ServiceProvider}); more can be added on the {@link Builder}. An instance is
 * immutable and thread-safe; runs started from it are independent.
 */
public final class Loopflow {
  private final Map<String, NodeHandler> handlers;
  private final Map<Class<?>, Object> services;
  private final Engine engine;
  private final WorkflowLoader loader;
  /** The engine's clock: what this facade writes to the store is timed like what the engine writes. */
  private final Clock clock;

  private Loopflow(Map<String, NodeHandler> handlers, Map<Class<?>, Object> services, RunStore store, Clock clock,
      Map<String, String> environment) {
    this.handlers = Map.copyOf(handlers);
    this.clock = clock;
    Map<Class<?>, Object> s = new LinkedHashMap<>(services);
    // Child runs start on this very engine, made below with the services this one is among.
    AtomicReference<Engine> made = new AtomicReference<>();
    s.putIfAbsent(ChildRuns.class, new ChildRunner(made::get, this::load, Inputs::resolve));
    this.services = Map.copyOf(s);
    this.engine = new Engine(store, this.services, clock, environment, this::journaledWorkflow);
    made.set(engine);
    this.loader = new WorkflowLoader(this.handlers, this.services);
  }

  /** An engine with every handler on the class path and an in-memory store. */
  public static Loopflow create() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Loads and validates a workflow file; throws {@link WorkflowInvalidException} listing every problem, and with one
   * problem when the file cannot be read.
   */
  public Workflow load(Path file) {
    String text;
    try {
      // Refuse a huge file before reading it: the reader's own limit would only apply after it is in memory.
      long bytes = Files.size(file);
      if (bytes > 4L * YamlReader.MAX_FILE_CHARS) {
        throw new WorkflowInvalidException(List.of(new Problem(
            new Location(file.toString(), 1, 1), "", "the file has " + bytes
                + " bytes; the limit for a workflow file is " + YamlReader.MAX_FILE_CHARS
                + " characters")));
      }
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (MalformedInputException e) {
      throw new WorkflowInvalidException(List.of(new Problem(
          new Location(file.toString(), 1, 1), "", "the file is not UTF-8 text")));
    } catch (IOException e) {
      throw WorkflowInvalidException.unreadable(file, e);
    }
    return parse(text, file.toString());
  }

  /** Loads a workflow from YAML text; {@code fileName} is used in problem locations. */
  public Workflow parse(String yaml, String fileName) {
    return loader.load(yaml, fileName);
  }

  /** Starts building a workflow in code; {@link WorkflowBuilder#build()} validates it like a file. */
  public WorkflowBuilder workflow(String name) {
    return new WorkflowBuilder(name, this);
  }

  /** Starts a run and returns at once. Inputs are checked against the workflow's declared inputs. */
  public RunHandle start(Workflow workflow, RunOptions options) {
    Map<String, Object> inputs = Inputs.resolve(workflow, options.inputs());
    return engine.start(workflow, inputs, options);
  }

  /**
   * Journals a new run without executing it (its record, status {@code running}, and {@code run.started}) and
   * returns its result object as journaled; the run is executed by whichever engine next resumes it (a worker
   * taking it from a queue). Inputs are checked as for {@link #start}. A failure to journal it (the id is taken, the
   * store refuses) is the result's error.
   */
  public RunResult journalNew(Workflow workflow, RunOptions options) throws InterruptedException {
    return journalNew(workflow, options, id -> { });
  }

  /**
   * {@link #journalNew(Workflow, RunOptions)}, then {@code queue} gets the run's id once the run is durable (and
   * before any other engine may execute it). When {@code queue} throws, nothing will ever execute the run, so it
   * ends {@code failed} with that exception's code and message when it is a {@link LoopflowException}, else with
   * {@code internal_error}, and the result says so.
   */
  public RunResult journalNew(Workflow workflow, RunOptions options, Consumer<String> queue)
      throws InterruptedException {
    Map<String, Object> inputs = Inputs.resolve(workflow, options.inputs());
    return engine.journalOnly(workflow, inputs, options, queue);
  }

  /**
   * Sends a restart request to a run from outside it (another thread, another process on the same store): it goes
   * on the run's durable command bus and the engine executing the run decides it after the node running now
   * completes. Returns the request's number on the bus; {@link #restartResponse} reads the answer. Throws
   * {@code usage} when the run does not exist or has ended, and answers at once (without queueing) a run whose
   * workflow has no restart policy.
   */
  public long requestRestart(String runId, RestartRequest request) {
    return RestartRequests.request(store(), clock, engine.environment(), this::journaledWorkflow, runId, request);
  }

  /**
   * The engine's answer to restart request {@code seq} of the run, once it decided. An accepted restart's
   * {@code output} is the output of the target stage in the iteration the restart started, as text (compact JSON
   * for a structured one), once that stage has completed; until then (and for a refused request) it is null.
   */
  public Optional<RestartResponse> restartResponse(String runId, long seq) {
    return RestartRequests.response(store(), runId, seq);
  }

  /**
   * {@link #requestRestart} and waits up to {@code wait} for the answer; empty when the run has not decided by
   * then (it may still, later).
   */
  public Optional<RestartResponse> signalRestart(String runId,
      RestartRequest request, Duration wait) throws InterruptedException {
    long seq = requestRestart(runId, request);
    long until = System.nanoTime() + wait.toNanos();
    for (;;) {
      Optional<RestartResponse> r = restartResponse(runId, seq);
      if (r.isPresent() || System.nanoTime() >= until) {
        return r;
      }
      Thread.sleep(50);
    }
  }

  /**
   * Forks run {@code runId} at {@code at}: a new run of the workflow source the run journaled that reuses what the
   * run journaled before the point (not executed, not sent to a provider, not charged to the fork's budget), applies
   * {@code edits} there and executes the rest. Returns at once, like {@link #start}; the fork is an ordinary run
   * afterwards (resume, pause, cancel). Throws {@code fork_refused} for a point not in the run's journal.
   */
  public RunHandle fork(String runId, ForkPoint at, ForkEdits edits, RunOptions options) {
    RunRecord origin = forkable(runId);
    Workflow wf = journaledWorkflow(origin);
    if (wf == null || !origin.sourceIsExact()) {
      throw new LoopflowException(ErrorCode.FORK_REFUSED, "the journaled workflow of run '" + runId + "' cannot run "
          + "as it is (built in code, or with credentials masked); load its workflow and pass it to fork(...)");
    }
    return engine.fork(origin, wf, at, edits, options);
  }

  /**
   * {@link #fork(String, ForkPoint, ForkEdits, RunOptions)} with an edited {@code workflow}: the nodes that ran
   * before the point and do not run again from it must be as the run had them, or this throws {@code fork_refused}
   * naming them.
   */
  public RunHandle fork(String runId, ForkPoint at, ForkEdits edits, Workflow workflow, RunOptions options) {
    RunRecord origin = forkable(runId);
    WorkflowEdits.check(origin, workflow, engine.planFork(origin, at, edits), at);
    return engine.fork(origin, workflow, at, edits, options);
  }

  /** What a fork would reuse and execute, and the most it can cost; nothing is started or called. */
  public ForkPlan planFork(String runId, ForkPoint at, ForkEdits edits) {
    return engine.planFork(forkable(runId), at, edits);
  }

  /**
   * A run's node executions as it reads with what it reuses: a fork's start with its origin's executions before the
   * fork point (their {@code runId} names the run they ran in); empty when the store has no such run.
   */
  public List<NodeExecution> executions(String runId) {
    return store().findRun(runId).map(engine::executions).orElse(List.of());
  }

  /**
   * The executions of {@link #executions} in {@code slice}: {@code JournalSlice.under("refine[3].")} for one pass,
   * {@code recentPasses(20)} for the last 20 passes of every loop. A run that is no fork reads only those rows.
   */
  public List<NodeExecution> executions(String runId, JournalSlice slice) {
    return store().findRun(runId).map(r -> engine.executions(r, slice)).orElse(List.of());
  }

  /** The run's events in {@code slice}, in the order they happened, a fork's reused ones first. */
  public List<Event> events(String runId, JournalSlice slice) {
    return store().findRun(runId).map(r -> engine.events(r, slice)).orElse(List.of());
  }

  /**
   * Two passes of one loop of run {@code runId} side by side: the state after each pass and the outputs of the
   * nodes in each. Throws {@code usage} for a run or pass that is not in the store.
   */
  public RunDiff diff(String runId, ForkPoint.Pass a, ForkPoint.Pass b) {
    RunRecord run = store().findRun(runId).orElseThrow(() -> new LoopflowException(ErrorCode.USAGE,
        "no run '" + runId + "' in this store"));
    List<NodeExecution> rows = engine.executions(run);
    Workflow wf = journaledWorkflow(run);
    return new RunDiff(RunDiffs.pass(wf, run, rows, a), RunDiffs.pass(wf, run, rows, b));
  }

  /** Two runs side by side (a fork and its origin, say): each one's state and top-level outputs as it stands. */
  public RunDiff diff(String runA, String runB) {
    RunDiff.Side[] sides = new RunDiff.Side[2];
    String[] ids = {runA, runB};
    for (int i = 0; i < 2; i++) {
      String id = ids[i];
      RunInfo info = inspect(id).orElseThrow(() -> new LoopflowException(ErrorCode.USAGE,
          "no run '" + id + "' in this store"));
      sides[i] = RunDiffs.run(info.record(), info.result());
    }
    return new RunDiff(sides[0], sides[1]);
  }

  /**
   * The events a fork reuses from its origin, which come before its own (their sequence numbers are below its
   * first); empty for a run that is no fork, or no run.
   */
  public List<Event> reusedEvents(String runId) {
    return store().findRun(runId).map(engine::reusedEvents).orElse(List.of());
  }

  /** The runs forked from run {@code runId}, oldest first. */
  public List<RunRecord> forks(String runId) {
    return engine.forksOf(runId);
  }

  private RunRecord forkable(String runId) {
    return store().findRun(runId).orElseThrow(() -> new LoopflowException(ErrorCode.FORK_REFUSED,
        "no run '" + runId + "' in this store"));
  }

  /** Runs to the end and returns the result (the same object {@code loopflow run --json} prints). */
  public RunResult run(Workflow workflow, RunOptions options) {
    RunHandle h = start(workflow, options);
    try {
      return h.await();
    } catch (InterruptedException e) {
      h.cancel("interrupted");
      Thread.currentThread().interrupt();
      throw new LoopflowException(ErrorCode.CANCELLED, "interrupted while waiting for run " + h.runId());
    }
  }

  /** Continues a paused run of {@code workflow}, answering its gate with {@code input} (may be null); returns now. */
  public RunHandle resume(Workflow workflow, String runId, String input, RunOptions options) {
    return resume(workflow, runId, ResumeInput.text(input), options, false);
  }

  /**
   * Continues a paused, failed or interrupted run journaled in this engine's store. Executions that completed are
   * restored from the journal, not repeated; the node that was running (or failed the run) runs again;
   * {@code input} answers the gate or approval the run waits at. {@code workflow} must be the version the run
   * started with unless {@code allowChangedWorkflow}: then positions journaled by the old version are replayed
   * into the new one where they still exist. Throws {@link LoopflowException} with {@link ErrorCode#RUN_BUSY}
   * when another engine executes the run, {@link ErrorCode#RUN_NOT_RESUMABLE} when it completed or was
   * cancelled, {@link ErrorCode#WORKFLOW_CHANGED} when the workflow differs.
   */
  public RunHandle resume(Workflow workflow, String runId, ResumeInput input, RunOptions options,
      boolean allowChangedWorkflow) {
    return resume(workflow, resumable(runId), input, options, allowChangedWorkflow);
  }

  /** As above, with the record its caller just read (may be stale: the engine reads it again under the lease). */
  public RunHandle resume(Workflow workflow, RunRecord run, ResumeInput input, RunOptions options,
      boolean allowChangedWorkflow) {
    RunRecord rec = resumable(run);
    String hash = RunRecord.hashOf(workflow.source());
    if (!allowChangedWorkflow && rec.sourceHash() != null && hash != null && !rec.sourceHash().equals(hash)) {
      throw new LoopflowException(ErrorCode.WORKFLOW_CHANGED, "run '" + rec.runId() + "' started from a different "
          + "version of workflow '" + rec.workflow() + "'; resume it with the workflow it started with");
    }
    return engine.resume(workflow, rec, input == null ? ResumeInput.none() : input, options);
  }

  /**
   * Resumes with the workflow source kept in the run's journal; {@link ErrorCode#RUN_NOT_RESUMABLE} when its
   * credentials were masked there (then pass the workflow loaded from its file to the method above).
   */
  public RunHandle resume(String runId, ResumeInput input, RunOptions options) {
    RunRecord rec = resumable(runId);
    if (rec.source() == null) {
      throw new LoopflowException(ErrorCode.RUN_NOT_RESUMABLE, "run '" + runId + "' was built in code; pass its "
          + "Workflow to resume(workflow, runId, input, options, false)");
    }
    if (!rec.sourceIsExact()) {
      throw new LoopflowException(ErrorCode.RUN_NOT_RESUMABLE, "the journaled workflow of run '" + runId + "' had "
          + "credentials masked and cannot run as it is; load " + (rec.file() == null ? "its workflow" : rec.file())
          + " and pass it to resume(workflow, runId, input, options, false)");
    }
    return resume(parse(rec.source(), rec.file()), rec, input, options, false);
  }

  /** Resumes with the run's journaled workflow source and default options. */
  public RunHandle resume(String runId, String input) {
    return resume(runId, ResumeInput.text(input), RunOptions.builder().build());
  }

  /** The run's record only (resumable or not depends on its status; the engine decides the rest under the lease). */
  private RunRecord resumable(String runId) {
    return resumable(store().findRun(runId).orElseThrow(() -> new LoopflowException(ErrorCode.RUN_NOT_RESUMABLE,
        "no run '" + runId + "' in this store")));
  }

  private static RunRecord resumable(RunRecord rec) {
    ResumeRefusal.check(rec.runId(), rec.status(), rec.waiting(), null, Instant.MAX)
        .filter(r -> r.reason() == ResumeRefusal.Reason.NOT_RESUMABLE).ifPresent(r -> {
          throw new LoopflowException(ErrorCode.RUN_NOT_RESUMABLE, r.message());
        });
    return rec;
  }

  /**
   * Deletes a run and everything the store keeps of it (see {@link RunStore#deleteRun}); false when the store has no
   * such run. Refused with {@link ErrorCode#RUN_BUSY} while something executes the run or will (journaled running
   * and not {@linkplain RunSummary#interrupted interrupted}, which includes a run queued for workers, or holding a
   * lease that has not expired), and with {@link ErrorCode#RUN_HAS_FORKS} while forks reuse its node executions: a
   * fork reads its origin's rows, so deleting the origin would take part of every fork's journal with it.
   */
  public boolean delete(String runId) {
    RunStore store = store();
    Optional<RunRecord> found = store.findRun(runId);
    if (found.isEmpty()) {
      return false;
    }
    RunRecord run = found.get();
    Instant now = Instant.now();
    boolean leased = store.lease(runId).map(l -> !LeaseOwners.abandoned(l, now)).orElse(false);
    if (leased || (run.status() == RunStatus.RUNNING && !RunSummary.interrupted(store, run, now))) {
      throw new LoopflowException(ErrorCode.RUN_BUSY, "run '" + runId + "' is " + (leased ? "being executed"
          : "running or queued") + "; cancel it (or let it end) before deleting it");
    }
    List<RunRecord> forks = engine.forksOf(runId);
    if (!forks.isEmpty()) {
      List<String> ids = forks.stream().limit(10).map(RunRecord::runId).toList();
      throw new LoopflowException(ErrorCode.RUN_HAS_FORKS, "run '" + runId + "' has " + forks.size() + " fork"
          + (forks.size() == 1 ? "" : "s") + " reusing its node executions (" + String.join(", ", ids)
          + (forks.size() > ids.size() ? ", ..." : "") + "); delete the forks first");
    }
    return store.deleteRun(runId);
  }

  /**
   * What a journaled run is: its record, what it waits for, whether it can be resumed, and its result (see
   * {@link #result}). Empty when the store has no such run.
   */
  public Optional<RunInfo> inspect(String runId) {
    return engine.inspect(runId);
  }

  /**
   * A journaled run's result object, the one {@code loopflow run --json} printed: for a run that ended or paused,
   * the result it journaled; for one still running or whose process died, rebuilt from its completed executions
   * with the engine's own state merges (see {@code docs/runs.md}). Empty when the store has no such run.
   */
  public Optional<RunResult> result(String runId) {
    return engine.result(runId);
  }

  /** The workflow a run journaled, or null when it has no source or the source no longer loads. */
  private Workflow journaledWorkflow(RunRecord rec) {
    if (rec.source() == null) {
      return null;
    }
    try {
      return parse(rec.source(), rec.file() == null ? rec.workflow() : rec.file());
    } catch (WorkflowInvalidException e) {
      return null;
    }
  }

  /**
   * Cancels a run journaled in this engine's store, wherever it is. A run no engine executes (paused, failed, or
   * left running by a process that died) is marked cancelled at once; a run another engine executes is asked to
   * stop through the store, and this waits up to {@code wait} for it to do so. Returns the run's status after.
   */
  public RunStatus cancel(String runId, String reason, Duration wait) {
    return engine.cancel(runId, reason, wait);
  }

  public RunResult run(Workflow workflow, Map<String, ?> inputs) {
    return run(workflow, RunOptions.builder().inputs(inputs).build());
  }

  /** The hash journaled with a run to recognise the workflow source it started from. */
  public static String sourceHash(String source) {
    return RunRecord.hashOf(source);
  }

  public RunStore store() {
    return engine.store();
  }

  public Map<String, NodeHandler> handlers() {
    return handlers;
  }

  /**
   * The workflow format as this engine reads it: the loader's tables and this engine's node kinds (the built-in ones
   * and its handlers'), for the JSON Schema, a config panel or an editor.
   */
  public WorkflowSchema schema() {
    Map<String, Set<String>> results = new HashMap<>();
    handlers.values().forEach(h -> {
      if (h.resultFields() != null) {
        results.put(h.kind(), h.resultFields());
      }
    });
    return new WorkflowSchema(LoaderVocabulary.INSTANCE, handlers.values().stream().map(NodeHandler::spec).toList(),
        results);
  }

  /**
   * The graph of a workflow the engine made (loaded, parsed or built), as the engine will run it: its nodes, the
   * containers of its loops, its edges and its restart loop.
   */
  public static WorkflowGraph graph(Workflow workflow) {
    return GraphBuilder.build(workflow);
  }

  /** The JSON Schema of the workflow format for this engine's node kinds ({@link WorkflowSchema#json()}). */
  public Map<String, Object> workflowSchema() {
    return schema().json();
  }

  WorkflowLoader loaderWith(Map<String, NodeHandler> extra) {
    Map<String, NodeHandler> all = new LinkedHashMap<>(handlers);
    all.putAll(extra);
    return new WorkflowLoader(all, services);
  }

  /**
   * Contributes services (such as an LLM branch chooser) from a module on the class path. A module registers
   * through a {@link Registrar}, never the engine's builder: it cannot swap the store, the clock or another
   * module's handlers.
   */
  public interface ServiceProvider {
    void register(Registrar registrar);
  }

  /** What a module on the class path may contribute: services. Explicit builder settings win over them. */
  public interface Registrar {
    <T> Registrar service(Class<T> type, T impl);
  }

  /** Configures an engine; validated when built. */
  public static final class Builder {
    private final Map<String, NodeHandler> handlers = new LinkedHashMap<>();
    private final Map<Class<?>, Object> services = new LinkedHashMap<>();
    private RunStore store;
    private Clock clock = Clock.systemUTC();
    private boolean discover = true;
    private Map<String, String> environment = System.getenv();

    private Builder() {}

    /** Adds or replaces the handler for its kind. */
    public Builder handler(NodeHandler h) {
      Objects.requireNonNull(h, "handler");
      String kind = h.kind();
      if (kind == null || !kind.matches("[a-z][a-z0-9_.]*")) {
        throw new IllegalArgumentException("handler kind must be lower-case letters, digits, '_' or '.', was '"
            + kind + "'");
      }
      handlers.put(kind, h);
      return this;
    }

    public <T> Builder service(Class<T> type, T impl) {
      services.put(Objects.requireNonNull(type, "type"), Objects.requireNonNull(impl, "service"));
      return this;
    }

    public Builder store(RunStore s) {
      this.store = Objects.requireNonNull(s, "store");
      return this;
    }

    /** The clock used for timestamps, durations and deadlines (inject one for deterministic tests). */
    public Builder clock(Clock c) {
      this.clock = Objects.requireNonNull(c, "clock");
      return this;
    }

    /**
     * The process environment runs see, where LLM providers find their keys and whose credentials every run masks
     * (default: this process's); inject one, like the clock, for a test. A run's own {@code RunOptions.environment}
     * is laid over it.
     */
    public Builder environment(Map<String, String> env) {
      this.environment = Map.copyOf(Objects.requireNonNull(env, "environment"));
      return this;
    }

    /** Whether to add handlers and services found with ServiceLoader (default true). */
    public Builder discover(boolean d) {
      this.discover = d;
      return this;
    }

    /**
     * The engine. The builder is left as it was: building twice gives two engines with the same explicit handlers,
     * services and store (each with its own in-memory store when none was set), and discovery runs again for each.
     */
    public Loopflow build() {
      Map<String, NodeHandler> all = new LinkedHashMap<>();
      for (NodeHandler h : BuiltinHandlers.all()) {
        all.put(h.kind(), h);
      }
      Map<Class<?>, Object> allServices = new LinkedHashMap<>();
      if (discover) {
        for (NodeHandler h : ServiceLoader.load(NodeHandler.class, Loopflow.class.getClassLoader())) {
          all.put(h.kind(), h);
        }
        Registrar registrar = new Registrar() {
          @Override
          public <T> Registrar service(Class<T> type, T impl) {
            allServices.put(Objects.requireNonNull(type, "type"), Objects.requireNonNull(impl, "service"));
            return this;
          }
        };
        for (ServiceProvider p : ServiceLoader.load(ServiceProvider.class, Loopflow.class.getClassLoader())) {
          p.register(registrar);
        }
      }
      all.putAll(handlers); // explicit ones win over built-in and discovered ones
      allServices.putAll(services);
      return new Loopflow(all, allServices, store == null ? RunStore.inMemory() : store, clock, environment);
    }
  }
}
