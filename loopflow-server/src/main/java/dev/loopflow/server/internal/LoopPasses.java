package dev.loopflow.server.internal;

import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.core.store.NodeExecution;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The passes of one loop of a run, a page at a time ({@code GET /api/runs/{id}/loops/{loop}/passes}), so that a page
 * of a loop with thousands of passes never holds or draws them all. A loop is addressed by its instance path, as the
 * run page's navigator addresses it: {@code refine} for a top-level loop, {@code outer[2].inner} for a nested one
 * in pass 2 of {@code outer}. Each pass is summarised (status, time, executions, calls, cost) from the run's
 * executions, a fork's reused ones included and marked.
 */
final class LoopPasses {
  /** The most passes one page may ask for. */
  static final int MAX_LIMIT = 1000;
  static final int DEFAULT_LIMIT = 100;
  private static final Pattern FRAME = Pattern.compile("([A-Za-z_][A-Za-z0-9_>-]*)\\[([1-9][0-9]{0,8})]");
  private static final Pattern ID = Pattern.compile("[A-Za-z_][A-Za-z0-9_>-]*");

  private LoopPasses() {}

  /** The loop's instance path read into its enclosing passes and its id; null when it is not such a path. */
  static NodePosition parse(String path) {
    if (path == null || path.isEmpty() || path.length() > 4096) {
      return null;
    }
    String[] parts = path.split("\\.", -1);
    List<NodePosition.LoopFrame> frames = new ArrayList<>();
    for (int i = 0; i < parts.length - 1; i++) {
      Matcher m = FRAME.matcher(parts[i]);
      if (!m.matches()) {
        return null;
      }
      frames.add(new NodePosition.LoopFrame(m.group(1), Integer.parseInt(m.group(2))));
    }
    String id = parts[parts.length - 1];
    return ID.matcher(id).matches() ? new NodePosition(frames, id) : null;
  }

  /** One page of the passes of {@code loop} in {@code rows} (the run's executions with what it reuses). */
  static Map<String, Object> page(String runId, NodePosition loop, List<NodeExecution> rows, int offset, int limit) {
    int depth = loop.loops().size();
    Map<Integer, Pass> passes = new TreeMap<>();
    for (NodeExecution e : rows) {
      List<NodePosition.LoopFrame> frames = e.position().loops();
      if (frames.size() > depth && frames.subList(0, depth).equals(loop.loops())
          && frames.get(depth).loopId().equals(loop.nodeId())) {
        passes.computeIfAbsent(frames.get(depth).iteration(), Pass::new).add(e, !e.runId().equals(runId));
      }
    }
    List<Pass> all = new ArrayList<>(passes.values());
    List<Map<String, Object>> shown = new ArrayList<>();
    for (Pass p : all.subList(Math.min(offset, all.size()), Math.min(all.size(), offset + limit))) {
      shown.add(p.toJson());
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("run_id", runId);
    m.put("loop", loop.path());
    m.put("total", all.size());
    m.put("offset", offset);
    m.put("limit", limit);
    m.put("passes", shown);
    return m;
  }

  /** What one pass's executions add up to. */
  private static final class Pass {
    final int pass;
    int executions;
    String status = "completed";
    Instant started;
    Instant finished;
    Usage usage = Usage.NONE;
    boolean reused = true;

    Pass(int pass) {
      this.pass = pass;
    }

    void add(NodeExecution e, boolean fromOrigin) {
      executions++;
      reused &= fromOrigin;
      if (e.status() == NodeStatus.FAILED) {
        status = "failed";
      } else if (e.status() == NodeStatus.CANCELLED && !status.equals("failed")) {
        status = "cancelled";
      } else if (e.status() == NodeStatus.PAUSED && status.equals("completed")) {
        status = "paused";
      }
      if (e.startedAt() != null && (started == null || e.startedAt().isBefore(started))) {
        started = e.startedAt();
      }
      if (e.finishedAt() != null && (finished == null || e.finishedAt().isAfter(finished))) {
        finished = e.finishedAt();
      }
      if (e.usage() != null) {
        usage = usage.plus(e.usage());
      }
    }

    Map<String, Object> toJson() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("pass", pass);
      m.put("status", status);
      m.put("started_at", started == null ? null : started.toString());
      m.put("finished_at", finished == null ? null : finished.toString());
      m.put("duration_ms", started == null || finished == null ? null : Duration.between(started, finished).toMillis());
      m.put("executions", executions);
      m.put("llm_calls", usage.llmCalls());
      m.put("cost_usd", usage.costUsd());
      m.put("reused", reused);
      return m;
    }
  }
}
