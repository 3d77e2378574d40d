package dev.loopflow.cli;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.WorkflowInvalidException;
import dev.loopflow.core.model.Problem;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunRecord;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "resume", mixinStandardHelpOptions = true,
    description = "Continues a paused, failed or interrupted run from its journal: completed node executions are "
        + "restored, not repeated; the node that was running runs again.",
    footer = {"", "Examples:", "  loopflow resume run_1a2b3c4d5e6f7a8b",
        "  loopflow resume run_1a2b3c4d5e6f7a8b --approve --comment 'ship it'",
        "  loopflow resume run_1a2b3c4d5e6f7a8b --input 'use the second draft'", "",
        "Exit status: as for run; 2 when the run cannot be resumed."})
final class ResumeCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "RUN_ID")
  String runId;

  @Option(names = "--input", paramLabel = "TEXT", description = "The answer for the loop gate the run waits at.")
  String input;

  @ArgGroup(exclusive = true)
  Decision decision;

  static final class Decision {
    @Option(names = "--approve", description = "Approve the approval the run waits at.")
    boolean approve;

    @Option(names = "--reject", description = "Reject the approval the run waits at.")
    boolean reject;
  }

  @Option(names = "--comment", paramLabel = "TEXT", description = "A comment with --approve or --reject.")
  String comment;

  @Option(names = "--force", description = "Resume with the workflow file as it is now, although it changed since "
      + "the run started.")
  boolean force;

  @Option(names = "--original", description = "Resume with the workflow source kept in the journal, whatever the "
      + "file holds now.")
  boolean original;

  @Option(names = "--store", paramLabel = "URL", description = "Run store (default: LOOPFLOW_STORE, else sqlite "
      + "under LOOPFLOW_HOME).")
  String store;

  @Option(names = "--json", description = "Print exactly one JSON result object on stdout.")
  boolean json;

  @Option(names = "--quiet", description = "No progress on stderr.")
  boolean quiet;

  @Option(names = "--events-jsonl", paramLabel = "FILE", description = "Write this attempt's events to FILE.")
  Path eventsFile;

  @Option(names = "--mock-llm", paramLabel = "SCRIPT", arity = "0..1", fallbackValue = "",
      description = "As for run: a run started with --mock-llm resumes with it too.")
  String mockScript;

  @Option(names = "--http-deny-private", description = "http nodes refuse loopback, private, link-local and other "
      + "non-public addresses, checked after DNS resolution and on every redirect (also: "
      + Support.HTTP_DENY_PRIVATE_ENV + "=1).")
  boolean httpDenyPrivate;

  @Option(names = "--answer", paramLabel = "TEXT", description = "Answers for later pauses, as for run.")
  List<String> answers = new ArrayList<>();

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try {
      Loopflow engine;
      try {
        engine = Loopflow.builder().store(Stores.open(store)).build();
      } catch (Stores.StoreException e) {
        err.println("loopflow: " + e.getMessage());
        return Main.USAGE;
      }
      try (var journal = engine.store()) {
        return execute(engine, out, err);
      }
    } finally {
      out.flush();
      err.flush();
    }
  }

  private int execute(Loopflow engine, PrintWriter out, PrintWriter err) throws Exception {
    RunRecord rec = engine.store().findRun(runId).orElse(null);
    if (rec == null) {
      err.println("loopflow: no run '" + runId + "' in " + Stores.url(store));
      return Main.USAGE;
    }
    if (rec.status() == RunStatus.COMPLETED || rec.status() == RunStatus.CANCELLED) {
      err.println("loopflow: run " + runId + " is " + rec.status().json() + "; only paused, failed or interrupted "
          + "runs can be resumed");
      return Main.USAGE;
    }
    if (force && original) {
      err.println("loopflow: give --force or --original, not both");
      return Main.USAGE;
    }
    Workflow wf = workflow(engine, rec, err);
    if (wf == null) {
      return Main.USAGE;
    }
    ResumeInput answer;
    NodeExecution waiting = waitingAt(engine, rec);
    boolean decided = decision != null && (decision.approve || decision.reject);
    if (comment != null && !decided) {
      err.println("loopflow: --comment goes with --approve or --reject");
      return Main.USAGE;
    }
    if (waiting == null) {
      if (input != null || decided) {
        err.println("loopflow: run " + runId + " is " + rec.status().json() + " and waits for no answer; resume it "
            + "without --input, --approve or --reject");
        return Main.USAGE;
      }
      answer = ResumeInput.none();
    } else if (waiting.kind().equals("approval")) {
      if (input != null && ResumeInput.Decision.parse(input) == null) {
        err.println("loopflow: run " + runId + " waits for an approval at " + waiting.position().path()
            + "; answer with --approve or --reject (or --input approve|reject)");
        return Main.USAGE;
      }
      answer = decided ? (decision.approve ? ResumeInput.approve(comment) : ResumeInput.reject(comment))
          : input != null ? new ResumeInput(input, null, comment) : ResumeInput.none();
      if (answer.isEmpty() && !deadlinePassed(waiting)) {
        err.println("loopflow: run " + runId + " waits for an approval at " + waiting.position().path() + ": "
            + waiting.result().get("message") + "\nloopflow: answer with --approve or --reject [--comment TEXT]");
        return Main.USAGE;
      }
    } else {
      if (decided) {
        err.println("loopflow: run " + runId + " waits at loop gate " + waiting.position().path() + ", not at an "
            + "approval; answer with --input TEXT");
        return Main.USAGE;
      }
      if (input == null) {
        err.println("loopflow: run " + runId + " waits at " + waiting.position().path() + ": "
            + waiting.result().get("message") + "\nloopflow: answer with --input TEXT");
        return Main.USAGE;
      }
      answer = ResumeInput.text(input);
    }
    RunOptions.Builder opts = RunOptions.builder();
    if (rec.workingDirectory() != null && Files.isDirectory(Path.of(rec.workingDirectory()))) {
      opts.workingDirectory(Path.of(rec.workingDirectory()));
    }
    if (!Support.mockOption(opts, mockScript, err)
        || !Support.httpPolicy(opts, httpDenyPrivate, System.getenv(), err)) {
      return Main.USAGE;
    }
    ResumeInput given = answer;
    Driver d = new Driver(engine, wf, opts, json, quiet, eventsFile, answers, out, err);
    return d.drive(o -> engine.resume(wf, runId, given, o, true));
  }

  /**
   * The workflow to resume with: the journaled source, unless the file it came from changed since, in which case
   * the user must choose ({@code --force}: the file as it is now; {@code --original}: the journaled source).
   */
  private Workflow workflow(Loopflow engine, RunRecord rec, PrintWriter err) {
    Path file = null;
    if (rec.file() != null) {
      Path f = Path.of(rec.file());
      file = f.isAbsolute() || rec.workingDirectory() == null ? f : Path.of(rec.workingDirectory()).resolve(f);
    }
    boolean changed = false;
    if (file != null && Files.isRegularFile(file) && rec.sourceHash() != null) {
      try {
        changed = !rec.sourceHash().equals(Loopflow.sourceHash(Files.readString(file, StandardCharsets.UTF_8)));
      } catch (java.io.IOException e) {
        changed = false;
      }
    }
    if (changed && !force && !original) {
      err.println("loopflow: " + file + " changed since run " + rec.runId() + " started; resume with --original "
          + "to continue with the workflow as it was (kept in the journal), or --force to continue with the file "
          + "as it is now (journaled steps are matched by node id and loop position)");
      return null;
    }
    if (changed && force) {
      return Support.load(engine, file, err);
    }
    if (rec.source() == null) {
      err.println("loopflow: run " + rec.runId() + " was started from code, not a file; resume it through the Java "
          + "API with its Workflow");
      return null;
    }
    try {
      return engine.parse(rec.source(), rec.file() == null ? rec.workflow() : rec.file());
    } catch (WorkflowInvalidException e) {
      for (Problem p : e.problems()) {
        err.println(p.format());
      }
      err.println("loopflow: the journaled workflow of run " + rec.runId() + " no longer loads with this version");
      return null;
    }
  }

  /** The paused execution the run waits at, or null when it waits for nothing. */
  private static NodeExecution waitingAt(Loopflow engine, RunRecord rec) {
    if (rec.status() != RunStatus.PAUSED || rec.pausedAt() == null) {
      return null;
    }
    NodeExecution found = null;
    for (NodeExecution e : engine.store().nodeExecutions(rec.runId())) {
      if (e.position().path().equals(rec.pausedAt())) {
        if (e.status() == NodeStatus.PAUSED && found == null) {
          found = e;
        } else if (e.status() != NodeStatus.PAUSED) {
          return null;
        }
      }
    }
    return found;
  }

  private static boolean deadlinePassed(NodeExecution waiting) {
    Object d = waiting.result() == null ? null : waiting.result().get("deadline");
    return d != null && !java.time.Instant.now().isBefore(java.time.Instant.parse(String.valueOf(d)));
  }
}
