package dev.loopflow.cli;

import dev.loopflow.core.Inputs;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.Problem;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ForkEdits;
import dev.loopflow.core.run.ForkPlan;
import dev.loopflow.core.run.ForkPoint;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.core.store.RunRecord;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "fork", mixinStandardHelpOptions = true,
    description = "Starts a new run from a point of a journaled run: what the run journaled before the point is "
        + "reused (not executed, not sent to a provider, not charged to the new run's budget); everything from "
        + "the point on executes, with the edits given.",
    footer = {"", "Points: LOOP:PASS (the start of that pass, before the loop decides to run it), OUTER:2/INNER:3 "
        + "(a nested loop's pass), or NODE (just before that node's last execution).", "",
        "Examples:", "  loopflow fork run_1a2b3c4d5e6f7a8b --at refine:3",
        "  loopflow fork run_1a2b3c4d5e6f7a8b --at count_loop:3 --set state.count=100",
        "  loopflow fork run_1a2b3c4d5e6f7a8b --at refine:3 --workflow edited.yaml --dry-run", "",
        "Exit status: as for run; 2 when the fork cannot start as asked."})
final class ForkCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "RUN_ID")
  String runId;

  @Option(names = "--at", paramLabel = "POINT", required = true, description = "Where the fork starts: LOOP:PASS, "
      + "OUTER:2/INNER:3 or NODE.")
  String at;

  @Option(names = "--set", paramLabel = "PATH=VALUE", description = "An edit at the point: state.KEY=VALUE, "
      + "NODE.output=VALUE, loop.input=VALUE or $LOOP_PREV=VALUE; VALUE is JSON when it reads as JSON, else text. "
      + "Repeatable.")
  List<String> sets = new ArrayList<>();

  @Option(names = "--input", paramLabel = "NAME=VALUE", description = "A run input changed for what executes. "
      + "Repeatable.")
  List<String> inputs = new ArrayList<>();

  @Option(names = "--workflow", paramLabel = "FILE", description = "Run an edited workflow: the nodes that ran "
      + "before the point and do not run again must be as the run had them.")
  Path workflowFile;

  @Option(names = "--dry-run", description = "Print what would be reused and what would execute, and the most it "
      + "can cost; start nothing, call nothing.")
  boolean dryRun;

  @Option(names = "--run-id", paramLabel = "ID", description = "The fork's id (default: generated).")
  String newRunId;

  @Option(names = "--store", paramLabel = "URL", description = "Run store (default: LOOPFLOW_STORE, else sqlite "
      + "under LOOPFLOW_HOME).")
  String store;

  @Mixin
  ExecutionOptions execution;

  @Option(names = "--events-jsonl", paramLabel = "FILE", description = "Write the fork's events to FILE.")
  Path eventsFile;

  @Option(names = "--answer", paramLabel = "TEXT", description = "Answers for pauses, as for run.")
  List<String> answers = new ArrayList<>();

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try {
      Loopflow engine = Loopflow.builder().store(Stores.open(store)).build();
      try (var journal = engine.store()) {
        return execute(engine, out, err);
      }
    } finally {
      out.flush();
      err.flush();
    }
  }

  private int execute(Loopflow engine, PrintWriter out, PrintWriter err) throws Exception {
    RunRecord origin = engine.store().findRun(runId).orElse(null);
    if (origin == null) {
      err.println("loopflow: no run '" + runId + "' in " + Stores.printable(store));
      return Main.USAGE;
    }
    ForkPoint point;
    ForkEdits.Builder edits = ForkEdits.builder();
    try {
      point = ForkPoint.parse(at);
      ForkEdits.parseSet(sets, edits);
    } catch (IllegalArgumentException e) {
      err.println(Errors.oneLine("loopflow: " + e.getMessage()));
      return Main.USAGE;
    }
    Workflow wf = workflowFile != null ? Support.load(engine, workflowFile, err) : journaled(engine, origin, err);
    if (wf == null) {
      return Main.USAGE;
    }
    try {
      for (String kv : inputs) {
        int eq = kv.indexOf('=');
        if (eq <= 0) {
          err.println(Errors.oneLine("loopflow: --input expects NAME=VALUE, got '" + kv + "'"));
          return Main.USAGE;
        }
        String name = kv.substring(0, eq);
        edits.input(name, Inputs.fromText(wf, name, kv.substring(eq + 1)));
      }
    } catch (LoopflowException | IllegalArgumentException e) {
      err.println(Errors.oneLine("loopflow: " + e.getMessage()));
      return Main.USAGE;
    }
    ForkEdits forkEdits = edits.build();
    ForkPlan plan; // also checks the point and the edits against the run's journal before anything starts
    try {
      plan = engine.planFork(runId, point, forkEdits);
    } catch (LoopflowException e) {
      if (!Errors.usage(e.code())) {
        throw e;
      }
      err.println(Errors.oneLine("loopflow: " + e.getMessage()));
      return Main.USAGE;
    }
    if (dryRun) {
      print(plan, out);
      return 0;
    }
    if (newRunId != null && !RunOptions.PORTABLE_RUN_ID.matcher(newRunId).matches()) {
      err.println(Errors.oneLine("loopflow: --run-id must be 1 to 64 letters, digits, '_', '.' or '-', was '"
          + newRunId + "'"));
      return Main.USAGE;
    }
    if (newRunId != null && engine.store().findRun(newRunId).isPresent()) {
      err.println("loopflow: --run-id " + newRunId + ": a run with this id is already in the store");
      return Main.USAGE;
    }
    RunOptions.Builder opts = RunOptions.builder().environment(Support.environment);
    if (newRunId != null) {
      opts.runId(newRunId);
    }
    if (origin.workingDirectory() != null && Files.isDirectory(Path.of(origin.workingDirectory()))) {
      opts.workingDirectory(Path.of(origin.workingDirectory()));
    }
    if (!Support.httpPolicy(opts, execution.httpDenyPrivate, System.getenv(), err)
        || !Support.sandbox(opts, execution.sandbox, System.getenv(), engine.store(), err)) {
      return Main.USAGE;
    }
    boolean journaledMock = Boolean.TRUE.equals(origin.options().get(RunOptions.LLM_MOCK));
    Support.mockWhenNoProvider(opts, wf, journaledMock, Support.environment, execution.quiet ? null : err);
    if (!execution.quiet && !execution.json) {
      err.println("loopflow: fork of run " + runId + " at " + point.text() + ": reusing " + plan.reused().size()
          + " execution" + (plan.reused().size() == 1 ? "" : "s"));
    }
    var tracing = Support.observability();
    try {
      tracing.instrument(wf, opts);
      Driver d = new Driver(engine, wf, opts, execution, eventsFile, answers, out, err);
      return d.drive(o -> engine.fork(runId, point, forkEdits, wf, o));
    } finally {
      tracing.close(Support.TRACE_FLUSH);
    }
  }

  /** The workflow source the run journaled, when it can run as it is. */
  private static Workflow journaled(Loopflow engine, RunRecord origin, PrintWriter err) {
    if (origin.source() == null) {
      err.println("loopflow: run " + origin.runId() + " was started from code, not a file; fork it through the "
          + "Java API with its Workflow");
      return null;
    }
    if (!origin.sourceIsExact()) {
      err.println("loopflow: the journaled workflow of run " + origin.runId() + " had credentials masked and cannot "
          + "run as it is; fork with --workflow FILE");
      return null;
    }
    try {
      return engine.parse(origin.source(), origin.file() == null ? origin.workflow() : origin.file());
    } catch (WorkflowInvalidException e) {
      for (Problem p : e.problems()) {
        err.println(p.format());
      }
      err.println("loopflow: the journaled workflow of run " + origin.runId() + " no longer loads; fork with "
          + "--workflow FILE");
      return null;
    }
  }

  private void print(ForkPlan plan, PrintWriter out) {
    if (execution.json) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("dry_run", true);
      m.putAll(plan.toJson());
      out.println(Json.compact(m));
      return;
    }
    out.println("fork of run " + plan.origin() + " at " + plan.at() + " (dry run: nothing was started or called)");
    Usage u = plan.reusedUsage();
    out.println("reuses " + plan.reused().size() + " execution" + (plan.reused().size() == 1 ? "" : "s") + " ("
        + u.llmCalls() + " LLM call" + (u.llmCalls() == 1 ? "" : "s") + ", " + cost(u.costUsd(), u.llmCalls())
        + ", not charged to the fork):");
    for (String r : plan.reused()) {
      out.println("  " + Errors.oneLine(r));
    }
    out.println("executes:");
    if (plan.executes().isEmpty()) {
      out.println("  nothing more (the run's end)");
    }
    for (String e : plan.executes()) {
      out.println("  " + Errors.oneLine(e));
    }
    out.println("at most: " + (plan.maxLlmCalls() == null ? "an unknown number of" : plan.maxLlmCalls()) + " LLM call"
        + (plan.maxLlmCalls() != null && plan.maxLlmCalls() == 1 ? "" : "s") + ", "
        + (plan.maxCostUsd() == null ? "cost unknown (the run's calls had no price)"
            : String.format(Locale.ROOT, "$%.6f", plan.maxCostUsd()))
        + " (from the loop's bound and the run's dearest pass)");
  }

  private static String cost(Double usd, int calls) {
    if (usd == null) {
      return calls == 0 ? "$0" : "cost unknown";
    }
    return String.format(Locale.ROOT, "$%.6f", usd);
  }
}
