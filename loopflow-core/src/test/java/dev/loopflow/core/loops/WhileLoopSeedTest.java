package dev.loopflow.core.loops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.LoopConfig;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunStatus;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Seed 003's while_loop: its twenty tests, adapted to loopflow (nested while loops are allowed here, SPEC §1), its
 * three-row parity table, its events, and the bound's off-by-one (SPEC §5).
 */
class WhileLoopSeedTest {
  private final Loopflow engine = Loopflow.create();

  /** 003's basic counter, with a configurable bound and condition. */
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

  /** State values with every number as a long, so inputs (ints) and script results (longs) compare equal. */
  private static Map<String, Object> normalized(Map<String, Object> state) {
    Map<String, Object> out = new LinkedHashMap<>();
    state.forEach((k, v) -> out.put(k, v instanceof Number n && !(v instanceof Double) ? (Object) n.longValue() : v));
    return out;
  }

  // --- 003's twenty tests ------------------------------------------------------------------------------------

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
  void whileLoopRunsItsBodyUntilTheConditionTurnsFalse() {
    LoopTests.Run run = LoopTests.run(engine, counter(5, "state.count < 3"), Map.of("count", 0));

    assertThat(run.result().error()).isNull();
    assertThat(run.result().status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(normalized(run.result().state())).containsEntry("count", 3L);
    assertThat(run.node("count_loop"))
        .containsEntry("status", "completed")
        .containsEntry("count", 3)
        .containsEntry("exit_reason", "condition_false");
  }

  @Test
  void whileLoopWhoseConditionIsFalseAtTheStartRunsNoPassAndLeavesStateUnchanged() {
    LoopTests.Run run = LoopTests.run(engine, counter(5, "state.count < 3"), Map.of("count", 7));

    assertThat(run.result().status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(normalized(run.result().state())).containsEntry("count", 7L);
    assertThat(run.node("count_loop")).containsEntry("count", 0).containsEntry("exit_reason", "condition_false");
    assertThat(run.starts("increment")).isZero();
  }

  @Test
  void whileLoopWhoseConditionStaysTrueFailsWithMaxIterationsExceededAfterExactlyMaxPasses() {
    String yaml = """
        name: infinite_guard
        nodes:
          - name: never_ends
            type: while_loop
            max_iterations: 5
            condition: "true"
            body:
              - name: noop
                run: |
                  return { iterations = (state.iterations or 0) + 1 }
        edges:
          - from: __start__
            to: never_ends
          - from: never_ends
            to: __end__
        """;
    LoopTests.Run run = LoopTests.run(engine, yaml, Map.of());

    assertThat(run.result().status()).isEqualTo(RunStatus.FAILED);
    assertThat(run.result().error().code()).isEqualTo("max_iterations_exceeded");
    assertThat(run.result().error().message()).contains("while_loop 'never_ends' exceeded max_iterations (5)");
    assertThat(run.result().error().node()).isEqualTo("never_ends");
    assertThat(normalized(run.result().state())).containsEntry("iterations", 5L);
    assertThat(run.starts("noop")).isEqualTo(5);
  }

  @Test
  void whileLoopWithOnExhaustedContinueCompletesWithMaxIterationsAsItsExitReason() {
    String yaml = """
        name: capped
        nodes:
          - name: capped
            type: while_loop
            max_iterations: 4
            on_exhausted: continue
            condition: "true"
            body:
              - name: noop
                run: |
                  return { iterations = (state.iterations or 0) + 1 }
          - id: after
            type: transform
            template: "{{ capped.count }} {{ capped.exit_reason }} {{ state.iterations }}"
        """;
    LoopTests.Run run = LoopTests.run(engine, yaml, Map.of());

    assertThat(run.result().error()).isNull();
    assertThat(run.result().status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(run.node("capped")).containsEntry("count", 4).containsEntry("exit_reason", "max_iterations");
    assertThat(run.result().output()).isEqualTo("4 max_iterations 4");
  }

  @Test
  void stateWrittenInOnePassIsReadByTheNextPass() {
    String yaml = """
        name: persistence
        nodes:
          - name: collect
            type: while_loop
            max_iterations: 10
            condition: "state.seen | length < 4"
            body:
              - name: remember
                run: |
                  local seen = {}
                  for i, v in ipairs(state.seen) do seen[i] = v end
                  seen[#seen + 1] = "pass" .. (#state.seen + 1) .. " after " .. (state.last or "nothing")
                  return { seen = seen, last = "pass" .. #seen }
        """;
    LoopTests.Run run = LoopTests.run(engine, yaml, Map.of("seen", List.of()));

    assertThat(run.result().error()).isNull();
    assertThat(run.result().state().get("seen")).isEqualTo(List.of(
        "pass1 after nothing", "pass2 after pass1", "pass3 after pass2", "pass4 after pass3"));
    assertThat(run.result().state()).containsEntry("last", "pass4");
  }

  @Test
  void bodyNodesRunInOrderAndEachSeesTheStateThePreviousOneLeft() {
    String yaml = """
        name: ordered
        nodes:
          - name: steps
            type: while_loop
            max_iterations: 3
            condition: "state.trail | length < 6"
            body:
              - name: first
                run: |
                  local t = {}
                  for i, v in ipairs(state.trail) do t[i] = v end
                  t[#t + 1] = "a" .. #t
                  return { trail = t }
              - name: second
                run: |
                  local t = {}
                  for i, v in ipairs(state.trail) do t[i] = v end
                  t[#t + 1] = "b" .. #t
                  return { trail = t }
        """;
    LoopTests.Run run = LoopTests.run(engine, yaml, Map.of("trail", List.of()));

    assertThat(run.result().error()).isNull();
    assertThat(run.result().state().get("trail")).isEqualTo(List.of("a0", "b1", "a2", "b3", "a4", "b5"));
    assertThat(run.started()).containsExactly("steps", "steps[1].first", "steps[1].second", "steps[2].first",
        "steps[2].second", "steps[3].first", "steps[3].second");
  }

  @Test
  void whileLoopBetweenOtherNodesHandsItsFinalStateDownstream() {
    String yaml = """
        name: in-workflow
        nodes:
          - name: setup
            run: |
              return { count = 0, label = "counted" }
          - name: count_loop
            type: while_loop
            max_iterations: 10
            condition: "state.count < 4"
            body:
              - name: increment
                run: |
                  return { count = state.count + 1 }
          - name: use_result
            type: transform
            template: "{{ state.label }} to {{ state.count }} in {{ count_loop.count }} passes"
        edges:
          - from: __start__
            to: setup
          - from: setup
            to: count_loop
          - from: count_loop
            to: use_result
          - from: use_result
            to: __end__
        """;
    LoopTests.Run run = LoopTests.run(engine, yaml, Map.of());

    assertThat(run.result().error()).isNull();
    assertThat(run.result().output()).isEqualTo("counted to 4 in 4 passes");
    assertThat(normalized(run.node("count_loop"))).containsEntry("output", Map.of("count", 4L, "label", "counted"));
    assertThat(run.starts("setup")).isEqualTo(1);
    assertThat(run.starts("use_result")).isEqualTo(1);
  }

  @Test
  void aFailingBodyNodeFailsTheLoopAtOnceWithoutFurtherPasses() {
    String yaml = """
        name: body-error
        nodes:
          - name: fragile
            type: while_loop
            max_iterations: 10
            condition: "state.count < 5"
            body:
              - name: increment
                run: |
                  return { count = state.count + 1 }
              - name: explode
                run: |
                  if state.count == 2 then error("boom at " .. state.count) end
                  return {}
              - name: after_explode
                run: |
                  return { reached = state.count }
          - name: downstream
            type: transform
            template: "never"
        """;
    LoopTests.Run run = LoopTests.run(engine, yaml, Map.of("count", 0));

    assertThat(run.result().status()).isEqualTo(RunStatus.FAILED);
    assertThat(run.result().error().code()).isEqualTo("node_failed");
    assertThat(run.result().error().message()).contains("boom at 2");
    assertThat(run.result().error().path()).isEqualTo("fragile[2].explode");
    assertThat(run.node("fragile")).containsEntry("exit_reason", "error");
    assertThat(run.started()).containsExactly("fragile", "fragile[1].increment", "fragile[1].explode",
        "fragile[1].after_explode", "fragile[2].increment", "fragile[2].explode");
    assertThat(normalized(run.result().state())).containsEntry("count", 2L).containsEntry("reached", 1L);
    assertThat(run.node("downstream").get("status")).isNotEqualTo("completed");
  }

  @Test
  void complexConditionThatHoldsKeepsTheLoopGoing() {
    String yaml = counter(10, "state.count < 4 and not state.get('stop', False)");
    LoopTests.Run run = LoopTests.run(engine, yaml, Map.of("count", 0, "stop", false));

    assertThat(run.result().error()).isNull();
    assertThat(normalized(run.result().state())).containsEntry("count", 4L);
    assertThat(run.node("count_loop")).containsEntry("count", 4);
  }

  @Test
  void complexConditionThatFailsOnOneOperandStopsTheLoopBeforeItsFirstPass() {
    String yaml = counter(10, "state.count < 4 and not state.get('stop', False)");
    LoopTests.Run run = LoopTests.run(engine, yaml, Map.of("count", 0, "stop", true));

    assertThat(run.result().error()).isNull();
    assertThat(normalized(run.result().state())).containsEntry("count", 0L);
    assertThat(run.node("count_loop")).containsEntry("count", 0).containsEntry("exit_reason", "condition_false");
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

  @Test
  void whileLoopYamlExecutesEndToEnd() {
    LoopTests.Run run = LoopTests.run(engine, counter(5, "state.count < 3"), Map.of("count", 0));

    assertThat(run.result().status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(normalized(run.result().state())).containsEntry("count", 3L);
    assertThat(normalized(asMap(run.result().output()))).containsEntry("count", 3L);
  }

  @Test
  void whileLoopWithoutConditionIsRejectedAtLoadWithItsLocation() {
    assertThat(LoopTests.problems(engine, """
        name: invalid
        nodes:
          - name: no_condition
            type: while_loop
            max_iterations: 5
            body:
              - name: noop
                run: |
                  return {}
        """)).containsExactly("t.yaml:3:5: nodes.no_condition: while_loop 'no_condition' requires condition");
  }

  @Test
  void whileLoopWithoutMaxIterationsIsRejectedAtLoadWithItsLocation() {
    assertThat(LoopTests.problems(engine, """
        name: invalid
        nodes:
          - name: no_guard
            type: while_loop
            condition: "true"
            body:
              - name: noop
                run: |
                  return {}
        """)).singleElement().asString()
        .startsWith("t.yaml:3:5: nodes.no_guard: ")
        .contains("max_iterations");
  }

  @Test
  void whileLoopWithoutBodyIsRejectedAtLoadWithItsLocation() {
    assertThat(LoopTests.problems(engine, """
        name: invalid
        nodes:
          - name: no_body
            type: while_loop
            max_iterations: 5
            condition: "true"
        """)).singleElement().asString()
        .startsWith("t.yaml:3:5: nodes.no_body: ")
        .contains("body");
  }

  @Test
  void whileLoopWithAnEmptyBodyIsRejectedAtLoadWithItsLocation() {
    assertThat(LoopTests.problems(engine, """
        name: invalid
        nodes:
          - name: empty_body
            type: while_loop
            max_iterations: 5
            condition: "true"
            body: []
        """)).singleElement().asString()
        .startsWith("t.yaml:7:11: nodes.empty_body.body: ")
        .contains("body");
  }

  @Test
  void whileLoopWithMaxIterationsAboveOneThousandIsRejectedAtTheValue() {
    assertThat(LoopTests.problems(engine, counter(1001, "true"))).singleElement().asString()
        .startsWith("t.yaml:5:21: nodes.count_loop.max_iterations: ")
        .contains("1", "1000", "1001");
  }

  @Test
  void whileLoopWithMaxIterationsZeroIsRejectedAtTheValue() {
    assertThat(LoopTests.problems(engine, counter(0, "true"))).singleElement().asString()
        .startsWith("t.yaml:5:21: nodes.count_loop.max_iterations: ")
        .contains("1", "1000", "found 0");
  }

  @Test
  void nestedWhileLoopsRunTheInnerLoopToCompletionOnEveryOuterPass() {
    String yaml = """
        name: nested
        nodes:
          - name: outer
            type: while_loop
            max_iterations: 5
            condition: "state.i < 3"
            body:
              - name: next_row
                run: |
                  return { i = state.i + 1, j = 0 }
              - name: inner
                type: while_loop
                max_iterations: 5
                condition: "state.j < 2"
                body:
                  - name: cell
                    run: |
                      return { j = state.j + 1, cells = state.cells + 1 }
        """;
    LoopTests.Run run = LoopTests.run(engine, yaml, Map.of("i", 0, "j", 0, "cells", 0));

    assertThat(run.result().error()).isNull();
    assertThat(run.result().status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(normalized(run.result().state()))
        .containsEntry("i", 3L).containsEntry("j", 2L).containsEntry("cells", 6L);
    assertThat(run.node("outer")).containsEntry("count", 3).containsEntry("exit_reason", "condition_false");
    assertThat(run.started()).contains("outer[1].inner[1].cell", "outer[1].inner[2].cell",
        "outer[3].inner[2].cell").doesNotContain("outer[1].inner[3].cell");
    assertThat(run.starts("cell")).isEqualTo(6);
  }

  @Test
  void luaBodyReturnsAreMergedIntoState() {
    String yaml = """
        name: lua
        nodes:
          - name: lua_loop
            type: while_loop
            max_iterations: 10
            condition: "state.n < 32"
            body:
              - name: double
                run: |
                  local doubled = state.n * 2
                  return { n = doubled, history = (state.history or "") .. doubled .. "," }
        """;
    LoopTests.Run run = LoopTests.run(engine, yaml, Map.of("n", 1));

    assertThat(run.result().error()).isNull();
    assertThat(normalized(run.result().state())).containsEntry("n", 32L).containsEntry("history", "2,4,8,16,32,");
    assertThat(run.node("lua_loop")).containsEntry("count", 5);
  }

  // --- the parity table of 003's completion notes --------------------------------------------------------------

  @ParameterizedTest(name = "{0},{1} -> {2},{3}")
  @CsvSource({"0, 0, 5, 15", "10, 0, 10, 0", "3, 0, 5, 9"})
  void parityTableOfSeed003Holds(long count, long sum, long finalCount, long finalSum) {
    Workflow wf = engine.parse(LoopTests.resource("while_loop_parity.yaml"), "while_loop_parity.yaml");
    LoopTests.Run run = LoopTests.run(engine, wf, Map.of("count", count, "sum", sum));

    assertThat(run.result().error()).isNull();
    assertThat(run.result().status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(normalized(run.result().state())).isEqualTo(Map.of("count", finalCount, "sum", finalSum));
    assertThat(run.node("sum_loop"))
        .containsEntry("count", (int) (finalCount - count))
        .containsEntry("exit_reason", "condition_false");
  }

  // --- events ----------------------------------------------------------------------------------------------------

  @Test
  void whileLoopEmitsStartedThenOneIterationPerPassWithItsConditionResultThenCompleted() {
    LoopTests.Run run = LoopTests.run(engine, counter(5, "state.count < 3"), Map.of("count", 0));

    List<Event> loopEvents = run.events().stream()
        .filter(e -> e instanceof Event.LoopStarted || e instanceof Event.LoopIteration
            || e instanceof Event.LoopCompleted)
        .toList();
    assertThat(loopEvents).hasSize(5);
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
    assertThat(loopEvents.get(4)).isInstanceOfSatisfying(Event.LoopCompleted.class, e -> {
      assertThat(e.node().path()).isEqualTo("count_loop");
      assertThat(e.iterationsRun()).isEqualTo(3);
      assertThat(e.exitReason()).isEqualTo("condition_false");
    });
    // each pass's body event comes after that pass's loop.iteration event and carries the loop path
    List<String> order = run.events().stream()
        .filter(e -> e instanceof Event.LoopIteration || e instanceof Event.NodeStarted ns
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

  // --- the bound's off-by-one (SPEC §5) -------------------------------------------------------------------------

  @Test
  void whileLoopWhoseConditionTurnsFalseAfterExactlyMaxPassesCompletes() {
    LoopTests.Run run = LoopTests.run(engine, counter(3, "state.count < 3"), Map.of("count", 0));

    assertThat(run.result().error()).isNull();
    assertThat(run.result().status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(run.node("count_loop")).containsEntry("count", 3).containsEntry("exit_reason", "condition_false");
    assertThat(normalized(run.result().state())).containsEntry("count", 3L);
  }

  @Test
  void whileLoopWhoseConditionIsStillTrueAfterMaxPassesFailsWithoutAnExtraPass() {
    LoopTests.Run run = LoopTests.run(engine, counter(3, "state.count < 4"), Map.of("count", 0));

    assertThat(run.result().status()).isEqualTo(RunStatus.FAILED);
    assertThat(run.result().error().code()).isEqualTo("max_iterations_exceeded");
    assertThat(run.result().error().message()).contains("while_loop 'count_loop' exceeded max_iterations (3)");
    assertThat(normalized(run.result().state())).containsEntry("count", 3L);
    assertThat(run.starts("increment")).isEqualTo(3);
  }

  @Test
  void whileLoopWithMaxIterationsOneRunsOnePassWhenTheConditionThenTurnsFalse() {
    LoopTests.Run run = LoopTests.run(engine, counter(1, "state.count < 1"), Map.of("count", 0));

    assertThat(run.result().status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(run.node("count_loop")).containsEntry("count", 1).containsEntry("exit_reason", "condition_false");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> asMap(Object o) {
    assertThat(o).isInstanceOf(Map.class);
    return (Map<String, Object>) o;
  }
}
