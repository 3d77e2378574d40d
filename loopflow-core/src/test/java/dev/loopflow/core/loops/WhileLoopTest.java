package dev.loopflow.core.loops;

import static dev.loopflow.core.loops.LoopTests.exactly;
import static dev.loopflow.core.loops.LoopTests.onlyOne;
import static dev.loopflow.core.loops.LoopTests.rejected;
import static dev.loopflow.core.loops.LoopTests.resource;
import static dev.loopflow.core.loops.LoopTests.row;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.loops.LoopTests.Expect;
import dev.loopflow.core.model.LoopConfig;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunStatus;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The while_loop: a body run again while its condition holds, bounded by max_iterations (a bound that is reached
 * while the condition still holds fails the run, one pass is never added), nested while loops, its events and the
 * load errors of a malformed one. The parity table compares a small counter with known results.
 */
class WhileLoopTest {
  private final Loopflow engine = Loopflow.create();

  /** A counter: the body adds one to {@code state.count} while {@code condition} holds, at most {@code max} times. */
  private static String counter(int max, String condition) {
    return """
        name: counter
        nodes:
          - name: count_loop
            type: while_loop
            max_iterations: %d
            condition: "%s"
            body:
              - name: increment
                run: |
                  return { count = state.count + 1 }
        edges:
          - from: __start__
            to: count_loop
          - from: count_loop
            to: __end__
        """.formatted(max, condition);
  }

  private static final String BELOW_THREE = counter(5, "state.count < 3");
  private static final String UNLESS_STOPPED = counter(10, "state.count < 4 and not state.get('stop', False)");

