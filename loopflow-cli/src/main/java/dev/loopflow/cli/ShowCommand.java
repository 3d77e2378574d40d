package dev.loopflow.cli;

import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.model.RestartPolicy;
import dev.loopflow.core.run.NodeResults;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.run.Waiting;
import dev.loopflow.core.secrets.Redactor;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunInfo;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.core.store.RunSummary;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "show", mixinStandardHelpOptions = true,
    description = "Shows a journaled run as a tree: nodes, loops and each of their passes, outputs cut to a line, "
        + "tokens, cost and errors.",
    footer = {"", "With --json: the same object run --json printed (for a run that is still running or was "
        + "interrupted, rebuilt from its node executions). A run journaled as running whose process is gone "
        + "shows status interrupted: loopflow resume continues it."})
final class ShowCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "RUN_ID")
  String runId;

  @Option(names = "--json", description = "The run's result object, as run --json prints it.")
  boolean json;

  @Option(names = "--source", description = "Print the workflow source the run started from.")
  boolean source;

  @Mixin
  StoreOption store;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try (RunStore s = Stores.open(store)) {
      Loopflow engine = Loopflow.builder().store(s).build();
      RunInfo info = engine.inspect(runId).orElse(null);
      if (info == null) {
        err.println("loopflow: no run '" + runId + "' in " + Stores.printable(store));
        return Main.USAGE;
      }
      // The journal was masked when it was written; masking again with today's environment also covers journals
      // written before a credential was known (or by older versions).
      Redactor redactor = Redactor.ofEnvironment(System.getenv());
      RunRecord r = redactor.record(info.record());
      List<NodeExecution> rows = engine.executions(runId).stream().map(redactor::execution).toList();
      List<RunRecord> forks = engine.forks(runId);
      // Journaled running, but the process executing it is gone: shown as interrupted, the journal left as it is.
      boolean interrupted = RunSummary.interrupted(s, info.record(), Instant.now());
      if (source) {
        out.print(r.source() == null ? "" : r.source());
      } else if (json) {
        // The engine's own reading of the journal: what the run printed, or for a run that is still running (or
        // whose process died) its state rebuilt with the engine's merges.
        RunResult result = info.result();
        Map<String, Object> shown = new LinkedHashMap<>(redactor.map(result.toJson()));
        if (interrupted) {
          shown.put("status", "interrupted");
        }
        if (!forks.isEmpty()) {
          List<Map<String, Object>> listed = new ArrayList<>();
          for (RunRecord f : forks) {
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("run_id", f.runId());
            one.put("at", f.options().get(RunOptions.FORKED_FROM) instanceof Map<?, ?> m ? m.get("at") : null);
            one.put("status", f.status().json());
            listed.add(one);
          }
          shown.put("forks", listed);
        }
        out.println(JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build()
            .writeValueAsString(shown));
      } else {
        tree(out, r, rows, interrupted, forks);
      }
      return Main.OK;
    } finally {
      out.flush();
      err.flush();
    }
  }

  /** A node of the printed tree: a node execution, or a loop with its passes. */
  private static final class Item {
    final String label;
    NodeExecution row;
    final Map<String, Item> children = new LinkedHashMap<>();

    Item(String label) {
      this.label = label;
    }

    Item child(String key, String label) {
      return children.computeIfAbsent(key, k -> new Item(label));
    }
  }

  private static void tree(PrintWriter out, RunRecord r, List<NodeExecution> rows, boolean interrupted,
      List<RunRecord> forks) {
    Usage u = r.usage() == null ? Usage.NONE : r.usage();
    String duration = r.finishedAt() == null ? "" : "  " + Progress.secs(Duration.between(r.startedAt(),
        r.finishedAt()));
    // The workflow's name is the file's text (and a run id given through the API may be anything): one line.
    out.println(Errors.oneLine(r.runId() + "  " + r.workflow() + "  " + (interrupted ? "interrupted"
        : r.status().json()) + "  started " + r.startedAt() + duration + tokens(u)));
    if (interrupted) {
      out.println(Errors.oneLine("  interrupted: nothing executes it (the process that ran it is gone); continue "
          + "it with: loopflow resume " + r.runId()));
    }
    if (r.options().get(RunOptions.FORKED_FROM) instanceof Map<?, ?> from) {
      out.println(Errors.oneLine("  forked from " + from.get("run_id") + " at " + from.get("at") + "; executions "
          + "marked (reused) ran there and were not executed again"));
    }
    for (RunRecord f : forks) {
      Object at = f.options().get(RunOptions.FORKED_FROM) instanceof Map<?, ?> m ? m.get("at") : null;
      out.println(Errors.oneLine("  fork: " + f.runId() + " at " + at + "  " + f.status().json()));
    }
    if (r.error() != null) {
      out.println("  error [" + r.error().code() + "]" + (r.error().path() != null ? " at " + r.error().path()
          : r.error().node() != null ? " in " + r.error().node() : "") + ": " + firstLine(r.error().message(), 160));
    }
    if (r.status() == RunStatus.PAUSED && r.waiting() != null) {
      out.println("  waits for " + (r.waiting().kind() == Waiting.Kind.APPROVAL ? "an approval"
          : "input") + " at " + r.waiting().path() + ": " + firstLine(r.waiting().message(), 160));
      String form = FormAnswers.fields(r.waiting());
      if (form != null) {
        out.println(Errors.oneLine("  form: " + form + "; answer with loopflow resume " + r.runId()
            + " --values JSON or --value NAME=VALUE"));
      }
    }
    Item root = new Item("");
    for (NodeExecution e : rows) {
      Item at = root;
      StringBuilder key = new StringBuilder();
      for (NodePosition.LoopFrame f : e.position().loops()) {
        key.append(f.loopId());
        boolean restarts = f.loopId().equals(RestartPolicy.LOOP_ID) && key.length() == f.loopId().length();
        at = at.child(f.loopId(), restarts ? "iterations" : f.loopId());
        at = at.child("#" + f.iteration(), (restarts ? "iteration " : "pass ") + f.iteration());
      }
      String id = e.position().nodeId();
      String after = RestartPolicy.decidedAfter(e.kind(), id);
      Item leaf = at.child(id, after != null ? "restart requests after " + after : id);
      leaf.row = e; // a later execution at the same position (a resumed gate, a re-run) replaces the earlier
    }
    print(out, root, "", r.runId());
  }

  private static void print(PrintWriter out, Item item, String indent, String runOf) {
    List<Item> kids = new ArrayList<>(item.children.values());
    for (int i = 0; i < kids.size(); i++) {
      Item k = kids.get(i);
      boolean last = i == kids.size() - 1;
      String[] lines = describe(k, runOf).split("\n");
      out.println(indent + (last ? "└─ " : "├─ ") + lines[0]);
      for (int l = 1; l < lines.length; l++) {
        // further lines of one item (each restart decision) hang under it
        out.println(indent + (last ? "   " : "│  ") + "   " + lines[l]);
      }
      print(out, k, indent + (last ? "   " : "│  "), runOf);
    }
  }

  /** {@code runOf}: the run shown; an execution of another run is one a fork reuses from its origin. */
  private static String describe(Item k, String runOf) {
    NodeExecution e = k.row;
    if (e == null) {
      return k.label;
    }
    if (RestartPolicy.decidedAfter(e.kind(), e.position().nodeId()) != null && e.result() != null
        && e.result().get("decisions") instanceof List<?> ds) {
      StringBuilder sb = new StringBuilder(k.label);
      for (Object o : ds) {
        if (o instanceof Map<?, ?> d) {
          sb.append("\n").append(firstLine(String.valueOf(d.get("requester_stage_id")), 80)).append(" -> ")
              .append(firstLine(String.valueOf(d.get("target_stage_id")), 80)).append(": ");
          if (Boolean.TRUE.equals(d.get("success"))) {
            sb.append("accepted, iteration ").append(d.get("iteration"));
          } else if (d.get("error") instanceof Map<?, ?> err) {
            sb.append("rejected [").append(err.get("code")).append("] ")
                .append(firstLine(err.get("message") == null ? "" : String.valueOf(err.get("message")), 100));
          }
          if (d.get("reason") instanceof String why && !why.isBlank()) {
            sb.append(" (").append(firstLine(why, 80)).append(")");
          }
        }
      }
      return sb.toString();
    }
    StringBuilder sb = new StringBuilder(k.label).append("  ").append(e.status().json());
    if (!e.runId().equals(runOf)) {
      sb.append("  (reused)");
    }
    Map<String, Object> res = e.result() == null ? Map.of() : e.result();
    if (res.get("iterations") instanceof Number n) {
      sb.append("  ").append(n).append(n.intValue() == 1 ? " pass" : " passes");
    }
    if (res.get("exit_reason") != null) {
      sb.append(", exit: ").append(res.get("exit_reason"));
    }
    if (res.get("sandbox") instanceof String how) { // how a process node ran: contained, or why not
      sb.append("  [sandbox: ").append(firstLine(how, 20)).append("]");
    }
    if (e.status() == NodeStatus.FAILED || e.status() == NodeStatus.CANCELLED) {
      if (e.errorCode() != null) {
        sb.append("  [").append(e.errorCode()).append("] ").append(firstLine(e.errorMessage(), 100));
      }
    } else if (e.status() == NodeStatus.PAUSED) {
      if (res.get("message") != null) {
        sb.append("  ").append(firstLine(String.valueOf(res.get("message")), 100));
      }
    } else if (res.get("output") != null && !(res.get("iterations") instanceof Number)) {
      // a missing output (a loop whose every pass failed) shows as nothing, never as "null"
      Object o = res.get("output");
      sb.append("  ").append(firstLine(o instanceof String s ? s : Json.compact(o), 80));
    }
    return sb.append(tokens(e.usage())).toString();
  }

  private static String tokens(Usage u) {
    if (u == null || u.llmCalls() == 0) {
      return "";
    }
    return "  " + u.inputTokens() + "+" + u.outputTokens() + " tokens"
        + (u.costUsd() == null ? "" : "  " + Progress.money(u.costUsd()));
  }

  static String firstLine(String s, int max) {
    if (s == null) {
      return "";
    }
    String t = s.strip();
    int nl = t.indexOf('\n');
    String line = nl < 0 ? t : t.substring(0, nl) + " …";
    // A journaled text may hold terminal control codes (a model's reply, a hostile reason): shown as escapes.
    return Errors.oneLine(line.length() <= max ? line : line.substring(0, max - 1) + "…");
  }
}
