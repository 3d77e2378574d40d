package dev.loopflow.cli;

import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.event.Events;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.run.Waiting;
import dev.loopflow.core.secrets.PrivateFiles;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.llm.LlmHandler;
import java.io.Console;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * What {@code run} and {@code resume} share once a run is started: the JSONL event file (created {@code 0600};
 * events arrive with credentials already masked by the engine; each line is written and handed to the operating
 * system as its event happens, so a reader following the file sees the run live and a killed process leaves every
 * event it had published),
 * live progress, Ctrl-C, answering pauses from {@code --answer} or a terminal, the result on stdout and the exit
 * status.
 */
final class Driver {
  private final Loopflow engine;
  private final Workflow wf;
  private final RunOptions.Builder opts;
  private final boolean json;
  private final boolean quiet;
  private final boolean noStream;
  private final Path eventsFile;
  private final List<String> answers;
  private final PrintWriter out;
  private final PrintWriter err;
  /** Whether the current pause's question was printed with the terminal prompt. */
  private boolean askedOnTerminal;

  Driver(Loopflow engine, Workflow wf, RunOptions.Builder opts, ExecutionOptions execution, Path eventsFile,
      List<String> answers, PrintWriter out, PrintWriter err) {
    this.engine = engine;
    this.wf = wf;
    this.opts = opts;
    this.json = execution.json;
    this.quiet = execution.quiet;
    this.noStream = execution.noStream;
    this.eventsFile = eventsFile;
    this.answers = answers;
    this.out = out;
    this.err = err;
  }

  int drive(Function<RunOptions, RunHandle> start) throws Exception {
    OutputStream events = null;
    // The first write error; the run goes on (its journal has every event) and the user is told afterwards.
    AtomicReference<IOException> eventsFailed = new java.util.concurrent.atomic
        .AtomicReference<>();
    if (eventsFile != null) {
      events = openEvents(eventsFile);
      OutputStream w = events;
      opts.listener(e -> {
        if (eventsFailed.get() != null) {
          return;
        }
        try {
          // One write call per line, unbuffered: 'tail -f' sees each event at once, and a killed process leaves
          // every line written before it died (the bus calls listeners one event at a time, so lines never
          // interleave).
          w.write((Json.compact(Events.toMap(e)) + "\n").getBytes(StandardCharsets.UTF_8));
        } catch (IOException io) {
          eventsFailed.compareAndSet(null, io);
        }
      });
    }
    Progress progress = quiet ? null : Progress.create(err, wf);
    if (progress != null) {
      opts.listener(progress);
    }
    // Streamed text only feeds what watches the run: progress (on stderr, so also with --json) and the events file.
    // Always set, so that a resume decides for itself rather than taking the journaled value.
    opts.option(LlmHandler.STREAM_OPTION, !noStream && (progress != null || eventsFile != null));
    // Ctrl-C is caught from before the run starts: a SIGINT arriving while the run is being started (or while the
    // first nodes run and this thread has not got here yet) would otherwise end the JVM with status 130, without
    // cancelling the run or saying anything. One that arrives before the handle exists cancels the run as soon as
    // it does.
    RunHandle[] current = {null};
    boolean[] early = {false};
    Interrupts.onInterrupt(() -> {
      RunHandle h;
      synchronized (current) {
        h = current[0];
        if (h == null) {
          early[0] = true;
          return;
        }
      }
      cancelOnInterrupt(h);
    });
    RunHandle handle;
    try {
      handle = start.apply(opts.build());
    } catch (LoopflowException e) {
      if (!Errors.usage(e.code())) {
        throw e;
      }
      err.println(Errors.oneLine("loopflow: " + e.getMessage()));
      return Main.USAGE;
    }
    boolean interruptedAlready;
    synchronized (current) {
      current[0] = handle;
      interruptedAlready = early[0];
    }
    if (interruptedAlready) {
      cancelOnInterrupt(handle);
    }
    RunResult result = handle.await();
    Iterator<String> next = answers.iterator();
    boolean badAnswer = false;
    while (result.status() == RunStatus.PAUSED) {
      boolean fromOption = next.hasNext();
      String answer = fromOption ? next.next() : askOnTerminal(result);
      if (answer == null) {
        break;
      }
      try {
        RunHandle resumed = engine.resume(wf, result.runId(), answerFor(result.waiting(), answer), opts.build(),
            true);
        synchronized (current) {
          current[0] = resumed;
        }
      } catch (LoopflowException e) {
        if (!Errors.usage(e.code())) {
          throw e;
        }
        err.println("loopflow: " + (fromOption ? "--answer '" + answer + "': " : "") + e.getMessage());
        if (fromOption) {
          badAnswer = true;
          break;
        }
        continue; // on a terminal: ask again
      }
      askedOnTerminal = false;
      result = current[0].await();
    }
    if (progress != null) {
      progress.finish(result);
    }
    // The question is said once: the progress lines or the terminal prompt may have shown it already.
    boolean asked = askedOnTerminal || progress != null && progress.showsPauseMessages();
    if (events != null) {
      try {
        events.close();
      } catch (IOException io) {
        eventsFailed.compareAndSet(null, io);
      }
    }
    if (json) {
      out.println(JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build()
          .writeValueAsString(result.toJson()));
      if (result.status() == RunStatus.PAUSED) {
        printPauseHint(result, asked);
      } else if (result.status() == RunStatus.FAILED) {
        printResumeHint(result);
      }
    } else {
      printHuman(result, asked);
    }
    if (eventsFailed.get() != null) {
      err.println(Errors.oneLine("loopflow: --events-jsonl " + eventsFile + ": writing failed ("
          + Errors.describe(eventsFailed.get()) + "); the file is incomplete, the journal has every event: "
          + "loopflow events " + result.runId()));
      return badAnswer ? Main.USAGE : result.status() == RunStatus.COMPLETED ? Main.FAILED
          : exitStatus(result.status());
    }
    return badAnswer ? Main.USAGE : exitStatus(result.status());
  }

