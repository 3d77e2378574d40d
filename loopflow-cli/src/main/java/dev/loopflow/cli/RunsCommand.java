package dev.loopflow.cli;

import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.loopflow.core.model.NodePosition;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "runs", mixinStandardHelpOptions = true,
    description = "Lists journaled runs, most recent first.",
    footer = {"", "Examples:", "  loopflow runs --status paused", "  loopflow runs --workflow review --json"})
final class RunsCommand implements Callable<Integer> {
  private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
      .withZone(ZoneId.systemDefault());

  @Option(names = "--status", paramLabel = "STATUS", split = ",",
      description = "Only runs in these states: running, paused, completed, failed, cancelled.")
  List<String> statuses = new ArrayList<>();

  @Option(names = "--workflow", paramLabel = "NAME", description = "Only runs of workflows whose name or file "
      + "contains NAME.")
  String workflow;

  @Option(names = "--limit", paramLabel = "N", description = "At most N runs (default 50).")
  int limit = 50;

  @Option(names = "--json", description = "A JSON array of run objects.")
  boolean json;

  @Mixin
  StoreOption store;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (limit < 1) {
      throw CliError.usage("--limit must be at least 1, was " + limit);
    }
    Set<String> allowed = Set.of("running", "paused", "completed", "failed", "cancelled");
    for (String s : statuses) {
      if (!allowed.contains(s.toLowerCase(Locale.ROOT))) {
        err.println("loopflow: --status " + s + ": expected one of running, paused, completed, failed, cancelled");
        err.flush();
        return Main.USAGE;
      }
    }
    try (RunStore s = Stores.open(store)) {
      List<Map<String, Object>> rows = new ArrayList<>();
      for (RunRecord r : s.listRuns()) {
        if (rows.size() >= limit) {
          break;
        }
        if (!statuses.isEmpty() && statuses.stream().noneMatch(st -> st.equalsIgnoreCase(r.status().json()))) {
          continue;
        }
        if (workflow != null && !r.workflow().contains(workflow)
            && (r.file() == null || !r.file().contains(workflow))) {
          continue;
        }
        rows.add(row(r, s.nodeExecutions(r.runId())));
      }
      if (json) {
        out.println(JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build().writeValueAsString(rows));
      } else {
        table(out, rows);
      }
      return Main.OK;
    } finally {
      out.flush();
      err.flush();
    }
  }

  static Map<String, Object> row(RunRecord r, List<NodeExecution> executions) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("run_id", r.runId());
    m.put("workflow", r.workflow());
    m.put("file", r.file());
    m.put("status", r.status().json());
    m.put("started_at", r.startedAt().toString());
    m.put("finished_at", r.finishedAt() == null ? null : r.finishedAt().toString());
    m.put("duration_ms", r.finishedAt() == null ? null : Duration.between(r.startedAt(), r.finishedAt()).toMillis());
    m.put("iterations", iterations(executions));
    m.put("llm_calls", r.usage() == null ? 0 : r.usage().llmCalls());
    m.put("cost_usd", r.usage() == null ? null : r.usage().costUsd());
    m.put("error", r.error() == null ? null : r.error().code());
    m.put("paused_at", r.status().json().equals("paused") ? r.pausedAt() : null);
    return m;
  }

  /** Loop passes that journaled anything: each distinct (loop path, iteration) counts once. */
  static int iterations(List<NodeExecution> executions) {
    Set<String> passes = new HashSet<>();
    for (NodeExecution e : executions) {
      StringBuilder sb = new StringBuilder();
      for (NodePosition.LoopFrame f : e.position().loops()) {
        sb.append(f.loopId()).append('[').append(f.iteration()).append("].");
        passes.add(sb.toString());
      }
    }
    return passes.size();
  }

  private static void table(PrintWriter out, List<Map<String, Object>> rows) {
    if (rows.isEmpty()) {
      out.println("no runs");
      return;
    }
    String fmt = "%-22s %-20s %-10s %-19s %9s %5s %9s%n";
    out.printf(fmt, "RUN ID", "WORKFLOW", "STATUS", "STARTED", "DURATION", "ITER", "COST");
    for (Map<String, Object> r : rows) {
      Object ms = r.get("duration_ms");
      out.printf(fmt, Errors.oneLine(String.valueOf(r.get("run_id"))), cut(Errors.oneLine(String.valueOf(
          r.get("workflow"))), 20), r.get("status"),
          WHEN.format(java.time.Instant.parse((String) r.get("started_at"))),
          ms == null ? "-" : Progress.secs(Duration.ofMillis(((Number) ms).longValue())), r.get("iterations"),
          r.get("cost_usd") == null ? ((Number) r.get("llm_calls")).intValue() == 0 ? "-" : "?"
              : Progress.money((Double) r.get("cost_usd")));
    }
  }

  static String cut(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max - 1) + "…";
  }
}
