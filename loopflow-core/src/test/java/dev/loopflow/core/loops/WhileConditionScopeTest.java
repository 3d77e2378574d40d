package dev.loopflow.core.loops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.loops.LoopTests.Run;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A while_loop's condition sees the loop's own {@code loop} variable (the passes run so far, and the results of the
 * pass that just finished) and the body's latest results by id; the check that ends the loop is reported as a
 * {@code loop.iteration} with {@code condition_result: false}, also when no pass ran.
 */
class WhileConditionScopeTest {
  private final Loopflow engine = Loopflow.create();

  private Run run(String condition, Map<String, ?> inputs) {
    return LoopTests.run(engine, """
        name: w
        input:
          start: {type: integer, default: 0}
        nodes:
          - name: w
            type: while_loop
            max_iterations: 5
            condition: "CONDITION"
            body:
              - name: step
                run: |
                  return { n = (state.n or input.start) + 1 }
        """.replace("CONDITION", condition), inputs);
  }

  private static List<String> conditionEvents(Run r) {
    return r.events(Event.LoopIteration.class).stream()
        .map(i -> i.iteration() + ":" + i.conditionResult()).toList();
  }

  @Test
  void theDocumentedIdiomRunsThreePassesAndEndsOnAFalseCheck_bugLoopWasEmptyAndTheLoopHitItsBound() {
    Run r = run("(loop.iteration or 0) < 3", Map.of());

    assertThat(r.result().error()).isNull();
    assertThat(r.node("w")).containsEntry("count", 3).containsEntry("exit_reason", "condition_false");
    assertThat(conditionEvents(r)).containsExactly("1:true", "2:true", "3:true", "4:false");
  }

  @Test
  void loopIterationIsZeroBeforeTheFirstPass() {
    Run r = run("loop.iteration < 2", Map.of());

    assertThat(r.node("w")).containsEntry("count", 2).containsEntry("exit_reason", "condition_false");
  }

  @Test
  void theConditionReadsTheBodysLatestResult_bugBodyResultsWereInvisible() {
    Run r = run("(step.output.n or 0) < 4", Map.of("start", 1));

    assertThat(r.node("w")).containsEntry("count", 3).containsEntry("exit_reason", "condition_false");
  }

  @Test
  void theConditionReadsThePassThatJustFinishedAsLoopPrev() {
    Run r = run("(loop.prev.step.output.n or 0) < 2", Map.of());

    assertThat(r.node("w")).containsEntry("count", 2);
  }

  @Test
  void aLoopThatRunsNoPassStillReportsTheFalseCheck_bugNoEventSaidWhy() {
    Run r = run("false", Map.of());

    assertThat(r.node("w")).containsEntry("count", 0).containsEntry("exit_reason", "condition_false");
    assertThat(conditionEvents(r)).containsExactly("1:false");
    assertThat(r.events(Event.LoopIteration.class).get(0).startsAPass()).isFalse();
  }

  @Test
  void aNestedWhileSeesItsOwnIterationAndItsParentsAsLoopParent() {
    Run r = LoopTests.run(engine, """
        name: nested
        nodes:
          - name: outer
            type: while_loop
            max_iterations: 3
            condition: "loop.iteration < 2"
            body:
              - name: inner
                type: while_loop
                max_iterations: 5
                condition: "loop.iteration < loop.parent.iteration + 1"
                body:
                  - name: leaf
                    type: transform
                    template: "{{ loop.parent.iteration }}.{{ loop.iteration }}"
        """, Map.of());

    assertThat(r.result().error()).isNull();
    assertThat(r.outputsOf("leaf")).containsExactly("1.1", "1.2", "2.1", "2.2", "2.3");
  }
}
