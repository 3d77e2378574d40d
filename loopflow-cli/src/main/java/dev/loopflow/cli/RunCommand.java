package dev.loopflow.cli;

import dev.loopflow.core.Inputs;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.MissingInputException;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "run", mixinStandardHelpOptions = true,
    description = "Runs a workflow: live progress on stderr, the result on stdout.",
    footer = {"", "Examples:", "  loopflow run examples/hello-shell.yaml --input sentence=\"loops that end\"",
        "  loopflow run examples/review-llm.yaml --json --events-jsonl events.jsonl",
        "  loopflow run examples/loop-coder-reviewer.yaml --mock-script \\",
        "      examples/loop-coder-reviewer.mock.json   # scripted LLM replies", "",
        "Exit status: 0 completed, 1 failed or cancelled, 2 invalid workflow or usage, 3 paused."})
final class RunCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "FILE", description = "Workflow file.")
  Path file;

  @Option(names = "--input", paramLabel = "NAME=VALUE",
      description = "An input; converted to the declared type. Repeatable.")
  List<String> inputs = new ArrayList<>();

  @Option(names = "--input-file", paramLabel = "FILE", description = "Inputs as a JSON object.")
  Path inputFile;

  @Mixin
  ExecutionOptions execution;

  @Option(names = "--events-jsonl", paramLabel = "FILE", description = "Write every event to FILE, one JSON per line, as it happens (tail -f follows the run).")
  Path eventsFile;

  @Option(names = "--mock-llm", description = "Send every LLM call to the mock provider (labelled mock), "
      + "answering from the workflow's mock block (or --mock-script). Kept with the run: resume uses it too.")
  boolean mockLlm;

  @Option(names = "--mock-script", paramLabel = "FILE", description = "Answer LLM calls from FILE (a JSON or YAML "
      + "list of responses, or a map from node id to such a list); implies --mock-llm. The script is kept with the "
      + "run.")
  Path mockScript;

  @Option(names = "--store", paramLabel = "URL", description = "Run store: sqlite:PATH, postgresql://user@host/db "
      + "or memory. Default: LOOPFLOW_STORE, else sqlite under LOOPFLOW_HOME (~/.loopflow).")
  String store;

  @Option(names = "--run-id", paramLabel = "ID", description = "The new run's id (default: generated).")
  String runId;

  @Option(names = "--answer", paramLabel = "TEXT", description = "Answer for the next pause (an interactive loop "
      + "gate, or approve/reject for an approval), in order; repeat for several. Without one the run exits 3 "
      + "(continue it later with loopflow resume), or asks on a terminal.")
  List<String> answers = new ArrayList<>();

  @Option(names = "--detach", description = "Queue the run for workers ('loopflow worker') instead of executing it "
      + "here, print its id and exit 0. Needs a PostgreSQL store.")
  boolean detach;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try {
      return execute(out, err);
    } finally {
      out.flush();
      err.flush();
    }
  }

  private int execute(PrintWriter out, PrintWriter err) throws Exception {
    Loopflow engine = Loopflow.builder().store(Stores.open(store)).build();
    try (var journal = engine.store()) {
      return execute(engine, out, err);
    }
  }

  private int execute(Loopflow engine, PrintWriter out, PrintWriter err) throws Exception {
    Workflow wf = Support.load(engine, file, err);
    if (wf == null) {
      return Main.USAGE;
    }
    RunOptions.Builder opts = RunOptions.builder().environment(Support.environment);
    try {
      if (inputFile != null) {
        Support.inputFile(inputFile).forEach(opts::input);
      }
      for (String kv : inputs) {
        int eq = kv.indexOf('=');
        if (eq <= 0) {
          err.println(Errors.oneLine("loopflow: --input expects NAME=VALUE, got '" + kv + "'"));
          return Main.USAGE;
        }
        String name = kv.substring(0, eq);
        opts.input(name, Inputs.fromText(wf, name, kv.substring(eq + 1)));
      }
      Inputs.resolve(wf, opts.build().inputs());
    } catch (MissingInputException e) {
      err.println(Errors.oneLine("loopflow: " + e.getMessage() + "; pass it with --input " + e.input() + "=..."));
      return Main.USAGE;
    } catch (LoopflowException | IllegalArgumentException e) {
      err.println(Errors.oneLine("loopflow: " + e.getMessage()));
      return Main.USAGE;
    }
    if (!Support.mockOption(opts, mockLlm, mockScript, err)
        || !Support.httpPolicy(opts, execution.httpDenyPrivate, System.getenv(), err)
        || !Support.sandbox(opts, execution.sandbox, System.getenv(), engine.store(), err)) {
      return Main.USAGE;
    }
    Support.mockWhenNoProvider(opts, wf, mockLlm || mockScript != null, Support.environment,
        execution.quiet ? null : err);
    if (runId != null && !RunOptions.PORTABLE_RUN_ID.matcher(runId).matches()) {
      err.println(Errors.oneLine("loopflow: --run-id must be 1 to 64 letters, digits, '_', '.' or '-', was '"
          + runId + "'"));
      return Main.USAGE;
    }
    if (runId != null && engine.store().findRun(runId).isPresent()) {
      err.println("loopflow: --run-id " + runId + ": a run with this id is already in the store; continue it with "
          + "loopflow resume " + runId);
      return Main.USAGE;
    }
    if (runId != null) {
      opts.runId(runId);
    }
    if (detach) {
      return Detached.enqueue(engine, wf, opts.build(), out, err);
    }
    var tracing = Support.observability();
    try {
      tracing.instrument(wf, opts);
      Driver d = new Driver(engine, wf, opts, execution, eventsFile, answers, out, err);
      return d.drive(o -> engine.start(wf, o));
    } finally {
      tracing.close(Support.TRACE_FLUSH);
    }
  }
}
