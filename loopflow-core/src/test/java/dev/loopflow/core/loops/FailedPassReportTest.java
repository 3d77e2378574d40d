package dev.loopflow.core.loops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.MAP;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.RunStore;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A body node that fails, or is cancelled, in pass k of a graph-form loop is reported as it ended in pass k: its
 * status, its error with the pass's position, and its partial result; never as the pass before it completed it. The
 * loop's own result carries the error that stopped it.
 */
class FailedPassReportTest {
  private final RunStore store = RunStore.inMemory();
  private final Loopflow engine = Loopflow.builder().store(store).build();

  /** work -> check with the loop edge check -> work always taken; work exits 3 in pass 2. */
  private static final String EDGE = """
      name: edge
      nodes:
        - id: work
          bash: "if [ {{ loop.iteration }} = 2 ]; then echo boom >&2; exit 3; fi; echo pass {{ loop.iteration }}"
        - id: check
          bash: echo again
      edges:
        - {from: work, to: check}
        - {from: check, to: work, type: loop, maxIterations: 3}
      """;

  @Test
  void aNodeThatFailsInPassTwoOfALoopEdgeIsReportedFailed_bugItShowedPassOnesCompletedOutput() {
    RunResult r = engine.run(engine.parse(EDGE, "edge.yaml"), Map.of());

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    Map<String, Object> work = r.nodes().get("work");
    assertThat(work).containsEntry("status", "failed").containsEntry("exitCode", 3);
    assertThat(work.get("error")).asInstanceOf(MAP)
        .containsEntry("code", "node_failed")
        .containsEntry("path", "check->work[2].work")
        .hasEntrySatisfying("message", m -> assertThat((String) m).contains("status 3"));
    // check did not run in pass 2: it reports its last execution, pass 1's.
    assertThat(r.nodes().get("check")).containsEntry("status", "completed");
    assertThat(r.nodes().get("check").get("loop")).asInstanceOf(MAP)
        .containsEntry("exit_reason", "error")
        .containsEntry("count", 2)
        .hasEntrySatisfying("error", e -> assertThat(e).asInstanceOf(MAP)
            .containsEntry("code", "node_failed")
            .containsEntry("node", "work")
            .containsEntry("path", "check->work[2].work"));
  }

  @Test
  void theJournalAndTheReportAgreeOnTheFailedPass_bugShowDerivedOneThingAndRunAnother() {
    RunResult r = engine.run(engine.parse(EDGE, "edge.yaml"), Map.of());

    RunResult shown = engine.result(r.runId()).orElseThrow();
    assertThat(shown.nodes().get("work")).containsEntry("status", "failed");
    assertThat(shown.nodes().get("work").get("error")).asInstanceOf(MAP)
        .containsEntry("path", "check->work[2].work");
  }

  @Test
  void aBodyNodeThatFailsInALaterPassOfALoopNodeIsReportedFailed_bugItShowedTheEarlierPass() {
    String yaml = """
        name: refine
        nodes:
          - id: start
            type: transform
            template: "seed"
          - id: refine
            type: loop
            maxIterations: 4
            exitCondition: max_iterations
          - id: improve
            bash: "if [ {{ loop.iteration }} = 3 ]; then echo nope >&2; exit 7; fi; echo v{{ loop.iteration }}"
          - id: done
            type: exit
        edges:
          - {from: start, to: refine}
          - {from: refine, to: improve}
          - {from: improve, to: done}
        """;
    RunResult r = engine.run(engine.parse(yaml, "refine.yaml"), Map.of());

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.nodes().get("improve")).containsEntry("status", "failed").containsEntry("exitCode", 7);
    assertThat(r.nodes().get("improve").get("error")).asInstanceOf(MAP).containsEntry("path", "refine[3].improve");
    assertThat(r.nodes().get("refine")).containsEntry("status", "failed");
    assertThat(r.nodes().get("refine").get("error")).asInstanceOf(MAP)
        .containsEntry("node", "improve").containsEntry("path", "refine[3].improve");
  }

  @Test
  @Timeout(60)
  void aNodeCancelledInPassTwoIsReportedCancelledAndTheLoopCarriesAnError_bugItShowedPassOne()
      throws InterruptedException {
    String yaml = """
        name: slow
        nodes:
          - id: nap
            bash: "if [ {{ loop.iteration }} -ge 2 ]; then sleep 30; fi; echo pass {{ loop.iteration }}"
          - id: check
            bash: echo again
        edges:
          - {from: nap, to: check}
          - {from: check, to: nap, type: loop, maxIterations: 5}
        """;
    Workflow wf = engine.parse(yaml, "slow.yaml");
    CountDownLatch started = new CountDownLatch(1);
    RunHandle handle = engine.start(wf, RunOptions.builder().listener(e -> {
      if (e instanceof Event.NodeStarted s && s.node().path().equals("check->nap[2].nap")) {
        started.countDown();
      }
    }).build());
    started.await();
    handle.cancel("stop");
    RunResult r = handle.await();

    assertThat(r.status()).isEqualTo(RunStatus.CANCELLED);
    assertThat(r.nodes().get("nap")).containsEntry("status", "cancelled").doesNotContainEntry("output", "pass 1");
    assertThat(r.nodes().get("check").get("loop")).asInstanceOf(MAP)
        .containsEntry("exit_reason", "cancelled")
        .hasEntrySatisfying("error", e -> assertThat(e).asInstanceOf(MAP).containsEntry("code", "cancelled"));
  }
}
