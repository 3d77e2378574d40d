package dev.loopflow.server.internal;

import dev.loopflow.core.Inputs;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.graph.WorkflowGraph;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ForkEdits;
import dev.loopflow.core.run.ForkPoint;
import dev.loopflow.core.run.RestartRequest;
import dev.loopflow.core.run.RestartResponse;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.ResumeRefusal;
import dev.loopflow.core.run.RunDiff;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.secrets.Redactor;
import dev.loopflow.core.store.RunInfo;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.core.store.RunSummary;
import io.javalin.http.Context;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * {@code /api/runs}: listing, showing, starting, resuming, cancelling and signalling runs ({@link JournalRoutes} reads
 * their journals). Runs are read from the store, so a run started by the command line (another process on the same
 * store) is listed, shown and acted on like one started here; what the engine decides (resumability, the restart
 * policy, leases) is asked of the engine, never decided again here.
 */
final class RunRoutes {
  /** The most runs one list returns. */
  static final int MAX_LIMIT = 1000;
  /** How long a cancel waits for a run executing somewhere to stop. */
  static final Duration CANCEL_WAIT = Duration.ofSeconds(10);
  static final int DEFAULT_SIGNAL_WAIT_SECONDS = 30;
  static final int MAX_SIGNAL_WAIT_SECONDS = 300;

  private final Loopflow engine;
  private final RunStore store;
  private final WorkflowFiles files;
  private final LocalRuns runs;
  private final Redactor redactor;
  private final BooleanSupplier stopping;
  private final Consumer<String> log;

