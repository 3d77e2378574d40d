package dev.loopflow.cli;

import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.core.store.RunSummary;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
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
      description = "Only runs in these states: running, interrupted (journaled running, but its process is gone: "
          + "resume continues it), paused, completed, failed, cancelled.")
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
    Set<String> wanted = new HashSet<>();
    for (String s : statuses) {
      if (!RunSummary.SHOWN_STATUSES.contains(s.toLowerCase(Locale.ROOT))) {
        err.println(Errors.oneLine("loopflow: --status " + s + ": expected one of "
            + String.join(", ", RunSummary.SHOWN_STATUSES)));
        err.flush();
        return Main.USAGE;
      }
      wanted.add(s.toLowerCase(Locale.ROOT));
    }
    try (RunStore s = Stores.open(store)) {
      List<Map<String, Object>> rows = new ArrayList<>();
      for (RunSummary row : RunSummary.listShown(s, wanted, workflow, limit)) {
        rows.add(row.toJson());
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

  private static void table(PrintWriter out, List<Map<String, Object>> rows) {
    if (rows.isEmpty()) {
      out.println("no runs");
      return;
    }
    String fmt = "%-22s %-20s %-11s %-19s %9s %5s %9s%s%n";
    out.printf(fmt, "RUN ID", "WORKFLOW", "STATUS", "STARTED", "DURATION", "ITER", "COST", "");
    for (Map<String, Object> r : rows) {
      Object ms = r.get("duration_ms");
      out.printf(fmt, Errors.oneLine(String.valueOf(r.get("run_id"))), cut(Errors.oneLine(String.valueOf(
          r.get("workflow"))), 20), r.get("status"),
          WHEN.format(Instant.parse((String) r.get("started_at"))),
          ms == null ? "-" : Progress.secs(Duration.ofMillis(((Number) ms).longValue())), r.get("iterations"),
          r.get("cost_usd") == null ? ((Number) r.get("llm_calls")).intValue() == 0 ? "-" : "?"
              : Progress.money((Double) r.get("cost_usd")),
          r.get("forked_from") instanceof Map<?, ?> f
              ? Errors.oneLine("  fork of " + f.get("run_id") + " at " + f.get("at")) : "");
    }
  }

  static String cut(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max - 1) + "…";
  }
}
