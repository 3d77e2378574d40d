package dev.loopflow.cli;

import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.LoopflowException;
import dev.loopflow.core.event.Events;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.secrets.PrivateFiles;
import dev.loopflow.core.store.NodeExecution;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.function.Function;

/**
 * What {@code run} and {@code resume} share once a run is started: the JSONL event file (created {@code 0600};
 * events arrive with credentials already masked by the engine),
 * live progress, Ctrl-C, answering pauses from {@code --answer} or a terminal, the result on stdout and the exit
 * status.
 */
final class Driver {
  private final Loopflow engine;
  private final Workflow wf;
  private final RunOptions.Builder opts;
  private final boolean json;
  private final boolean quiet;
  private final Path eventsFile;
  private final List<String> answers;
  private final PrintWriter out;
  private final PrintWriter err;

  Driver(Loopflow engine, Workflow wf, RunOptions.Builder opts, boolean json, boolean quiet, Path eventsFile,
      List<String> answers, PrintWriter out, PrintWriter err) {
    this.engine = engine;
    this.wf = wf;
    this.opts = opts;
    this.json = json;
    this.quiet = quiet;
    this.eventsFile = eventsFile;
    this.answers = answers;
    this.out = out;
    this.err = err;
  }

  int drive(Function<RunOptions, RunHandle> start) throws Exception {
    BufferedWriter events = null;
    // The first write error; the run goes on (its journal has every event) and the user is told afterwards.
    java.util.concurrent.atomic.AtomicReference<IOException> eventsFailed = new java.util.concurrent.atomic
        .AtomicReference<>();
    if (eventsFile != null) {
      events = openEvents(eventsFile);
      BufferedWriter w = events;
      opts.listener(e -> {
        if (eventsFailed.get() != null) {
          return;
        }
        try {
          w.write(Json.compact(Events.toMap(e)));
          w.newLine();
        } catch (IOException io) {
          eventsFailed.compareAndSet(null, io);
        }
      });
    }
    Progress progress = quiet ? null : Progress.create(err, wf);
    if (progress != null) {
      opts.listener(progress);
    }
    RunHandle handle;
    try {
      handle = start.apply(opts.build());
    } catch (LoopflowException e) {
      err.println(Errors.oneLine("loopflow: " + e.getMessage()));
      return Main.USAGE;
    }
    RunHandle[] current = {handle};
    Interrupts.onInterrupt(() -> {
      RunHandle h = current[0];
      List<String> runningNow = h.runningNodes();
      err.println();
      err.println("loopflow: interrupted; cancelling run " + h.runId()
          + (runningNow.isEmpty() ? "" : " (running: " + String.join(", ", runningNow) + ")"));
      err.flush();
      h.cancel("interrupted by the user (Ctrl-C)" + (runningNow.isEmpty() ? ""
          : "; running: " + String.join(", ", runningNow)));
    });
    RunResult result = handle.await();
    Iterator<String> next = answers.iterator();
    while (result.status() == RunStatus.PAUSED) {
      String answer = next.hasNext() ? next.next() : askOnTerminal(result);
      if (answer == null) {
        break;
      }
      current[0] = engine.resume(wf, result.runId(), ResumeInput.text(answer), opts.build(), true);
      result = current[0].await();
    }
    if (progress != null) {
      progress.finish(result);
    }
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
        printPauseHint(result);
      } else if (result.status() == RunStatus.FAILED) {
        printResumeHint(result);
      }
    } else {
      printHuman(result);
    }
    if (eventsFailed.get() != null) {
      err.println(Errors.oneLine("loopflow: --events-jsonl " + eventsFile + ": writing failed ("
          + Errors.describe(eventsFailed.get()) + "); the file is incomplete, the journal has every event: "
          + "loopflow events " + result.runId()));
      return result.status() == RunStatus.COMPLETED ? Main.FAILED : exitStatus(result.status());
    }
    return exitStatus(result.status());
  }

  /** Opens (creates or truncates) the events file before the run starts; an unwritable path is a usage error. */
  private static BufferedWriter openEvents(Path file) {
    if (Files.isDirectory(file)) {
      throw CliError.usage("--events-jsonl " + file + ": is a directory");
    }
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null && !Files.isDirectory(parent)) {
      throw CliError.usage("--events-jsonl " + file + ": directory " + parent
          + (Files.exists(parent) ? " is not a directory" : " does not exist"));
    }
    try {
      return PrivateFiles.newWriter(file);
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
    java.io.Console console = System.console();
    if (console == null || !Progress.isTerminal()) {
      return null;
    }
    err.println("loopflow: " + (r.pause() == null ? "paused" : r.pause().message()));
    err.flush();
    return console.readLine(waitsForApproval(r) ? "approve or reject> " : "answer> ");
  }

  private boolean waitsForApproval(RunResult r) {
    if (r.pause() == null || r.pause().at() == null) {
      return false;
    }
    String at = r.pause().at();
    for (NodeExecution e : engine.store().nodeExecutions(r.runId())) {
      if (e.status() == NodeStatus.PAUSED && e.position().path().equals(at)) {
        return e.kind().equals("approval");
      }
    }
    return false;
  }

  private void printPauseHint(RunResult r) {
    err.println("loopflow: run " + r.runId() + " paused" + (r.pause() == null ? "" : " at " + r.pause().at() + ": "
        + r.pause().message()));
    err.println("loopflow: continue with: loopflow resume " + r.runId()
        + (waitsForApproval(r) ? " --approve | --reject [--comment TEXT]" : " --input TEXT")
        + " (or answer in one go: run with --answer TEXT)");
  }

  private void printResumeHint(RunResult r) {
    err.println("loopflow: run " + r.runId() + " is journaled; after fixing the cause: loopflow resume " + r.runId());
  }

  private void printHuman(RunResult r) {
    if (r.status() == RunStatus.PAUSED) {
      printPauseHint(r);
      return;
    }
    if (r.status() == RunStatus.COMPLETED) {
      Object o = r.output();
      out.println(o instanceof String s ? s : Json.compact(o));
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
