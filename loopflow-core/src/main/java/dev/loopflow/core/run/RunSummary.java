package dev.loopflow.core.run;

import dev.loopflow.core.model.NodePosition;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One row of a run listing: what {@code loopflow runs --json} prints for a run and what a server's run list
 * returns, built by the one rule both use. Immutable.
 *
 * <p>{@link #toJson()} has exactly these keys, in this order: {@code run_id}, {@code workflow}, {@code file},
 * {@code status}, {@code started_at}, {@code finished_at}, {@code duration_ms}, {@code iterations} (distinct loop
 * passes that journaled a node execution), {@code llm_calls}, {@code cost_usd}, {@code error} (the error code or
 * null), {@code paused_at} (the position a paused run waits at, else null).
 */
public final class RunSummary {
  private final RunRecord record;
  private final int iterations;

  private RunSummary(RunRecord record, int iterations) {
    this.record = record;
    this.iterations = iterations;
  }

  /** The row of {@code record}, whose journaled node executions are {@code executions}. */
  public static RunSummary of(RunRecord record, List<NodeExecution> executions) {
    Objects.requireNonNull(record, "record");
    return new RunSummary(record, iterations(Objects.requireNonNull(executions, "executions")));
  }

  /**
   * The rows of the runs in {@code store}, most recent first: those whose status is in {@code statuses} (every status
   * when empty) and whose workflow name or file contains {@code workflow} (every run when null), at most
   * {@code limit} of them.
   *
   * @throws IllegalArgumentException when {@code limit} is below 1
   */
  public static List<RunSummary> list(RunStore store, Collection<RunStatus> statuses, String workflow, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, was " + limit);
    }
    Set<RunStatus> wanted = statuses == null || statuses.isEmpty() ? EnumSet.allOf(RunStatus.class)
        : EnumSet.copyOf(statuses);
    List<RunSummary> rows = new ArrayList<>();
    for (RunRecord r : store.listRuns()) {
      if (rows.size() >= limit) {
        break;
      }
      if (!wanted.contains(r.status())) {
        continue;
      }
      if (workflow != null && !r.workflow().contains(workflow) && (r.file() == null || !r.file().contains(workflow))) {
        continue;
      }
      // Counted by the store: one that forgets old rows of finished runs counted their passes before it did.
      rows.add(new RunSummary(r, store.loopPasses(r.runId())));
    }
    return List.copyOf(rows);
  }

  /** Loop passes that journaled anything: each distinct (loop path, iteration) counts once, nested ones too. */
  public static int iterations(List<NodeExecution> executions) {
    return loopPasses(() -> executions.stream().map(NodeExecution::position).iterator());
  }

  /** The rule of {@link #iterations}, over the positions of the executions. */
  public static int loopPasses(Iterable<NodePosition> positions) {
    Set<String> passes = new HashSet<>();
    for (NodePosition p : positions) {
      StringBuilder sb = new StringBuilder();
      for (NodePosition.LoopFrame f : p.loops()) {
        sb.append(f.loopId()).append('[').append(f.iteration()).append("].");
        passes.add(sb.toString());
      }
    }
    return passes.size();
  }

  public RunRecord record() {
    return record;
  }

  public int iterations() {
    return iterations;
  }

  /** The row as JSON values, keys as listed in the class comment. */
  public Map<String, Object> toJson() {
    RunRecord r = record;
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("run_id", r.runId());
    m.put("workflow", r.workflow());
    m.put("file", r.file());
    m.put("status", r.status().json());
    m.put("started_at", r.startedAt().toString());
    m.put("finished_at", r.finishedAt() == null ? null : r.finishedAt().toString());
    m.put("duration_ms", r.finishedAt() == null ? null : Duration.between(r.startedAt(), r.finishedAt()).toMillis());
    m.put("iterations", iterations);
    m.put("llm_calls", r.usage() == null ? 0 : r.usage().llmCalls());
    m.put("cost_usd", r.usage() == null ? null : r.usage().costUsd());
    m.put("error", r.error() == null ? null : r.error().code());
    m.put("paused_at", r.status() == RunStatus.PAUSED ? r.pausedAt() : null);
    return m;
  }

  @Override
  public String toString() {
    return "RunSummary" + toJson();
  }
}
