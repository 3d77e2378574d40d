package dev.loopflow.core.loops;

import static dev.loopflow.core.loops.LoopTests.resource;
import static dev.loopflow.core.loops.LoopTests.row;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.loops.LoopTests.Expect;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Loops inside loops (every construct may be nested in every other), the run-wide {@code limits.max_steps} that
 * stops runaway nesting, and cancellation in the middle of a pass.
 */
class NestedLoopTest {
  private final Loopflow engine = Loopflow.create();

  /** Two outer passes of three inner steps each: outer + 2 × (reset + inner + 3 × step) = 11 node executions. */
  private static String elevenSteps(int maxSteps) {
    return """
        name: exact
        limits:
          max_steps: %d
        nodes:
          - name: outer
            type: while_loop
            max_iterations: 5
            condition: "state.i < 2"
            body:
              - name: reset
                run: |
                  return { i = state.i + 1, j = 0 }
              - name: inner
                type: while_loop
                max_iterations: 5
                condition: "state.j < 3"
                body:
                  - name: step
                    run: |
                      return { j = state.j + 1 }
        """.formatted(maxSteps);
  }

  static Stream<Arguments> runs() {
    return Stream.of(
        row("whileLoopInsideALoopGroupRunsToCompletionOnEveryGroupPass", resource("nested/while_in_group.yaml"),
            Map.of(),
            Expect.completed()
                .node("fix", "count", 3, "exit_reason", "signal", "iterations", List.of("round 1", "round 2",
                    "ALL_GREEN"))
                .output("ALL_GREEN after 3 rounds, 6 attempts")
                .startedIncluding("fix[1].retry_tests[1].attempt", "fix[2].retry_tests[2].attempt",
                    "fix[3].retry_tests[3].attempt")
                .notStarted("fix[1].retry_tests[2].attempt")
                .loopsCompleted("fix[1].retry_tests:1:condition_false", "fix[2].retry_tests:2:condition_false",
                    "fix[3].retry_tests:3:condition_false", "fix:3:signal")),
        row("loopGroupWrittenWithTypeAndNodesNestsAWhileLoopAlike", resource("nested/typed_group.yaml"),
            Map.of("n", 0),
            Expect.completed()
                .node("rounds", "count", 3, "exit_reason", "max_iterations", "iterations", List.of("n=2", "n=4", "n=6"))
                .starts("bump", 6)),
        row("whileConditionInsideALoopReadsTheEnclosingPassAsLoopParentOnEveryCheck", resource("nested/condition_scope.yaml"),
            Map.of("n", 0),
            Expect.completed().node("rounds", "iterations", List.of("n=2", "n=4", "n=6"))),
        row("innerLoopBodySeesItsOwnIterationAndTheEnclosingLoopAsParent", resource("nested/parent.yaml"),
            Map.of("i", 0, "j", 0, "trail", ""),
            Expect.completed().state("trail", "1.1/5 1.2/5 1.3/5 2.1/5 2.2/5 2.3/5 ")
                .startedInOrder("outer[1].next_row", "outer[1].inner", "outer[1].inner[1].cell",
                    "outer[1].inner[3].cell", "outer[2].next_row", "outer[2].inner[3].cell")),
        row("innerWhileLoopExhaustingItsBoundFailsTheOuterLoopWithTheInnerPath",
            resource("nested/inner_exhausted.yaml"), Map.of("i", 0, "j", 0),
            Expect.failed("max_iterations_exceeded").errorSays("while_loop 'inner' exceeded max_iterations (2)")
                .errorAt("outer[3].inner").node("outer", "exit_reason", "error")),
        row("iteratorWhoseBodyIsAWhileLoopRunsTheLoopOncePerItem", resource("nested/iterate_while.yaml"),
            Map.of("targets", List.of(2, 0, 3)),
            Expect.completed().node("collect", "output", List.of("2:2:2", "0:0:0", "3:3:3"))
                .startedIncluding("each[1].count_up[2].bump", "each[3].count_up[3].bump")
                .notStarted("each[2].count_up[1].bump").starts("bump", 5)),
        row("whileLoopInsideALoopNodeBodyRunsOnEveryRefinementPass", resource("nested/while_in_loop.yaml"),
            Map.of("len", 0),
            Expect.completed().node("refine", "iterations", List.of("2", "24", "246")).starts("add", 6)),
        row("maxStepsStopsRunawayNestedLoopsWithAClearError", resource("nested/runaway.yaml"), Map.of(),
            Expect.failed("max_steps_exceeded").errorSays("max_steps", "30").startedCount(30)
                .check(r -> assertThat(r.result().error().path()).startsWith("outer[1].inner["))),
        row("maxStepsCountsEveryNodeExecutionIncludingTheLoopsThemselves", elevenSteps(11), Map.of("i", 0, "j", 0),
            Expect.completed().startedCount(11)),
        row("maxStepsOneBelowTheExecutionsNeededFailsAtTheLastStep", elevenSteps(10), Map.of("i", 0, "j", 0),
            Expect.failed("max_steps_exceeded").errorAt("outer[2].inner[3].step")),
        row("loopEdgeRegionInsideALoopNodeBodyRunsOnEveryRefinementPass", resource("nested/edge_in_loop.yaml"),
            Map.of(),
            Expect.completed()
                .node("refine", "iterations", List.of("pass 1 checked 2 times", "pass 2 checked 2 times"))
                .startedInOrder("refine[1].draft", "refine[1].check->check[1].check", "refine[1].check->check[2].check",
                    "refine[1].summary", "refine[2].draft", "refine[2].check->check[2].check")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("runs")
  void nestedLoopsRun(String behaviour, String yaml, Map<String, ?> inputs, Expect expect) {
    expect.verify(behaviour, LoopTests.run(engine, yaml, inputs));
  }

  // --- loop-backs of nested regions, and cancellation ---------------------------------------------------------------

  @Test
  void loopEdgeRegionNestedInsideAnotherRegionRestartsItsCountOnEveryOuterPass() {
    String yaml = """
        name: nested-edges
        nodes:
          - id: plan
            run: |
              return { plans = (state.plans or 0) + 1, tries = 0 }
          - id: code
            run: |
              return { tries = state.tries + 1, total = (state.total or 0) + 1 }
          - id: test
            type: transform
            template: "plan {{ state.plans }} try {{ state.tries }}"
          - id: ship
            type: transform
            template: "shipped after {{ state.total }} attempts"
        edges:
          - {from: plan, to: code}
          - {from: code, to: test}
          - {from: test, to: ship}
          - {from: test, to: code, type: loop, maxIterations: 2, when: "state.tries < 2"}
          - {from: test, to: plan, type: loop, maxIterations: 3, when: "state.plans < 3"}
        """;
    LoopTests.Run run = LoopTests.run(engine, yaml, Map.of());

    assertThat(run.result().error()).isNull();
    assertThat(run.result().output()).isEqualTo("shipped after 6 attempts");
    assertThat(run.started()).containsSubsequence("test->plan[1].plan", "test->plan[1].test->code[1].code",
        "test->plan[1].test->code[2].test", "test->plan[2].plan", "test->plan[3].test->code[2].test", "ship");
    assertThat(run.events(Event.LoopIterate.class))
        .extracting(e -> e.edgeTo() + e.iteration())
        .containsExactly("code1", "plan1", "code1", "plan2", "code1");
    assertThat(run.starts("ship")).isEqualTo(1);
  }

  @Test
  @Timeout(15)
  void cancellingDuringAPassStopsTheLoopWithExitReasonCancelled() throws InterruptedException {
    String yaml = """
        name: slow
        nodes:
          - name: slow_loop
            type: while_loop
            max_iterations: 10
            condition: "state.n < 10"
            body:
              - name: bump
                run: |
                  return { n = state.n + 1 }
              - name: nap
                bash: "if [ {{ loop.iteration }} -ge 2 ]; then sleep 5; fi"
          - name: after
            type: transform
            template: "never"
        """;
    Workflow wf = engine.parse(yaml, "t.yaml");
    List<Event> events = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch napping = new CountDownLatch(1);
    RunOptions options = RunOptions.builder()
        .inputs(Map.of("n", 0))
        .listener(e -> {
          events.add(e);
          if (e instanceof Event.NodeStarted s && s.node().path().equals("slow_loop[2].nap")) {
            napping.countDown();
          }
        })
        .build();
    RunHandle handle = engine.start(wf, options);
    napping.await();
    handle.cancel("operator stopped it");
    RunResult r = handle.await();

    assertThat(r.status()).isEqualTo(RunStatus.CANCELLED);
    assertThat(r.error()).isNotNull();
    assertThat(r.error().code()).isEqualTo("cancelled");
    assertThat(r.nodes().get("slow_loop")).containsEntry("exit_reason", "cancelled");
    assertThat(r.nodes().get("after").get("status")).isNotEqualTo("completed");
    List<Event> snapshot = List.copyOf(events);
    assertThat(snapshot).filteredOn(Event.LoopCompleted.class::isInstance)
        .singleElement()
        .satisfies(e -> {
          assertThat(((Event.LoopCompleted) e).exitReason()).isEqualTo("cancelled");
          assertThat(((Event.LoopCompleted) e).iterationsRun()).isBetween(1, 2);
        });
    assertThat(snapshot).filteredOn(Event.NodeStarted.class::isInstance)
        .extracting(e -> ((Event.NodeStarted) e).node().path())
        .contains("slow_loop[2].nap")
        .doesNotContain("slow_loop[3].bump", "after");
    assertThat(r.state()).containsEntry("n", 2L);
    assertThat(snapshot).filteredOn(Event.NodeCancelled.class::isInstance)
        .extracting(e -> ((Event.NodeCancelled) e).node().path())
        .contains("slow_loop[2].nap");
  }

  @Test
  @Timeout(15)
  void cancellingInsideAnInnerLoopCancelsEveryEnclosingLoop() throws InterruptedException {
    String yaml = """
        name: slow-nested
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
                condition: "state.j < 3"
                body:
                  - name: cell
                    run: |
                      return { j = state.j + 1 }
                  - name: nap
                    bash: sleep 5
        """;
    Workflow wf = engine.parse(yaml, "t.yaml");
    List<Event> events = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch napping = new CountDownLatch(1);
    RunHandle handle = engine.start(wf, RunOptions.builder()
        .inputs(Map.of("i", 0, "j", 0))
        .listener(e -> {
          events.add(e);
          if (e instanceof Event.NodeStarted s && s.node().path().equals("outer[1].inner[1].nap")) {
            napping.countDown();
          }
        })
        .build());
    napping.await();
    handle.cancel("enough");
    RunResult r = handle.await();

    assertThat(r.status()).isEqualTo(RunStatus.CANCELLED);
    assertThat(r.nodes().get("outer")).containsEntry("exit_reason", "cancelled");
    assertThat(List.copyOf(events)).filteredOn(Event.LoopCompleted.class::isInstance)
        .extracting(e -> ((Event.LoopCompleted) e).node().path() + ":" + ((Event.LoopCompleted) e).exitReason())
        .containsExactly("outer[1].inner:cancelled", "outer:cancelled");
  }
}