  private void cancelOnInterrupt(RunHandle h) {
    List<String> runningNow = h.runningNodes();
    err.println();
    err.println("loopflow: interrupted; cancelling run " + h.runId()
        + (runningNow.isEmpty() ? "" : " (running: " + String.join(", ", runningNow) + ")"));
    err.flush();
    h.cancel("interrupted by the user (Ctrl-C)" + (runningNow.isEmpty() ? ""
        : "; running: " + String.join(", ", runningNow)));
  }

  /** Opens (creates or truncates) the events file before the run starts; an unwritable path is a usage error. */
  private static OutputStream openEvents(Path file) {
    if (Files.isDirectory(file)) {
      throw CliError.usage("--events-jsonl " + file + ": is a directory");
    }
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null && !Files.isDirectory(parent)) {
      throw CliError.usage("--events-jsonl " + file + ": directory " + parent
          + (Files.exists(parent) ? " is not a directory" : " does not exist"));
    }
    try {
      PrivateFiles.createFile(file);
      return Files.newOutputStream(file);
    } catch (IOException e) {
      throw CliError.usage("--events-jsonl " + file + ": cannot write: " + Errors.describe(e), e);
    }
  }

  static int exitStatus(RunStatus s) {
    return switch (s) {
      case COMPLETED -> Main.OK;
      case PAUSED -> Main.PAUSED;
      default -> Main.FAILED;
    };
  }

  /** On a terminal, a paused run asks for its answer; elsewhere (and on end of input) it stays paused. */
  private String askOnTerminal(RunResult r) {
    Console console = System.console();
    if (console == null || !Progress.isTerminal()) {
      return null;
    }
    err.println("loopflow: " + question(r.waiting()));
    err.flush();
    askedOnTerminal = true;
    String form = FormAnswers.fields(r.waiting());
    if (form != null) {
      err.println(Errors.oneLine("loopflow: the form: " + form));
      return console.readLine("values as a JSON object> ");
    }
    return console.readLine(r.waiting() != null && r.waiting().kind() == Waiting.Kind.APPROVAL
        ? "approve or reject> " : "answer> ");
  }

  /**
   * The answer typed (or given with --answer): at a step with a form, a JSON object is the form's values (which
   * alone approve an approval); anything else is text, as at a step without one.
   */
  static ResumeInput answerFor(Waiting w, String answer) {
    if (w != null && w.schema() != null && answer.strip().startsWith("{")) {
      try {
        if (Json.parse(answer) instanceof Map<?, ?> m) {
          Map<String, Object> values = new LinkedHashMap<>();
          m.forEach((k, v) -> values.put(String.valueOf(k), v));
          return ResumeInput.none().withValues(values);
        }
      } catch (IllegalArgumentException notJson) {
        // text, refused by the engine as an answer without the form's values
      }
    }
    return ResumeInput.text(answer);
  }

  /** What the person is asked, with an approval's deadline and the decision taken after it. */
  private static String question(Waiting w) {
    if (w == null) {
      return "paused";
    }
    return w.message() + (w.deadline() == null ? "" : " (unanswered by " + w.deadline() + ": " + w.onTimeout() + ")");
  }

  /** The pause, said once: {@code asked} when the question was already shown (the terminal prompt, progress lines). */
  private void printPauseHint(RunResult r, boolean asked) {
    Waiting w = r.waiting();
    err.println("loopflow: run " + r.runId() + " paused" + (w == null ? "" : " at " + w.path()
        + (asked ? "" : ": " + question(w))));
    boolean approval = w != null && w.kind() == Waiting.Kind.APPROVAL;
    err.println("loopflow: continue with: loopflow resume " + r.runId()
        + (w != null && w.schema() != null
            ? (approval ? " --values JSON | --value NAME=VALUE (approves), or --reject [--comment TEXT]"
                : " --values JSON | --value NAME=VALUE [--input TEXT]")
            : approval ? " --approve | --reject [--comment TEXT]" : " --input TEXT")
        + (w != null && w.schema() != null ? " (or answer in one go: run with --answer JSON)"
            : " (or answer in one go: run with --answer TEXT)"));
    String form = FormAnswers.fields(w);
    if (form != null) {
      err.println(Errors.oneLine("loopflow: the form: " + form));
    }
  }

  private void printResumeHint(RunResult r) {
    err.println("loopflow: run " + r.runId() + " is journaled; after fixing the cause: loopflow resume " + r.runId());
  }

  private void printHuman(RunResult r, boolean asked) {
    if (r.status() == RunStatus.PAUSED) {
      printPauseHint(r, asked);
      return;
    }
    if (r.status() == RunStatus.COMPLETED) {
      Object o = r.output();
      out.println(o == null ? "" : o instanceof String s ? s : Json.compact(o));
    } else if (r.error() != null) {
      // The message may come from a command's stderr or a model's reply: one line, no terminal control codes.
      err.println(Errors.oneLine("loopflow: run " + r.status().json() + " [" + r.error().code() + "]"
          + (r.error().node() == null ? "" : " in node '" + r.error().node() + "'") + ": " + r.error().message()));
      if (r.status() == RunStatus.FAILED) {
        printResumeHint(r);
      }
    }
  }
}
