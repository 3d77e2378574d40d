package dev.loopflow.cli;

import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.event.EventListener;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunResult;
import java.io.Console;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Live progress on stderr. On a terminal it redraws a table (node, status, elapsed, tokens, cost); otherwise
 * it prints one line per node state change, which is what logs and CI want. LLM calls answered by the mock
 * provider are marked "mock".
 */
abstract class Progress implements EventListener {
  final PrintWriter err;
  final Workflow wf;
  Instant start;

  Progress(PrintWriter err, Workflow wf) {
    this.err = err;
    this.wf = wf;
  }

  static Progress create(PrintWriter err, Workflow wf) {
    return isTerminal() && System.getenv("LOOPFLOW_PLAIN_PROGRESS") == null ? new Live(err, wf) : new Lines(err, wf);
  }

  static boolean isTerminal() {
    Console c = System.console();
    if (c == null) {
      return false;
    }
    try {
      return (Boolean) Console.class.getMethod("isTerminal").invoke(c);
    } catch (ReflectiveOperationException e) {
      return true;
    }
  }

  void finish(RunResult r) {}

  /** Whether this view already printed a pause's message, so the final hint need not repeat it. */
  boolean showsPauseMessages() {
    return false;
  }

  static String money(Double usd) {
    return usd == null ? "" : String.format(Locale.ROOT, "$%.4f", usd);
  }

  static String secs(Duration d) {
    return String.format(Locale.ROOT, "%.2fs", d.toMillis() / 1000.0);
  }

  /** One line per state change. */
  static final class Lines extends Progress {
    /** Paths whose current execution has said that it streams; a streamed token is never printed. */
    private final Set<String> streaming = new HashSet<>();

    Lines(PrintWriter err, Workflow wf) {
      super(err, wf);
    }

    @Override
    boolean showsPauseMessages() {
      return true;
    }

    @Override
    public synchronized void onEvent(Event e) {
      if (start == null) {
        start = e.at();
      }
      String t = "[" + String.format(Locale.ROOT, "%7s", secs(Duration.between(start, e.at()))) + "] ";
      String line = switch (e) {
        case Event.RunStarted s -> "run " + s.runId() + " started: " + s.workflow();
        case Event.RunResumed r -> "run " + r.runId() + " resumed: " + r.workflow() + " (was " + r.from()
            + (r.waitedAt() == null ? "" : " at " + r.waitedAt()) + (r.answer() == null ? "" : ", answer "
            + Json.compact(r.answer())) + ")";
        case Event.ListenerFailed f -> f.listener() + " failed on " + f.eventType() + " and was detached: "
            + f.message();
        case Event.NodeStarted s -> {
          streaming.remove(s.node().path());
          yield pad(s.node().path()) + " started" + (s.attempt() > 1 ? " (attempt " + s.attempt() + ")" : "");
        }
        case Event.NodeCompleted c -> pad(c.node().path()) + " completed in " + c.durationMillis() + "ms"
            + (c.inputTokens() + c.outputTokens() > 0 ? "  tokens " + c.inputTokens() + "+" + c.outputTokens() : "")
            + (c.costUsd() == null ? "" : "  " + money(c.costUsd()));
        case Event.NodeFailed f -> pad(f.node().path()) + " failed" + (f.allowed() ? " (allowed)" : "") + ": "
            + f.message();
        case Event.NodeSkipped s -> pad(s.node().path()) + " skipped (" + s.reason() + ")";
        case Event.NodeCancelled c -> pad(c.node().path()) + " cancelled";
        case Event.NodeRetrying r -> pad(r.node().path()) + " retrying (attempt " + r.attempt() + "): "
            + r.message();
        case Event.RouterSelected r -> pad(r.node().path()) + " chose branch '" + r.branch() + "'";
        case Event.LlmCalled c -> pad(c.node().path()) + " llm " + c.provider() + ":" + c.model()
            + (c.mock() ? " (mock)" : "") + " tokens " + c.inputTokens() + "+" + c.outputTokens()
            + (c.costUsd() == null ? "" : " " + money(c.costUsd()));
        case Event.LoopStarted l -> pad(l.node().path()) + " " + l.construct() + " started (max " + l.max() + ")";
        case Event.LoopIteration i when !i.startsAPass() -> pad(i.node().path()) + " condition false after "
            + (i.iteration() - 1) + " iteration" + (i.iteration() == 2 ? "" : "s");
        case Event.LoopIteration i -> pad(i.node().path()) + " iteration " + i.iteration() + "/" + i.max()
            + (i.inputPreview().isEmpty() ? "" : "  input: " + i.inputPreview());
        case Event.LoopIterate i -> pad(i.edgeFrom() + " -> " + i.edgeTo()) + " loops back (" + i.iteration() + "/"
            + i.maxIterations() + ")";
        case Event.LoopCompleted c -> pad(c.node().path()) + " " + c.construct() + " done after " + c.iterationsRun()
            + " iteration" + (c.iterationsRun() == 1 ? "" : "s") + ": " + c.exitReason()
            + (c.inputTokens() + c.outputTokens() > 0 ? "  tokens " + c.inputTokens() + "+" + c.outputTokens() : "")
            + (c.costUsd() == null ? "" : "  " + money(c.costUsd()));
        case Event.RunPaused p -> "run paused at " + p.node().path() + ": " + p.message();
        case Event.RunFinished f -> "run " + f.status() + (f.errorCode() == null ? "" : " [" + f.errorCode() + "]")
            + "  tokens " + f.inputTokens() + "+" + f.outputTokens()
            + (f.costUsd() == null ? "" : "  " + money(f.costUsd())) + "  llm calls " + f.llmCalls();
        case Event.NodeStep s -> null;
        case Event.NodeStreaming s -> streaming.add(s.node().path()) ? pad(s.node().path()) + " streaming" : null;
        case Event.RestartRequested r -> pad(r.requesterStageId()) + " requests a restart of '"
            + r.targetStageId() + "': " + r.reason();
        case Event.RestartAccepted r -> pad(r.targetStageId()) + " restarts (iteration " + r.iteration()
            + "), requested by " + r.requesterStageId();
        case Event.RestartRejected r -> pad(r.targetStageId()) + " restart refused [" + r.errorCode() + "]: "
            + r.message();
        case Event.StageValidationRetry v -> pad(v.node().path()) + " output did not validate, retry "
            + v.retry() + " with a fresh session: " + v.error();
      };
      if (line == null) {
        return;
      }
      // Node ids, messages and reasons may come from a workflow, a model or another process: one line, no control
      // codes that could move the terminal's cursor or forge output.
      err.println(t + Errors.oneLine(line));
      err.flush();
    }

