package dev.loopflow.core.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.ErrorCode;
import dev.loopflow.core.model.NodePosition;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
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
        "duration_ms", "iterations", "llm_calls", "cost_usd", "error", "paused_at");
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

  private static List<String> ids(List<RunSummary> rows) {
    List<String> out = new ArrayList<>();
    rows.forEach(s -> out.add(s.record().runId()));
    return out;
  }
}
