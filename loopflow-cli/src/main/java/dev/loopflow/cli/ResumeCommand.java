package dev.loopflow.cli;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.Problem;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.ResumeRefusal;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.run.Waiting;
import dev.loopflow.core.store.RunInfo;
import dev.loopflow.core.store.RunRecord;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "resume", mixinStandardHelpOptions = true,
    description = "Continues a paused, failed or interrupted run from its journal: completed node executions are "
        + "restored, not repeated; the node that was running runs again.",
    footer = {"", "Examples:", "  loopflow resume run_1a2b3c4d5e6f7a8b",
        "  loopflow resume run_1a2b3c4d5e6f7a8b --approve --comment 'ship it'",
        "  loopflow resume run_1a2b3c4d5e6f7a8b --input 'use the second draft'",
        "  loopflow resume run_1a2b3c4d5e6f7a8b --values '{\"version\": \"1.2\", \"replicas\": 3}'",
        "  loopflow resume run_1a2b3c4d5e6f7a8b --value version=1.2 --value replicas=3", "",
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

  @Option(names = "--values", paramLabel = "JSON", description = "The form's values, a JSON object, for a step "
      + "with a form (an approval's schema, a loop gate's gate_schema); alone, they approve an approval.")
  String valuesJson;

  @Option(names = "--value", paramLabel = "NAME=VALUE", description = "One form value, typed by the form (integer, "
      + "number, boolean, enum choice or text); repeatable, after --values.")
  List<String> valuePairs = new ArrayList<>();

  @Option(names = "--force", description = "Resume with the workflow file as it is now, although it changed since "
      + "the run started.")
  boolean force;

  @Option(names = "--original", description = "Resume with the workflow source kept in the journal, whatever the "
      + "file holds now.")
  boolean original;

  @Option(names = "--store", paramLabel = "URL", description = "Run store (default: LOOPFLOW_STORE, else sqlite "
      + "under LOOPFLOW_HOME).")
  String store;

  @Mixin
  ExecutionOptions execution;

  @Option(names = "--events-jsonl", paramLabel = "FILE", description = "Write this attempt's events to FILE.")
  Path eventsFile;

  @Option(names = "--mock-llm", description = "Send every LLM call to the mock provider. Not needed for a run "
      + "started with --mock-llm or --mock-script: it resumes with the mock and its script, as journaled.")
  boolean mockLlm;

  @Option(names = "--mock-script", paramLabel = "FILE", description = "Answer LLM calls from FILE instead of the "
      + "script the run journaled; implies --mock-llm.")
  Path mockScript;

  @Option(names = "--answer", paramLabel = "TEXT", description = "Answers for later pauses, as for run.")
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
    RunInfo info = engine.inspect(runId).orElse(null);
    if (info == null) {
      err.println("loopflow: no run '" + runId + "' in " + Stores.printable(store));
      return Main.USAGE;
    }
    RunRecord rec = info.record();
    boolean decided = decision != null && (decision.approve || decision.reject);
    if (comment != null && !decided) {
      err.println("loopflow: --comment goes with --approve or --reject");
      return Main.USAGE;
    }
    boolean[] unreadable = {false};
    Map<String, Object> values = FormAnswers.values(info.waiting().orElse(null), valuesJson, valuePairs, err,
        unreadable);
    if (unreadable[0]) {
      return Main.USAGE;
    }
    ResumeInput answer = (decided ? (decision.approve ? ResumeInput.approve(comment) : ResumeInput.reject(comment))
        : input != null ? ResumeInput.text(input) : ResumeInput.none()).withValues(values);
    Optional<ResumeRefusal> refused = info.refusal(answer, Instant.now());
    if (refused.isPresent() && refused.get().reason() == ResumeRefusal.Reason.NOT_RESUMABLE) {
      err.println(refusal(refused.get()));
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
    if (refused.isPresent()) {
      err.println(refusal(refused.get()));
      return Main.USAGE;
    }
    RunOptions.Builder opts = RunOptions.builder();
    if (rec.workingDirectory() != null && Files.isDirectory(Path.of(rec.workingDirectory()))) {
      opts.workingDirectory(Path.of(rec.workingDirectory()));
    }
    if (!Support.mockOption(opts, mockLlm, mockScript, err)
        || !Support.httpPolicy(opts, execution.httpDenyPrivate, System.getenv(), err)
        || !Support.sandbox(opts, execution.sandbox, System.getenv(), engine.store(), err)) {
      return Main.USAGE;
    }
    boolean journaledMock = Boolean.TRUE.equals(rec.options().get(RunOptions.LLM_MOCK));
    if (journaledMock && !mockLlm && mockScript == null) {
      err.println("loopflow: run " + runId + " started with the mock LLM provider; it resumes with it"
          + (rec.options().get("llm.mock_script") != null ? " and the mock script kept with the run" : ""));
    }
    Support.mockWhenNoProvider(opts, wf, journaledMock || mockLlm || mockScript != null, Support.environment,
        execution.quiet ? null : err);
    var tracing = Support.observability();
    try {
      tracing.instrumentResume(wf, rec, opts);
      Driver d = new Driver(engine, wf, opts, execution, eventsFile, answers, out, err);
      return d.drive(o -> engine.resume(wf, runId, answer, o, true));
    } finally {
      tracing.close(Support.TRACE_FLUSH);
    }
  }

  /** A refusal in this command's terms: which option answers what the run waits for. */
  private String refusal(ResumeRefusal r) {
    Waiting w = r.waiting();
    boolean approval = w != null && w.kind() == Waiting.Kind.APPROVAL;
    return "loopflow: " + switch (r.reason()) {
      case NOT_RESUMABLE -> "run " + runId + " is " + r.status().json() + "; only paused, failed or interrupted runs "
          + "can be resumed";
      case NO_ANSWER_EXPECTED -> "run " + runId + " is " + (r.status() == RunStatus.RUNNING ? "interrupted"
          : r.status().json()) + " and waits for no answer; resume it without --input, --approve or --reject";
      case ANSWER_REQUIRED -> approval
          ? "run " + runId + " waits for an approval at " + w.path() + ": " + w.message()
              + "\nloopflow: answer with --approve or --reject [--comment TEXT]" + formHint(w)
          : "run " + runId + " waits at " + w.path() + ": " + w.message() + "\nloopflow: answer with "
              + (w.schema() == null ? "--input TEXT" : "--values JSON or --value NAME=VALUE" + formHint(w));
      case WRONG_ANSWER -> approval
          ? "run " + runId + " waits for an approval at " + w.path() + "; answer with --approve or --reject (or "
              + "--input approve|reject)"
          : "run " + runId + " waits at loop gate " + w.path() + ", not at an approval; answer with --input TEXT";
      case INVALID_VALUES -> Errors.oneLine(r.message()) + (w.schema() == null ? ""
          : "\nloopflow: answer with --values JSON or --value NAME=VALUE" + formHint(w));
    };
  }

  /** For a step with a form: its fields, so the person sees what to give. */
  private static String formHint(Waiting w) {
    String fields = FormAnswers.fields(w);
    return fields == null ? "" : "\nloopflow: the form: " + fields;
  }

  /**
   * The workflow to resume with: the file it came from when the file still holds exactly the source the run
   * started from (the journal keeps that source's SHA-256); else, when the file changed, the user must choose
   * ({@code --force}: the file as it is now; {@code --original}: the journaled source). The journaled source is
   * used only when it is exact: credentials written in a workflow are masked in the journal, and such a source
   * cannot run as it is.
   */
  private Workflow workflow(Loopflow engine, RunRecord rec, PrintWriter err) {
    Path file = null;
    if (rec.file() != null) {
      Path f = Path.of(rec.file());
      file = f.isAbsolute() || rec.workingDirectory() == null ? f : Path.of(rec.workingDirectory()).resolve(f);
    }
    String now = null;
    if (file != null && Files.isRegularFile(file)) {
      try {
        now = Files.readString(file, StandardCharsets.UTF_8);
      } catch (IOException e) {
        now = null;
      }
    }
    boolean changed = now != null && rec.sourceHash() != null && !rec.sourceHash().equals(Loopflow.sourceHash(now));
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
    if (now != null && !changed && rec.sourceHash() != null) {
      return parse(engine, rec, now, err); // byte for byte the source the run started from
    }
    if (!rec.sourceIsExact()) {
      err.println("loopflow: the journaled workflow of run " + rec.runId() + " had credentials masked and cannot run "
          + "as it is; put " + (file == null ? "its workflow file" : file) + " back as it was when the run started, "
          + "or resume with --force and the file as it is now");
      return null;
    }
    return parse(engine, rec, rec.source(), err);
  }

  private static Workflow parse(Loopflow engine, RunRecord rec, String source, PrintWriter err) {
    try {
      return engine.parse(source, rec.file() == null ? rec.workflow() : rec.file());
    } catch (WorkflowInvalidException e) {
      for (Problem p : e.problems()) {
        err.println(p.format());
      }
      err.println("loopflow: the journaled workflow of run " + rec.runId() + " no longer loads with this version");
      return null;
    }
  }
}
