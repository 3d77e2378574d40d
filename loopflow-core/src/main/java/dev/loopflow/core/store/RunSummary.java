package dev.loopflow.core.store;

import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunStatus;
import java.time.Duration;
import java.time.Instant;
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
 * {@code status} (the shown status, see {@link #status()}), {@code started_at}, {@code finished_at},
 * {@code duration_ms}, {@code iterations} (distinct loop passes that journaled a node execution), {@code llm_calls},
 * {@code cost_usd}, {@code error} (the error code or null), {@code paused_at} (the position a paused run waits at,
 * else null), {@code resumable} (whether {@code loopflow resume} would continue it), {@code forked_from} (for a
 * fork, {@code run_id} and {@code at} of its origin, else null).
 */
public final class RunSummary {
  /** The shown statuses: the journaled ones, and {@code interrupted} for a running run nothing executes. */
  public static final List<String> SHOWN_STATUSES = List.of("running", "interrupted", "paused", "completed",
      "failed", "cancelled");

  private final RunRecord record;
  private final int iterations;
  private final boolean interrupted;

  private RunSummary(RunRecord record, int iterations, boolean interrupted) {
    this.record = record;
    this.iterations = iterations;
    this.interrupted = interrupted;
  }

  /**
   * The row of {@code record}, whose journaled node executions are {@code executions}; a running run is shown as
   * running (only {@link #list} and {@link #listShown} read its lease).
   */
  public static RunSummary of(RunRecord record, List<NodeExecution> executions) {
    Objects.requireNonNull(record, "record");
    return new RunSummary(record, iterations(Objects.requireNonNull(executions, "executions")), false);
  }

  /**
   * Whether {@code run} is interrupted at {@code now}: journaled {@code running}, but the engine that held its lease
   * is gone (the lease expired, or its holder was a process on this host that no longer exists, such as a CLI killed
   * with SIGKILL). Nothing executes it, and {@code resume} continues it. The journal still says {@code running}: only
   * a resume or a cancel changes that. A run that holds no lease at all (one queued for worker processes) is not
   * interrupted: a worker will take it.
   */
  public static boolean interrupted(RunStore store, RunRecord run, Instant now) {
    return run.status() == RunStatus.RUNNING && store.lease(run.runId())
        .map(l -> LeaseOwners.abandoned(l, now)).orElse(false);
  }

  /**
   * The rows of the runs in {@code store}, most recent first, like {@link #list} but filtered by shown status (any of
   * {@link #SHOWN_STATUSES}; every status when empty or null): {@code running} selects the runs something executes,
   * {@code interrupted} those nothing does.
   *
   * @throws IllegalArgumentException when {@code limit} is below 1 or a status is not a shown status
   */
  public static List<RunSummary> listShown(RunStore store, Collection<String> statuses, String workflow, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, was " + limit);
    }
    Set<String> wanted = new HashSet<>(statuses == null || statuses.isEmpty() ? SHOWN_STATUSES : statuses);
    for (String s : wanted) {
      if (!SHOWN_STATUSES.contains(s)) {
        throw new IllegalArgumentException("status '" + s + "' is not one of " + String.join(", ", SHOWN_STATUSES));
      }
    }
    Instant now = Instant.now();
    List<RunSummary> rows = new ArrayList<>();
    for (RunRecord r : store.listRuns()) {
      if (rows.size() >= limit) {
        break;
      }
      if (workflow != null && !r.workflow().contains(workflow) && (r.file() == null || !r.file().contains(workflow))) {
        continue;
      }
      boolean interrupted = interrupted(store, r, now);
      if (!wanted.contains(interrupted ? "interrupted" : r.status().json())) {
        continue;
      }
      rows.add(new RunSummary(r, store.loopPasses(r.runId()), interrupted));
    }
    return List.copyOf(rows);
  }

  /**
   * The rows of the runs in {@code store}, most recent first: those whose status is in {@code statuses} (every status
   * when empty) and whose workflow name or file contains {@code workflow} (every run when null), at most
   * {@code limit} of them. The filter reads the journaled status ({@link RunStatus#RUNNING} selects interrupted runs
   * too); each row tells whether its run is {@linkplain #interrupted() interrupted}.
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
      rows.add(new RunSummary(r, store.loopPasses(r.runId()), interrupted(store, r, Instant.now())));
    }
    return List.copyOf(rows);
  }

  /**
   * A run's duration as every view shows it: from the record's {@code started_at} (set before anything of the run
   * is journaled) to its {@code finished_at}, in milliseconds; null while it has not finished. A resumed run counts
   * from its first start, the time it waited included. Events carry their own times, a little later than the
   * record's start, so a duration from the events is not this one.
   */
  public static Long durationMillis(RunRecord r) {
    return r.finishedAt() == null ? null : Duration.between(r.startedAt(), r.finishedAt()).toMillis();
  }

  /** The row of a listed run whose interruption was just read ({@link RunQuery}); counts its passes. */
  static RunSummary shown(RunStore store, RunRecord record, boolean interrupted) {
    return new RunSummary(record, store.loopPasses(record.runId()), interrupted);
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

  /**
   * Whether the run is journaled running but nothing executes it (see
   * {@link #interrupted(RunStore, RunRecord, java.time.Instant)}).
   */
  public boolean interrupted() {
    return interrupted;
  }

  /** The status shown for the run: {@code interrupted} when {@link #interrupted()}, else the journaled one. */
  public String status() {
    return interrupted ? "interrupted" : record.status().json();
  }

  /** Whether {@code loopflow resume} would continue the run: paused, failed or interrupted. */
  public boolean resumable() {
    RunStatus s = record.status();
    return s == RunStatus.PAUSED || s == RunStatus.FAILED || interrupted;
  }

  /** The row as JSON values, keys as listed in the class comment. */
  public Map<String, Object> toJson() {
    RunRecord r = record;
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("run_id", r.runId());
    m.put("workflow", r.workflow());
    m.put("file", r.file());
    m.put("status", status());
    m.put("started_at", r.startedAt().toString());
    m.put("finished_at", r.finishedAt() == null ? null : r.finishedAt().toString());
    m.put("duration_ms", durationMillis(r));
    m.put("iterations", iterations);
    m.put("llm_calls", r.usage() == null ? 0 : r.usage().llmCalls());
    m.put("cost_usd", r.usage() == null ? null : r.usage().costUsd());
    m.put("error", r.error() == null ? null : r.error().code());
    m.put("paused_at", r.status() == RunStatus.PAUSED ? r.pausedAt() : null);
    m.put("resumable", resumable());
    Map<String, Object> from = null;
    if (r.options().get(RunOptions.FORKED_FROM) instanceof Map<?, ?> f) {
      from = new LinkedHashMap<>();
      from.put("run_id", f.get("run_id"));
      from.put("at", f.get("at"));
    }
    m.put("forked_from", from);
    return m;
  }

  @Override
  public String toString() {
    return "RunSummary" + toJson();
  }
}