  static Stream<Arguments> runs() {
    return Stream.of(
        row("whileLoopRunsItsBodyUntilTheConditionTurnsFalseAndOutputsItsState", BELOW_THREE, Map.of("count", 0),
            Expect.completed().state("count", 3L)
                .node("count_loop", "status", "completed", "count", 3, "exit_reason", "condition_false")
                .check(r -> assertThat(r.result().output()).isInstanceOfSatisfying(Map.class,
                    out -> assertThat(LoopTests.normalized(out)).containsEntry("count", 3L)))),
        row("whileLoopWhoseConditionIsFalseAtTheStartRunsNoPassAndLeavesStateUnchanged", BELOW_THREE,
            Map.of("count", 7),
            Expect.completed().state("count", 7L).node("count_loop", "count", 0, "exit_reason", "condition_false")
                .starts("increment", 0)),
        row("whileLoopWhoseConditionStaysTrueFailsWithMaxIterationsExceededAfterExactlyMaxPasses",
            resource("while/never_ends.yaml"), Map.of(),
            Expect.failed("max_iterations_exceeded").errorSays("while_loop 'never_ends' exceeded max_iterations (5)")
                .errorNode("never_ends").state("iterations", 5L).starts("noop", 5)),
        row("whileLoopWithOnExhaustedContinueCompletesWithMaxIterationsAsItsExitReason",
            resource("while/capped.yaml"), Map.of(),
            Expect.completed().node("capped", "count", 4, "exit_reason", "max_iterations")
                .output("4 max_iterations 4")),
        row("stateWrittenInOnePassIsReadByTheNextPass", resource("while/persistence.yaml"), Map.of("seen", List.of()),
            Expect.completed().state("seen", List.of("pass1 after nothing", "pass2 after pass1", "pass3 after pass2",
                "pass4 after pass3"), "last", "pass4")),
        row("bodyNodesRunInOrderAndEachSeesTheStateThePreviousOneLeft", resource("while/ordered.yaml"),
            Map.of("trail", List.of()),
            Expect.completed().state("trail", List.of("a0", "b1", "a2", "b3", "a4", "b5"))
                .started("steps", "steps[1].first", "steps[1].second", "steps[2].first", "steps[2].second",
                    "steps[3].first", "steps[3].second")),
        row("whileLoopBetweenOtherNodesHandsItsFinalStateDownstream", resource("while/in_workflow.yaml"), Map.of(),
            Expect.completed().output("counted to 4 in 4 passes")
                .node("count_loop", "output", Map.of("count", 4L, "label", "counted"))
                .starts("setup", 1).starts("use_result", 1)),
        row("aFailingBodyNodeFailsTheLoopAtOnceWithoutFurtherPasses", resource("while/body_error.yaml"),
            Map.of("count", 0),
            Expect.failed("node_failed").errorSays("boom at 2").errorAt("fragile[2].explode")
                .node("fragile", "exit_reason", "error")
                .started("fragile", "fragile[1].increment", "fragile[1].explode", "fragile[1].after_explode",
                    "fragile[2].increment", "fragile[2].explode")
                .state("count", 2L, "reached", 1L).notCompleted("downstream")),
        row("complexConditionThatHoldsKeepsTheLoopGoing", UNLESS_STOPPED, Map.of("count", 0, "stop", false),
            Expect.completed().state("count", 4L).node("count_loop", "count", 4)),
        row("complexConditionThatFailsOnOneOperandStopsTheLoopBeforeItsFirstPass", UNLESS_STOPPED,
            Map.of("count", 0, "stop", true),
            Expect.completed().state("count", 0L).node("count_loop", "count", 0, "exit_reason", "condition_false")),
        row("nestedWhileLoopsRunTheInnerLoopToCompletionOnEveryOuterPass", resource("while/nested.yaml"),
            Map.of("i", 0, "j", 0, "cells", 0),
            Expect.completed().state("i", 3L, "j", 2L, "cells", 6L)
                .node("outer", "count", 3, "exit_reason", "condition_false")
                .startedIncluding("outer[1].inner[1].cell", "outer[1].inner[2].cell", "outer[3].inner[2].cell")
                .notStarted("outer[1].inner[3].cell").starts("cell", 6)),
        row("luaBodyReturnsAreMergedIntoState", resource("while/lua_doubling.yaml"), Map.of("n", 1),
            Expect.completed().state("n", 32L, "history", "2,4,8,16,32,").node("lua_loop", "count", 5)),
        // The bound's off-by-one: max_iterations passes may run; a condition still true after them fails the run.
        row("whileLoopWhoseConditionTurnsFalseAfterExactlyMaxPassesCompletes", counter(3, "state.count < 3"),
            Map.of("count", 0),
            Expect.completed().node("count_loop", "count", 3, "exit_reason", "condition_false").state("count", 3L)),
        row("whileLoopWhoseConditionIsStillTrueAfterMaxPassesFailsWithoutAnExtraPass", counter(3, "state.count < 4"),
            Map.of("count", 0),
            Expect.failed("max_iterations_exceeded").errorSays("while_loop 'count_loop' exceeded max_iterations (3)")
                .state("count", 3L).starts("increment", 3)),
        row("whileLoopWithMaxIterationsOneRunsOnePassWhenTheConditionThenTurnsFalse", counter(1, "state.count < 1"),
            Map.of("count", 0),
            Expect.completed().node("count_loop", "count", 1, "exit_reason", "condition_false")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("runs")
  void whileLoopRuns(String behaviour, String yaml, Map<String, ?> inputs, Expect expect) {
    expect.verify(behaviour, LoopTests.run(engine, yaml, inputs));
  }

  static Stream<Arguments> malformed() {
    return Stream.of(
        rejected("whileLoopWithoutConditionIsRejectedAtLoadWithItsLocation", resource("while/no_condition.yaml"),
            exactly("t.yaml:3:5: nodes.no_condition: while_loop 'no_condition' requires condition")),
        rejected("whileLoopWithoutMaxIterationsIsRejectedAtLoadWithItsLocation", resource("while/no_guard.yaml"),
            onlyOne("t.yaml:3:5: nodes.no_guard: ", "max_iterations")),
        rejected("whileLoopWithoutBodyIsRejectedAtLoadWithItsLocation", resource("while/no_body.yaml"),
            onlyOne("t.yaml:3:5: nodes.no_body: ", "body")),
        rejected("whileLoopWithAnEmptyBodyIsRejectedAtLoadWithItsLocation", resource("while/empty_body.yaml"),
            onlyOne("t.yaml:7:11: nodes.empty_body.body: ", "body")),
        rejected("whileLoopWithMaxIterationsAboveOneThousandIsRejectedAtTheValue", counter(1001, "true"),
            onlyOne("t.yaml:5:21: nodes.count_loop.max_iterations: ", "1", "1000", "1001")),
        rejected("whileLoopWithMaxIterationsZeroIsRejectedAtTheValue", counter(0, "true"),
            onlyOne("t.yaml:5:21: nodes.count_loop.max_iterations: ", "1", "1000", "found 0")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformed")
  void malformedWhileLoopIsRejectedAtLoad(String behaviour, String yaml, Consumer<List<String>> problems) {
    LoopTests.named(behaviour, () -> problems.accept(LoopTests.problems(engine, yaml)));
  }

  @Test
  void whileLoopNodeLoadsWithItsConditionBoundAndBody() {
    Workflow wf = engine.parse(counter(5, "state.count < 3"), "t.yaml");

    Node node = wf.node("count_loop");
    assertThat(node.kind()).isEqualTo("while_loop");
    assertThat(node.body()).isInstanceOfSatisfying(Node.Loop.class, loop -> {
      assertThat(loop.config()).isInstanceOf(LoopConfig.While.class);
      assertThat(loop.maxIterations()).isEqualTo(5);
      assertThat(loop.body()).extracting(Node::id).containsExactly("increment");
    });
  }

  @Test
  void whileLoopYamlWithNameIdsAndStartEndEdgesParses() {
    Workflow wf = engine.parse(LoopTests.resource("while_loop_parity.yaml"), "while_loop_parity.yaml");

    assertThat(wf.name()).isEqualTo("while-loop-parity");
    assertThat(wf.nodes()).extracting(Node::id).containsExactly("sum_loop");
    Node.Loop loop = (Node.Loop) wf.node("sum_loop").body();
    assertThat(loop.maxIterations()).isEqualTo(10);
    assertThat(loop.body()).extracting(Node::id, Node::kind)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("increment", "script"),
            org.assertj.core.groups.Tuple.tuple("accumulate", "script"));
  }

  @ParameterizedTest(name = "{0},{1} -> {2},{3}")
  @CsvSource({"0, 0, 5, 15", "10, 0, 10, 0", "3, 0, 5, 9"})
  void parityTableHolds(long count, long sum, long finalCount, long finalSum) {
    Workflow wf = engine.parse(LoopTests.resource("while_loop_parity.yaml"), "while_loop_parity.yaml");
    LoopTests.Run run = LoopTests.run(engine, wf, Map.of("count", count, "sum", sum));

    assertThat(run.result().error()).isNull();
    assertThat(run.result().status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(run.state()).isEqualTo(Map.of("count", finalCount, "sum", finalSum));
    assertThat(run.node("sum_loop"))
        .containsEntry("count", (int) (finalCount - count))
        .containsEntry("exit_reason", "condition_false");
  }

  @Test
  void whileLoopEmitsStartedThenOneIterationPerCheckWithItsConditionResultThenCompleted() {
    LoopTests.Run run = LoopTests.run(engine, counter(5, "state.count < 3"), Map.of("count", 0));

    List<Event> loopEvents = run.events().stream()
        .filter(e -> e instanceof Event.LoopStarted || e instanceof Event.LoopIteration
            || e instanceof Event.LoopCompleted)
        .toList();
    assertThat(loopEvents).hasSize(6);
    assertThat(loopEvents.get(0)).isInstanceOfSatisfying(Event.LoopStarted.class, e -> {
      assertThat(e.node().path()).isEqualTo("count_loop");
      assertThat(e.construct()).isEqualTo("while_loop");
      assertThat(e.max()).isEqualTo(5);
    });
    for (int i = 1; i <= 3; i++) {
      int iteration = i;
      assertThat(loopEvents.get(i)).isInstanceOfSatisfying(Event.LoopIteration.class, e -> {
        assertThat(e.node().path()).isEqualTo("count_loop");
        assertThat(e.iteration()).isEqualTo(iteration);
        assertThat(e.index()).isEqualTo(iteration - 1);
        assertThat(e.max()).isEqualTo(5);
        assertThat(e.conditionResult()).isTrue();
      });
    }
    assertThat(loopEvents.get(4)).as("the check that ends the loop").isInstanceOfSatisfying(
        Event.LoopIteration.class, e -> {
          assertThat(e.iteration()).isEqualTo(4);
          assertThat(e.conditionResult()).isFalse();
          assertThat(e.startsAPass()).isFalse();
        });
    assertThat(loopEvents.get(5)).isInstanceOfSatisfying(Event.LoopCompleted.class, e -> {
      assertThat(e.node().path()).isEqualTo("count_loop");
      assertThat(e.iterationsRun()).isEqualTo(3);
      assertThat(e.exitReason()).isEqualTo("condition_false");
    });
    // each pass's body event comes after that pass's loop.iteration event and carries the loop path
    List<String> order = run.events().stream()
        .filter(e -> e instanceof Event.LoopIteration li && li.startsAPass() || e instanceof Event.NodeStarted ns
            && ns.node().nodeId().equals("increment"))
        .map(e -> e instanceof Event.LoopIteration li ? "iteration " + li.iteration()
            : ((Event.NodeStarted) e).node().path())
        .toList();
    assertThat(order).containsExactly("iteration 1", "count_loop[1].increment", "iteration 2",
        "count_loop[2].increment", "iteration 3", "count_loop[3].increment");
  }

  @Test
  void exhaustedWhileLoopReportsLoopCompletedWithItsPassesBeforeTheRunFails() {
    LoopTests.Run run = LoopTests.run(engine, counter(3, "true"), Map.of("count", 0));

    assertThat(run.result().status()).isEqualTo(RunStatus.FAILED);
    assertThat(run.events(Event.LoopIteration.class)).extracting(Event.LoopIteration::iteration)
        .containsExactly(1, 2, 3);
    assertThat(run.events(Event.LoopCompleted.class)).singleElement().satisfies(e -> {
      assertThat(e.iterationsRun()).isEqualTo(3);
      assertThat(e.exitReason()).isEqualTo("max_iterations");
    });
  }
}