    private static String pad(String s) {
      return String.format(Locale.ROOT, "%-20s", s);
    }
  }

  /**
   * A table redrawn in place with ANSI cursor movement: one row per node of the workflow file, not per pass. The
   * passes of a body node update its row, whichever construct runs them: nested bodies (while_loop, loop_group)
   * have rows named {@code loop.node}; the body nodes of graph-form loops (loop/exit, iterator/aggregator, loop
   * edges) are top-level nodes and keep their own row. A row is running while any of its passes runs.
   */
  static final class Live extends Progress {
    private final Map<String, String[]> rows = new LinkedHashMap<>();
    private final Map<String, Instant> started = new LinkedHashMap<>();
    private final Map<String, Integer> running = new HashMap<>();
    /** Row keys of loops with a nested body: a frame of one of these prefixes the key of the nodes inside it. */
    private final Set<String> nested = new HashSet<>();
    /** The text each running row's node is streaming, shown on a line under the row. */
    private final Map<String, StreamTail> tails = new HashMap<>();
    private int drawn;
    private boolean mock;
    private long tokens;
    private Double cost;

    Live(PrintWriter err, Workflow wf) {
      super(err, wf);
      addRows(wf.nodes(), "");
      for (Edge e : wf.edges()) {
        if (e.isLoop()) {
          rows.putIfAbsent(e.from() + "->" + e.to(), new String[] {e.from() + "->" + e.to(), "pending", "", "", ""});
        }
      }
    }

    private void addRows(List<Node> nodes, String prefix) {
      for (Node n : nodes) {
        String key = prefix + n.id();
        rows.put(key, new String[] {key, "pending", "", "", ""});
        if (n.body() instanceof Node.Loop l && !l.body().isEmpty()) {
          nested.add(key);
          addRows(l.body(), key + ".");
        }
      }
    }

