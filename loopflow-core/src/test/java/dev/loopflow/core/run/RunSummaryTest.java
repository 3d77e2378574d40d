package dev.loopflow.core.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.core.store.RunSummary;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The row of a run list: one rule for `loopflow runs --json` and the server's run list. */
class RunSummaryTest {
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  private static RunRecord run(String id, String workflow, String file, RunStatus status, int secondsLater) {
    return RunRecord.builder().runId(id).workflow(workflow).file(file).status(status)
        .startedAt(T0.plusSeconds(secondsLater)).build();
  }

  private static NodeExecution exec(String runId, NodePosition p) {
    return new NodeExecution(runId, p, "shell", NodeStatus.COMPLETED, 1, T0, T0, null, Map.of(), Usage.NONE, null,
        null, null, null);
  }

  @Test
  void iterationsCountEachLoopPassOnceNestedOnesToo() {
    NodePosition.LoopFrame fix1 = new NodePosition.LoopFrame("fix", 1);
    NodePosition.LoopFrame fix2 = new NodePosition.LoopFrame("fix", 2);
    List<NodeExecution> rows = List.of(exec("r", NodePosition.top("plan")),
        exec("r", new NodePosition(List.of(fix1), "a")), exec("r", new NodePosition(List.of(fix1), "b")),
        exec("r", new NodePosition(List.of(fix2), "a")),
        exec("r", new NodePosition(List.of(fix2, new NodePosition.LoopFrame("inner", 1)), "x")),
        exec("r", new NodePosition(List.of(fix2, new NodePosition.LoopFrame("inner", 2)), "x")));
    assertThat(RunSummary.iterations(rows)).isEqualTo(4);
  }

  @Test
  void theRowHasTheDocumentedKeysAndValues() {
    RunRecord r = run("r1", "review", "flows/review.yaml", RunStatus.RUNNING, 0)
        .finish(RunStatus.FAILED, T0.plusMillis(1500), new Usage(10, 5, 0.25, 2, 0), null,
            new RunError(ErrorCode.BUDGET_EXCEEDED, "over", null));
    Map<String, Object> row = RunSummary.of(r, List.of()).toJson();
    assertThat(row.keySet()).containsExactly("run_id", "workflow", "file", "status", "started_at", "finished_at",
        "duration_ms", "iterations", "llm_calls", "cost_usd", "error", "paused_at", "resumable", "forked_from");
    assertThat(row).containsEntry("status", "failed").containsEntry("duration_ms", 1500L)
        .containsEntry("llm_calls", 2).containsEntry("cost_usd", 0.25).containsEntry("error", "budget_exceeded")
        .containsEntry("paused_at", null).containsEntry("file", "flows/review.yaml");
  }

  @Test
  void listFiltersByStatusAndWorkflowNameOrFileThenLimits() {
    RunStore store = RunStore.inMemory();
    store.createRun(run("a", "review", null, RunStatus.COMPLETED, 1));
    store.createRun(run("b", "deploy", "flows/review-and-deploy.yaml", RunStatus.FAILED, 2));
    store.createRun(run("c", "review", null, RunStatus.PAUSED, 3));
    store.createRun(run("d", "other", null, RunStatus.COMPLETED, 4));
    assertThat(ids(RunSummary.list(store, Set.of(), null, 50))).containsExactly("d", "c", "b", "a");
    assertThat(ids(RunSummary.list(store, Set.of(), "review", 50))).containsExactly("c", "b", "a");
    assertThat(ids(RunSummary.list(store, Set.of(RunStatus.COMPLETED, RunStatus.FAILED), "review", 50)))
        .containsExactly("b", "a");
    assertThat(ids(RunSummary.list(store, null, null, 2))).containsExactly("d", "c");
    assertThatThrownBy(() -> RunSummary.list(store, Set.of(), null, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("limit");
  }

  @Test
  void aRunningRunWhoseLeaseIsStaleIsShownInterruptedAndResumable_bugItWasListedRunningForever() {
    RunStore store = RunStore.inMemory();
    Instant now = Instant.now();
    store.createRun(run("live", "w", null, RunStatus.RUNNING, 1));
    store.tryLease("live", "elsewhere/1/live", now, now.plusSeconds(600), null);
    store.createRun(run("dead", "w", null, RunStatus.RUNNING, 2));
    store.tryLease("dead", "elsewhere/2/dead", now.minusSeconds(60), now.minusSeconds(45), null);
    store.createRun(run("queued", "w", null, RunStatus.RUNNING, 3)); // no lease: waits for a worker
    store.createRun(run("done", "w", null, RunStatus.COMPLETED, 4));

    Map<String, Map<String, Object>> rows = new java.util.HashMap<>();
    RunSummary.listShown(store, Set.of(), null, 50).forEach(r -> rows.put(r.record().runId(), r.toJson()));
    assertThat(rows.get("dead")).containsEntry("status", "interrupted").containsEntry("resumable", true);
    assertThat(rows.get("live")).containsEntry("status", "running").containsEntry("resumable", false);
    assertThat(rows.get("queued")).containsEntry("status", "running").containsEntry("resumable", false);
    assertThat(rows.get("done")).containsEntry("status", "completed").containsEntry("resumable", false);
    // Looking changes nothing in the journal.
    assertThat(store.findRun("dead").orElseThrow().status()).isEqualTo(RunStatus.RUNNING);

    assertThat(ids(RunSummary.listShown(store, Set.of("interrupted"), null, 50))).containsExactly("dead");
    assertThat(ids(RunSummary.listShown(store, Set.of("running"), null, 50))).containsExactly("queued", "live");
    // The journaled filter keeps its meaning: running selects interrupted runs too, and each row says which.
    List<RunSummary> journaled = RunSummary.list(store, Set.of(RunStatus.RUNNING), null, 50);
    assertThat(ids(journaled)).containsExactly("queued", "dead", "live");
    assertThat(journaled).filteredOn(RunSummary::interrupted).extracting(r -> r.record().runId())
        .containsExactly("dead");
    assertThatThrownBy(() -> RunSummary.listShown(store, Set.of("stale"), null, 50))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("interrupted");
  }

  private static List<String> ids(List<RunSummary> rows) {
    List<String> out = new ArrayList<>();
    rows.forEach(s -> out.add(s.record().runId()));
    return out;
  }
}
