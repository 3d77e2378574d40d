package dev.loopflow.core.loops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.run.RunStatus;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A loop condition that fails while it is evaluated (here: over a template size limit on the second check) ends the
 * loop like any other loop error: exit reason {@code error}, the passes it ran kept, a {@code loop.completed} event,
 * and the run failed with {@code node_failed}.
 */
class LoopConditionRenderErrorTest {
  private final Loopflow engine = Loopflow.builder().discover(false).build();

  @ParameterizedTest
  @ValueSource(strings = {"range(state.count * 200000) | length < 10",
      "'x'.repeat(state.count * 100000000) == ''", "range(1, 2, 1 - state.count) | length > 0"})
  void aWhileConditionThatFailsToRenderEndsTheLoopWithExitReasonError_bugRenderErrorSkippedTheLoopEnd(
      String condition) {
    LoopTests.Run run = LoopTests.run(engine, """
        name: failing-condition
        nodes:
          - name: count_loop
            type: while_loop
            max_iterations: 5
            condition: "%s"
            body:
              - name: increment
                run: |
                  return { count = state.count + 1 }
        """.formatted(condition), Map.of("count", 0));

    assertThat(run.result().status()).isEqualTo(RunStatus.FAILED);
    assertThat(run.result().error().code()).isEqualTo("node_failed");
    assertThat(run.result().error().node()).isEqualTo("count_loop");
    assertThat(run.node("count_loop")).containsEntry("status", "failed").containsEntry("exit_reason", "error")
        .containsEntry("count", 1).containsKey("iterations");
    assertThat(run.events(Event.LoopCompleted.class)).singleElement()
        .satisfies(e -> assertThat(e.exitReason()).isEqualTo("error"));
  }
}