    @Override
    public synchronized void onEvent(Event e) {
      if (start == null) {
        start = e.at();
      }
      switch (e) {
        case Event.NodeStarted s -> {
          String k = key(s.node());
          if (running.merge(k, 1, Integer::sum) == 1) {
            started.put(k, s.at());
          }
          row(k)[1] = "running";
          tails.remove(k); // a new execution (a retry, the next pass) streams its own text
        }
        case Event.NodeStreaming s -> {
          String k = key(s.node());
          StreamTail tail = tails.get(k);
          if (tail == null || !tail.continues(s.node().path(), s.reply())) {
            tail = new StreamTail(s.node().path(), s.reply());
            tails.put(k, tail);
          }
          tail.add(s.tokens());
        }
        case Event.NodeCompleted c -> {
          String[] r = finished(key(c.node()), "completed");
          r[2] = c.durationMillis() + "ms";
          if (c.inputTokens() + c.outputTokens() > 0) {
            r[3] = c.inputTokens() + "+" + c.outputTokens();
          }
          r[4] = money(c.costUsd());
        }
        case Event.NodeFailed f -> finished(key(f.node()), f.allowed() ? "failed (allowed)" : "failed");
        case Event.NodeSkipped s -> row(key(s.node()))[1] = "skipped";
        case Event.NodeCancelled c -> finished(key(c.node()), "cancelled");
        case Event.NodeRetrying r -> row(key(r.node()))[1] = "retrying";
        case Event.LoopIteration i when !i.startsAPass() -> { }
        case Event.LoopIteration i -> row(key(i.node()))[1] = "iteration " + i.iteration() + "/" + i.max();
        case Event.LoopCompleted c -> row(key(c.node()))[1] = c.exitReason() + " (" + c.iterationsRun() + ")";
        case Event.LlmCalled c -> {
          mock |= c.mock();
          tokens += c.inputTokens() + c.outputTokens();
          if (c.costUsd() != null) {
            cost = (cost == null ? 0 : cost) + c.costUsd();
          }
        }
        default -> { }
      }
      draw(e.at());
    }

    /** A pass ended; the row shows {@code status} unless another pass of the same node is still running. */
    private String[] finished(String key, String status) {
      String[] r = row(key);
      int left = running.merge(key, -1, Integer::sum);
      if (left <= 0) {
        running.remove(key);
        tails.remove(key);
        r[1] = status;
      }
      return r;
    }

    /** The row of a node execution: its id, prefixed by the nested-body loops around it (see the class comment). */
    private String key(NodePosition p) {
      String prefix = "";
      for (NodePosition.LoopFrame f : p.loops()) {
        if (nested.contains(prefix + f.loopId())) {
          prefix = prefix + f.loopId() + ".";
        }
      }
      return prefix + p.nodeId();
    }

    private String[] row(String key) {
      return rows.computeIfAbsent(key, p -> new String[] {p, "pending", "", "", ""});
    }

    private void draw(Instant now) {
      StringBuilder sb = new StringBuilder();
      if (drawn > 0) {
        sb.append("\033[").append(drawn).append("F");
      }
      int lines = 0;
      sb.append(String.format(Locale.ROOT, "\033[2K%-24s %-16s %10s %12s %10s%n", "NODE", "STATUS", "ELAPSED",
          "TOKENS", "COST"));
      lines++;
      for (String[] r : rows.values()) {
        String elapsed = r[2];
        if (r[1].equals("running") && started.containsKey(r[0])) {
          elapsed = secs(Duration.between(started.get(r[0]), now));
        }
        sb.append(String.format(Locale.ROOT, "\033[2K%-24s %-16s %10s %12s %10s%n", r[0], r[1], elapsed, r[3], r[4]));
        lines++;
        StreamTail tail = tails.get(r[0]);
        if (tail != null && running.containsKey(r[0])) {
          sb.append("\033[2K    ").append(tail.shown()).append(System.lineSeparator());
          lines++;
        }
      }
      sb.append(String.format(Locale.ROOT, "\033[2K%s  elapsed %s  tokens %d  cost %s%n", mock ? "[mock llm]" : "",
          secs(Duration.between(start, now)), tokens, cost == null ? "-" : money(cost)));
      lines++;
      // The frame may be shorter than the last one (a streamed line went away): clear what is left below it.
      sb.append("\033[J");
      drawn = lines;
      err.print(sb);
      err.flush();
    }

    @Override
    void finish(RunResult r) {
      err.println("run " + r.runId() + " " + r.status().json());
      err.flush();
    }
  }
}
