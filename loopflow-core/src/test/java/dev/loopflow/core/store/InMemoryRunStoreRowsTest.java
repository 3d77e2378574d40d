package dev.loopflow.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.spi.Usage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which node executions the in-memory store keeps of a run, and the loop passes a run list shows for it, over
 * generated journals: rows outside loops and inside nested loops, passes journaled again (a resumed attempt), loops
 * of the same id in different outer passes, top-level rows between loop rows.
 */
class InMemoryRunStoreRowsTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final int KEPT = InMemoryRunStore.LOOP_EXECUTIONS_KEPT_WHEN_FINISHED;

  private static RunRecord running(String id) {
    return RunRecord.builder().runId(id).workflow("w").status(RunStatus.RUNNING).startedAt(T0).build();
  }

  private static NodeExecution row(String runId, NodePosition p, int i) {
    return new NodeExecution(runId, p, "script", NodeStatus.COMPLETED, 1, T0.plusMillis(i), T0.plusMillis(i), null,
        Map.of("output", i), Usage.NONE, null, null, Map.of("count", i), null);
  }

  /** A journal of about {@code size} rows, generated from {@code seed}. */
  private static List<NodeExecution> journal(String runId, long seed, int size) {
    Random rnd = new Random(seed);
    List<NodeExecution> rows = new ArrayList<>();
    String[] loops = {"outer", "inner", "fix", "restart"};
    while (rows.size() < size) {
      if (rnd.nextInt(20) == 0) {
        rows.add(row(runId, NodePosition.top("top" + rnd.nextInt(5)), rows.size()));
        continue;
      }
      int depth = 1 + rnd.nextInt(3);
      List<NodePosition.LoopFrame> frames = new ArrayList<>();
      for (int d = 0; d < depth; d++) {
        // Few iterations per level, so passes repeat across rows (the same pass journals several nodes).
        frames.add(new NodePosition.LoopFrame(loops[rnd.nextInt(loops.length)], 1 + rnd.nextInt(d == 0 ? 40 : 6)));
      }
      rows.add(row(runId, new NodePosition(frames, "n" + rnd.nextInt(3)), rows.size()));
    }
    return rows;
  }

  /** Rows outside loops, and the last {@code KEPT} inside loops, in journal order. */
  private static List<NodeExecution> expectedKept(List<NodeExecution> all) {
    long inLoops = all.stream().filter(e -> !e.position().loops().isEmpty()).count();
    long drop = Math.max(0, inLoops - KEPT);
    List<NodeExecution> kept = new ArrayList<>();
    for (NodeExecution e : all) {
      if (drop > 0 && !e.position().loops().isEmpty()) {
        drop--;
      } else {
        kept.add(e);
      }
    }
    return kept;
  }

  static Stream<Long> seeds() {
    return IntStream.range(0, 40).mapToObj(i -> 7919L * i + 3);
  }

  @ParameterizedTest
  @MethodSource("seeds")
  void aFinishedRunKeepsRowsOutsideLoopsAndTheLastThousandInsideAndListsItsPassesAsBefore(long seed) {
    RunStore store = RunStore.inMemory();
    String id = "run_" + seed;
    store.createRun(running(id));
    int size = 200 + new Random(seed).nextInt(2_800); // below and above the rows kept
    List<NodeExecution> all = journal(id, seed, size);
    all.forEach(store::recordNodeExecution);
    int passes = RunSummary.iterations(all);
    assertThat(store.nodeExecutions(id)).containsExactlyElementsOf(all);
    assertThat(store.loopPasses(id)).isEqualTo(passes);

    RunStatus end = seed % 2 == 0 ? RunStatus.COMPLETED : RunStatus.CANCELLED;
    store.updateRun(running(id).finish(end, T0.plusSeconds(1), Usage.NONE, null, null));
    List<NodeExecution> kept = store.nodeExecutions(id);
    assertThat(kept).containsExactlyElementsOf(expectedKept(all));
    assertThat(kept.stream().filter(e -> !e.position().loops().isEmpty()).count()).isLessThanOrEqualTo(KEPT);
    assertThat(store.loopPasses(id)).isEqualTo(passes);
    assertThat(RunSummary.list(store, Set.of(), null, 10).getFirst().toJson()).containsEntry("iterations", passes);

    // The record written again (a finished run's record is final, but a store must not drop rows twice over).
    store.updateRun(store.findRun(id).orElseThrow());
    assertThat(store.nodeExecutions(id)).containsExactlyElementsOf(kept);
    assertThat(store.loopPasses(id)).isEqualTo(passes);
  }

  @org.junit.jupiter.api.Test
  void aRunsRowsAreKeptAsCopiesNotAsTheObjectsHandedIn() {
    RunStore store = RunStore.inMemory();
    store.createRun(running("r"));
    List<NodeExecution> written = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      Map<String, Object> result = new java.util.LinkedHashMap<>();
      result.put("output", new java.util.LinkedHashMap<>(Map.of("count", (long) i)));
      result.put("status", "completed");
      NodeExecution e = new NodeExecution("r", new NodePosition(List.of(new NodePosition.LoopFrame("loop", i + 1)),
          "increment"), "script", NodeStatus.COMPLETED, 1, T0, T0.plusMillis(i), null, result, Usage.NONE, null,
          null, new java.util.LinkedHashMap<>(Map.of("count", (long) i)), null);
      written.add(e);
      store.recordNodeExecution(e);
    }
    written.getFirst().result().put("status", "changed afterwards");
    List<NodeExecution> read = store.nodeExecutions("r");
    assertThat(read.getFirst().result()).containsEntry("status", "completed");
    assertThat(read.subList(1, read.size())).containsExactlyElementsOf(written.subList(1, written.size()));
    for (int i = 1; i < read.size(); i++) {
      assertThat(read.get(i)).isNotSameAs(written.get(i));
      assertThat(read.get(i).result()).isNotSameAs(written.get(i).result());
      assertThat(read.get(i).statePatch()).isNotSameAs(written.get(i).statePatch());
    }
  }

  @ParameterizedTest
  @EnumSource(value = RunStatus.class, names = {"RUNNING", "PAUSED", "FAILED"})
  void aRunThatCanStillBeResumedKeepsEveryRow(RunStatus status) {
    RunStore store = RunStore.inMemory();
    store.createRun(running("r"));
    List<NodeExecution> all = journal("r", status.ordinal(), 3 * KEPT);
    all.forEach(store::recordNodeExecution);
    store.updateRun(running("r").toBuilder().status(status).build());
    assertThat(store.nodeExecutions("r")).containsExactlyElementsOf(all);
    assertThat(store.loopPasses("r")).isEqualTo(RunSummary.iterations(all));
  }
}