  RunRoutes(Loopflow engine, WorkflowFiles files, LocalRuns runs, Redactor redactor, BooleanSupplier stopping,
      Consumer<String> log) {
    this.log = log;
    this.engine = engine;
    this.store = engine.store();
    this.files = files;
    this.runs = runs;
    this.redactor = redactor;
    this.stopping = stopping;
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Reading

  /** {@code GET /api/runs}: see {@link RunSearch}. */
  void list(Context ctx) {
    RunSearch.list(ctx, store, MAX_LIMIT);
  }

  /**
   * {@code DELETE /api/runs/{id}} → {@code {"run_id", "deleted": true}}: the run and everything kept of it (see
   * {@link Loopflow#delete}); 404 for an unknown run, 409 {@code run_busy} while it executes, 409
   * {@code run_has_forks} while forks reuse its executions.
   */
  void delete(Context ctx) {
    String id = runId(ctx);
    if (runs.isExecuting(id)) { // started here and not yet ended, whatever its journal says so far
      throw ApiError.of(new LoopflowException(ErrorCode.RUN_BUSY, "run '" + id + "' is executing; cancel it (or "
          + "let it end) before deleting it"));
    }
    if (!engine.delete(id)) {
      throw ApiError.runNotFound(id);
    }
    HttpApi.json(ctx, 200, Map.of("run_id", id, "deleted", true));
  }

  /** {@code GET /api/runs/{id}} → the object {@code loopflow show --json} prints ({@code running} while it runs). */
  void show(Context ctx) {
    String id = runId(ctx);
    RunInfo info = engine.inspect(id).orElseThrow(() -> ApiError.runNotFound(id));
    // As show does: the journal was masked when written; masked again with this process's environment. A run
    // journaled running whose process is gone is shown interrupted (the journal is left as it is).
    Map<String, Object> shown = new LinkedHashMap<>(redactor.map(info.result().toJson()));
    if (RunSummary.interrupted(store, info.record(), Instant.now())) {
      shown.put("status", "interrupted");
    }
    // The times and duration the run list shows for this run, by the same rule (the record's, not the events').
    shown.put("started_at", info.record().startedAt().toString());
    shown.put("finished_at", info.record().finishedAt() == null ? null : info.record().finishedAt().toString());
    shown.put("duration_ms", RunSummary.durationMillis(info.record()));
    List<Map<String, Object>> forks = new ArrayList<>();
    for (RunRecord f : engine.forks(id)) {
      Map<String, Object> one = new LinkedHashMap<>();
      one.put("run_id", f.runId());
      one.put("at", f.options().get(RunOptions.FORKED_FROM) instanceof Map<?, ?> m ? m.get("at") : null);
      one.put("status", f.status().json());
      forks.add(one);
    }
    if (!forks.isEmpty()) { // as `loopflow show --json` prints it
      shown.put("forks", forks);
    }
    HttpApi.json(ctx, 200, shown);
  }

  /**
   * {@code GET /api/runs/{id}/diff?a=LOOP:A&b=LOOP:B} (two passes of the run) or {@code ?run=OTHER} (the run and
   * another, a fork and its origin) → {@code {"left": {label, state, outputs}, "right": ...}}.
   */
  void diff(Context ctx) {
    String id = existing(ctx);
    String other = ctx.queryParam("run");
    String a = ctx.queryParam("a");
    String b = ctx.queryParam("b");
    if ((other == null) == (a == null && b == null)) {
      throw ApiError.of(ErrorTable.Kind.BAD_REQUEST, "give 'a' and 'b' (two passes, LOOP:PASS) or 'run' (another "
          + "run), not both or neither");
    }
    RunDiff diff;
    if (other != null) {
      diff = engine.diff(id, other);
    } else {
      if (a == null || b == null) {
        throw ApiError.badField(a == null ? "a" : "b", "give both passes, as LOOP:PASS");
      }
      diff = engine.diff(id, pass("a", a), pass("b", b));
    }
    HttpApi.json(ctx, 200, redactor.map(diff.toJson()));
  }

  private static ForkPoint.Pass pass(String field, String text) {
    try {
      if (ForkPoint.parse(text) instanceof ForkPoint.Pass p) {
        return p;
      }
    } catch (IllegalArgumentException e) {
      throw ApiError.badField(field, e.getMessage());
    }
    throw ApiError.badField(field, "'" + JsonBody.printable(text) + "' is a node; give a pass as LOOP:PASS");
  }

  /**
   * {@code GET /api/runs/{id}/graph} → the graph of the workflow the run started from (its journaled source), on
   * which its events' and executions' paths are placed.
   */
  void graph(Context ctx) {
    String id = runId(ctx);
    RunRecord rec = store.findRun(id).orElseThrow(() -> ApiError.runNotFound(id));
    if (rec.source() == null) {
      throw ApiError.of(ErrorTable.Kind.NOT_FOUND, "run '" + id + "' was built in code: no workflow source is "
          + "journaled, so there is no graph to draw");
    }
    Workflow wf;
    try {
      wf = engine.parse(rec.source(), rec.file() == null ? rec.workflow() : rec.file());
    } catch (WorkflowInvalidException e) {
      throw ApiError.withExtra(ErrorTable.of(ErrorTable.Kind.CONFLICT), "the journaled workflow of run '" + id
          + "' no longer loads with this version", Map.of("problems", ApiError.problems(e.problems())));
    }
    HttpApi.json(ctx, 200, Loopflow.graph(wf).toJson());
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Starting and resuming

  /**
   * {@code POST /api/runs {"source" | "workflow", "inputs", "run_id"}} → 201 {@code {"run_id", "status"}}. Everything
   * is checked before anything starts: a refused request starts and writes nothing.
   */
  void start(Context ctx) throws IOException {
    JsonBody b = JsonBody.parse(ctx.bodyAsBytes(), Set.of("source", "workflow", "inputs", "run_id"), false);
    String source = b.string("source");
    String name = b.string("workflow");
    if ((source == null) == (name == null)) {
      throw ApiError.badField(source == null ? "source" : "workflow", "give exactly one of 'source' (the workflow's "
          + "YAML) or 'workflow' (the name of a workflow file)");
    }
    Map<String, Object> inputs = b.object("inputs");
    String runId = b.string("run_id");
    if (runId != null && !RunOptions.PORTABLE_RUN_ID.matcher(runId).matches()) {
      throw ApiError.badField("run_id", "run_id must be 1 to 64 letters, digits, '_', '.' or '-', was '"
          + JsonBody.printable(runId) + "'");
    }
    Workflow wf;
    Path dir;
    if (name != null) {
      WorkflowFiles.checkName(name, "workflow");
      Path file = files.find(name).orElseThrow(() -> WorkflowRoutes.notFound(name));
      wf = engine.load(file);
      dir = files.dir(); // a named workflow runs where it lives, as `loopflow run` in that directory would
    } else {
      wf = engine.parse(source, null);
      dir = Path.of("").toAbsolutePath();
    }
    Map<String, Object> given = inputs == null ? Map.of() : inputs;
    Inputs.resolve(wf, new LinkedHashMap<>(given)); // the engine's own input rules: missing, unknown, wrong type
    String id = runId != null ? runId : "run_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    runs.start(wf, given, id, dir);
    HttpApi.json(ctx, 201, runState(id));
  }

  /**
   * {@code POST /api/runs/{id}/resume {"input"?, "approve"?, "comment"?, "values"?}} → {@code {"run_id", "status"}}.
   * {@code values} answers the form of a step that has one (an object). Whether the run can be resumed with that
   * answer is the engine's rule ({@link ResumeRefusal}); values that do not fit the form are 422 answer_invalid.
   */
  void resume(Context ctx) throws IOException {
    String id = runId(ctx);
    JsonBody b = JsonBody.parse(ctx.bodyAsBytes(), Set.of("input", "approve", "comment", "values"), true);
    String input = b.string("input");
    Boolean approve = b.bool("approve");
    String comment = b.string("comment");
    Map<String, Object> values = b.object("values");
    if (input != null && approve != null) {
      throw ApiError.badField("approve", "give 'input' (for a loop gate) or 'approve' (for an approval), not both");
    }
    if (comment != null && approve == null) {
      throw ApiError.badField("comment", "'comment' goes with 'approve' (true to approve, false to reject)");
    }
    ResumeInput answer = (approve != null ? (approve ? ResumeInput.approve(comment) : ResumeInput.reject(comment))
        : ResumeInput.text(input)).withValues(values);
    RunInfo info = engine.inspect(id).orElseThrow(() -> ApiError.runNotFound(id));
    // Whether it executes somewhere now (this server included) is the engine's to say when it takes the run's
    // lease: run_busy.
    Optional<ResumeRefusal> refused = info.refusal(answer, Instant.now());
    if (refused.isPresent()) {
      ResumeRefusal r = refused.get();
      Map<String, Object> extra = new LinkedHashMap<>();
      extra.put("reason", r.reason().name().toLowerCase(Locale.ROOT));
      extra.put("waiting", r.waiting() == null ? null : r.waiting().toJson());
      throw ApiError.withExtra(r.reason() == ResumeRefusal.Reason.NOT_RESUMABLE
          ? ErrorTable.of(ErrorCode.RUN_NOT_RESUMABLE) : r.reason() == ResumeRefusal.Reason.INVALID_VALUES
          ? ErrorTable.of(ErrorCode.ANSWER_INVALID) : ErrorTable.of(ErrorTable.Kind.BAD_REQUEST), r.message(),
          extra);
    }
    RunRecord rec = info.record();
    Workflow wf = workflowToResume(rec);
    Path dir = rec.workingDirectory() != null && Files.isDirectory(Path.of(rec.workingDirectory()))
        ? Path.of(rec.workingDirectory()) : Path.of("").toAbsolutePath();
    runs.resume(wf, id, answer, Boolean.TRUE.equals(rec.options().get(RunOptions.LLM_MOCK)), dir);
    HttpApi.json(ctx, 200, runState(id));
  }

  /**
   * {@code POST /api/runs/{id}/fork {"at", "set"?, "inputs"?, "dry_run"?, "run_id"?}}: with {@code dry_run}, 200 and
   * the plan (what is reused, what executes, the most it can cost), nothing started; else 201 and the new run's
   * {@code {"run_id", "status"}}. {@code set} maps edit paths ({@code state.count}, {@code NODE.output},
   * {@code loop.input}) to JSON values. A point that is not in the run's journal is {@code 409 fork_refused}.
   */
  void fork(Context ctx) throws IOException {
    String id = runId(ctx);
    JsonBody b = JsonBody.parse(ctx.bodyAsBytes(), Set.of("at", "set", "inputs", "dry_run", "run_id"), false);
    ForkPoint at;
    ForkEdits.Builder edits = ForkEdits.builder();
    try {
      at = ForkPoint.parse(b.requiredString("at"));
    } catch (IllegalArgumentException e) {
      throw ApiError.badField("at", e.getMessage());
    }
    Map<String, Object> set = b.object("set");
    if (set != null) {
      for (Map.Entry<String, Object> e : set.entrySet()) {
        try {
          edits.set(e.getKey(), e.getValue());
        } catch (IllegalArgumentException bad) {
          throw ApiError.badField("set", bad.getMessage());
        }
      }
    }
    Map<String, Object> inputs = b.object("inputs");
    if (inputs != null) {
      inputs.forEach(edits::input);
    }
    String newId = b.string("run_id");
    if (newId != null && !RunOptions.PORTABLE_RUN_ID.matcher(newId).matches()) {
      throw ApiError.badField("run_id", "run_id must be 1 to 64 letters, digits, '_', '.' or '-', was '"
          + JsonBody.printable(newId) + "'");
    }
    RunRecord rec = store.findRun(id).orElseThrow(() -> ApiError.runNotFound(id));
    if (Boolean.TRUE.equals(b.bool("dry_run"))) {
      Map<String, Object> plan = new LinkedHashMap<>();
      plan.put("dry_run", true);
      plan.putAll(engine.planFork(id, at, edits.build()).toJson());
      HttpApi.json(ctx, 200, plan);
      return;
    }
    Workflow wf = workflowToResume(rec);
    if (!edits.build().inputs().isEmpty()) {
      Map<String, Object> all = new LinkedHashMap<>(rec.inputs());
      all.putAll(edits.build().inputs());
      Inputs.resolve(wf, all); // the engine's own input rules: unknown, wrong type
    }
    Path dir = rec.workingDirectory() != null && Files.isDirectory(Path.of(rec.workingDirectory()))
        ? Path.of(rec.workingDirectory()) : Path.of("").toAbsolutePath();
    String forkId = newId != null ? newId : "run_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    runs.fork(wf, id, at, edits.build(), forkId, Boolean.TRUE.equals(rec.options().get(RunOptions.LLM_MOCK)), dir);
    HttpApi.json(ctx, 201, runState(forkId));
  }

  /**
   * The workflow a journaled run resumes with: its file when the file still holds exactly the source the run started
   * from (the journal keeps that source's hash), else the journaled source when it is exact (nothing in it was masked
   * as a credential). Otherwise the server cannot know what to run and says so; the command line can choose a
   * changed file ({@code loopflow resume --force}).
   */
  private Workflow workflowToResume(RunRecord rec) throws IOException {
    if (rec.source() == null) {
      throw ApiError.of(ErrorTable.Kind.CONFLICT, "run '" + rec.runId() + "' was built in code (no workflow source "
          + "is journaled); resume it through the Java API with its Workflow");
    }
    if (rec.file() != null && rec.sourceHash() != null) {
      Path f = Path.of(rec.file());
      if (!f.isAbsolute() && rec.workingDirectory() != null) {
        f = Path.of(rec.workingDirectory()).resolve(f);
      }
      if (Files.isRegularFile(f)) {
        try {
          String now = WorkflowFiles.read(f);
          if (rec.sourceHash().equals(Loopflow.sourceHash(now))) {
            return engine.parse(now, rec.file());
          }
        } catch (IOException e) {
          // unreadable now: the journaled source decides below
        }
      }
    }
    if (!rec.sourceIsExact()) {
      throw ApiError.of(ErrorTable.Kind.CONFLICT, "the journaled workflow of run '" + rec.runId() + "' had "
          + "credentials masked and cannot run as it is; put " + (rec.file() == null ? "its workflow file"
          : rec.file()) + " back as it was when the run started, or resume with loopflow resume --force");
    }
    return engine.parse(rec.source(), rec.file());
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Acting on a run

  /**
   * {@code POST /api/runs/{id}/cancel {"reason"?}} → {@code {"run_id", "status"}}: 200 once the run is cancelled (or
   * had already ended), 202 when a run executing elsewhere was asked to stop and has not yet.
   */
  void cancel(Context ctx) {
    String id = runId(ctx);
    String reason = JsonBody.parse(ctx.bodyAsBytes(), Set.of("reason"), true).string("reason");
    RunRecord rec = store.findRun(id).orElseThrow(() -> ApiError.runNotFound(id));
    RunStatus after = rec.status().isTerminal() ? rec.status()
        : engine.cancel(id, reason == null || reason.isBlank() ? "cancelled over the HTTP API" : reason,
            CANCEL_WAIT);
    HttpApi.json(ctx, after == RunStatus.RUNNING ? 202 : 200, runState(id));
  }

  /**
   * {@code POST /api/runs/{id}/signal {"type": "restart", "target_stage_id", "reason", "parameters"?,
   * "requester_stage_id"?}} → the run's answer (the restart response object), with the status of its error code;
   * 202 {@code {"request_seq", "pending": true}} when the run has not decided within {@code ?wait=} seconds.
   */
  void signal(Context ctx) throws InterruptedException {
    String id = runId(ctx);
    JsonBody b = JsonBody.parse(ctx.bodyAsBytes(), Set.of("type", "target_stage_id", "reason", "parameters",
        "requester_stage_id"), false);
    String type = b.requiredString("type");
    if (!type.equals("restart")) {
      throw ApiError.badField("type", "unknown signal type '" + JsonBody.printable(type) + "'; the only type is "
          + "restart");
    }
    String target = b.requiredString("target_stage_id");
    if (target.isBlank()) {
      throw ApiError.badField("target_stage_id", "target_stage_id must name a stage");
    }
    String reason = b.string("reason");
    Map<String, String> parameters = b.stringMap("parameters");
    String requester = b.string("requester_stage_id");
    int wait = HttpApi.intParam(ctx, "wait", DEFAULT_SIGNAL_WAIT_SECONDS, 0, MAX_SIGNAL_WAIT_SECONDS);
    RunRecord rec = store.findRun(id).orElseThrow(() -> ApiError.runNotFound(id));
    String notRunning = notRunning(rec);
    if (notRunning != null) {
      throw ApiError.of(ErrorTable.Kind.CONFLICT, notRunning);
    }
    RestartRequest req = new RestartRequest(requester, target, reason, parameters, 0, System.currentTimeMillis());
    long seq;
    try {
      seq = engine.requestRestart(id, req);
    } catch (LoopflowException e) {
      if (e.code() != ErrorCode.USAGE) {
        throw e;
      }
      throw ApiError.of(ErrorTable.Kind.CONFLICT, e.getMessage()); // it ended between the look and the request
    }
    long until = System.nanoTime() + Duration.ofSeconds(wait).toNanos();
    while (true) {
      Optional<RestartResponse> answer = engine.restartResponse(id, seq);
      if (answer.isPresent()) {
        RestartResponse r = answer.get();
        HttpApi.json(ctx, r.success() ? 200 : ErrorTable.of(r.errorCode()).status(), redactor.map(r.toMap()));
        return;
      }
      if (System.nanoTime() - until >= 0 || stopping.getAsBoolean()) {
        Map<String, Object> pending = new LinkedHashMap<>();
        pending.put("request_seq", seq);
        pending.put("pending", true);
        HttpApi.json(ctx, 202, pending);
        return;
      }
      Thread.sleep(50);
    }
  }

  /**
   * Why a restart request to this run would wait for no one, or null when an engine executes it: a restart is decided
   * by the engine executing the run, after a node completes.
   */
  private String notRunning(RunRecord rec) {
    String id = rec.runId();
    if (rec.status().isTerminal()) {
      return "run '" + id + "' has ended (" + rec.status().json() + "); a restart request needs a running run";
    }
    if (rec.status() == RunStatus.PAUSED) {
      return "run '" + id + "' is paused; a restart request is decided while the run executes: resume it first";
    }
    if (runs.isExecuting(id)) {
      return null;
    }
    boolean leased = store.lease(id).map(l -> l.until().isAfter(Instant.now())).orElse(false);
    return leased ? null : "run '" + id + "' is not executing anywhere (its process stopped); resume it first";
  }

  // ---------------------------------------------------------------------------------------------------------------

  private Map<String, Object> runState(String id) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("run_id", id);
    m.put("status", store.findRun(id).map(r -> r.status().json()).orElse(RunStatus.RUNNING.json()));
    return m;
  }

  /**
   * The run id in the path. An id no run can have (blank, control characters, longer than a store keeps) is a run
   * that is not there: it never reaches the store.
   */
  static String runId(Context ctx) {
    String id = ctx.pathParam("id");
    boolean ok = !id.isBlank() && id.getBytes(StandardCharsets.UTF_8).length <= 1024
        && id.codePoints().noneMatch(c -> Character.isISOControl(c) || c >= Character.MIN_SURROGATE
            && c <= Character.MAX_SURROGATE);
    if (!ok) {
      throw ApiError.runNotFound(JsonBody.printable(id));
    }
    return id;
  }

  private String existing(Context ctx) {
    return existing(store, ctx);
  }

  /** The run the path names, which must be in {@code store}. */
  static String existing(RunStore store, Context ctx) {
    String id = runId(ctx);
    if (store.findRun(id).isEmpty()) {
      throw ApiError.runNotFound(id);
    }
    return id;
  }
}
