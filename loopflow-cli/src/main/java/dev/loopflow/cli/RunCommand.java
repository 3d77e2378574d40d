package dev.loopflow.cli;

import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.loopflow.core.Inputs;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.LoopflowException;
import dev.loopflow.core.event.Events;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

@Command(name = "run", mixinStandardHelpOptions = true,
    description = "Runs a workflow: live progress on stderr, the result on stdout.",
    footer = {"", "Examples:", "  loopflow run examples/hello-shell.yaml --input name=Ada",
        "  loopflow run examples/review-llm.yaml --json --events-jsonl events.jsonl",
        "  loopflow run seeds/coder.yaml --mock-llm responses.json   # every LLM call answered by the mock", "",
        "Exit status: 0 completed, 1 failed or cancelled, 2 invalid workflow or usage, 3 paused."})
final class RunCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "FILE", description = "Workflow file.")
  Path file;

  @Option(names = "--input", paramLabel = "NAME=VALUE",
      description = "An input; converted to the declared type. Repeatable.")
  List<String> inputs = new ArrayList<>();

  @Option(names = "--input-file", paramLabel = "FILE", description = "Inputs as a JSON object.")
  Path inputFile;

  @Option(names = "--json", description = "Print exactly one JSON result object on stdout.")
  boolean json;

  @Option(names = "--events-jsonl", paramLabel = "FILE", description = "Write every event to FILE, one JSON per line.")
  Path eventsFile;

  @Option(names = "--mock-llm", paramLabel = "SCRIPT", arity = "0..1", fallbackValue = "",
      description = "Send every LLM call to the mock provider (labelled mock), answering from SCRIPT "
          + "(JSON or YAML list of responses) or the workflow's mock block.")
  String mockScript;

  @Option(names = "--store", paramLabel = "URL", description = "Run store: memory (default for now).")
  String store;

  @Option(names = "--quiet", description = "No progress on stderr.")
  boolean quiet;

  @Option(names = "--answer", paramLabel = "TEXT", description = "Answer for the next pause (an interactive loop "
      + "gate), in order; repeat for several. Without one the run exits 3, or asks on a terminal.")
  List<String> answers = new java.util.ArrayList<>();

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
    if (store != null && !store.equals("memory")) {
      err.println("loopflow: --store " + store + ": only 'memory' is available in this version");
      return Main.USAGE;
    }
    Loopflow engine = Loopflow.create();
    Workflow wf = Support.load(engine, file, err);
    if (wf == null) {
      return Main.USAGE;
    }
    RunOptions.Builder opts = RunOptions.builder();
    try {
      if (inputFile != null) {
        Object parsed = Json.parse(Files.readString(inputFile));
        if (!(parsed instanceof Map<?, ?> m)) {
          err.println("loopflow: --input-file " + inputFile + " must hold a JSON object");
          return Main.USAGE;
        }
        m.forEach((k, v) -> opts.input(String.valueOf(k), v));
      }
      for (String kv : inputs) {
        int eq = kv.indexOf('=');
        if (eq <= 0) {
          err.println("loopflow: --input expects NAME=VALUE, got '" + kv + "'");
          return Main.USAGE;
        }
        String name = kv.substring(0, eq);
        opts.input(name, Inputs.fromText(wf, name, kv.substring(eq + 1)));
      }
      Inputs.resolve(wf, opts.build().inputs());
    } catch (LoopflowException | IllegalArgumentException | IOException e) {
      err.println("loopflow: " + e.getMessage());
      return Main.USAGE;
    }
    if (mockScript != null) {
      opts.option("llm.mock", true);
      if (!mockScript.isEmpty()) {
        Path p = Path.of(mockScript);
        if (!Files.isRegularFile(p)) {
          err.println("loopflow: --mock-llm " + mockScript + ": no such file");
          return Main.USAGE;
        }
        opts.option("llm.mock_script", p.toAbsolutePath().toString());
      }
    }
    BufferedWriter events = null;
    if (eventsFile != null) {
      events = Files.newBufferedWriter(eventsFile, StandardCharsets.UTF_8);
      BufferedWriter w = events;
      opts.listener(e -> {
        try {
          w.write(Events.toJson(e));
          w.newLine();
        } catch (IOException io) {
          throw new java.io.UncheckedIOException(io);
        }
      });
    }
    Progress progress = quiet ? null : Progress.create(err, wf);
    if (progress != null) {
      opts.listener(progress);
    }
    RunHandle handle;
    try {
      handle = engine.start(wf, opts.build());
    } catch (LoopflowException e) {
      err.println("loopflow: " + e.getMessage());
      return Main.USAGE;
    }
    RunHandle[] current = {handle};
    Interrupts.onInterrupt(() -> {
      RunHandle handle0 = current[0];
      List<String> runningNow = handle0.runningNodes();
      err.println();
      err.println("loopflow: interrupted; cancelling run " + handle0.runId()
          + (runningNow.isEmpty() ? "" : " (running: " + String.join(", ", runningNow) + ")"));
      err.flush();
      handle0.cancel("interrupted by the user (Ctrl-C)" + (runningNow.isEmpty() ? ""
          : "; running: " + String.join(", ", runningNow)));
    });
    RunResult result = handle.await();
    java.util.Iterator<String> next = answers.iterator();
    while (result.status() == RunStatus.PAUSED) {
      String answer = next.hasNext() ? next.next() : askOnTerminal(err, result);
      if (answer == null) {
        break;
      }
      current[0] = engine.resume(wf, result.runId(), answer, opts.build());
      result = current[0].await();
    }
    if (progress != null) {
      progress.finish(result);
    }
    if (events != null) {
      events.close();
    }
    if (json) {
      out.println(JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build()
          .writeValueAsString(result.toJson()));
    } else {
      printHuman(out, err, result);
    }
    return switch (result.status()) {
      case COMPLETED -> Main.OK;
      case PAUSED -> Main.PAUSED;
      default -> Main.FAILED;
    };
  }

  /** On a terminal, a paused run asks for its answer; elsewhere (and on end of input) it stays paused. */
  private static String askOnTerminal(PrintWriter err, RunResult r) {
    java.io.Console console = System.console();
    if (console == null || !Progress.isTerminal()) {
      return null;
    }
    err.println("loopflow: " + (r.pause() == null ? "paused" : r.pause().message()));
    err.flush();
    return console.readLine("answer> ");
  }

  private static void printHuman(PrintWriter out, PrintWriter err, RunResult r) {
    if (r.status() == RunStatus.PAUSED) {
      err.println("loopflow: run " + r.runId() + " paused" + (r.pause() == null ? "" : " at " + r.pause().at() + ": "
          + r.pause().message()));
      err.println("loopflow: to continue in one go, run again with --answer TEXT (one per pause); this version keeps "
          + "runs in memory only, so a paused run cannot be resumed by a later command");
      return;
    }
    if (r.status() == RunStatus.COMPLETED) {
      Object o = r.output();
      out.println(o instanceof String s ? s : Json.compact(o));
    } else if (r.error() != null) {
      Map<String, Object> e = new LinkedHashMap<>();
      err.println("loopflow: run " + r.status().json() + " [" + r.error().code() + "]"
          + (r.error().node() == null ? "" : " in node '" + r.error().node() + "'") + ": " + r.error().message());
      e.clear();
    }
  }
}
