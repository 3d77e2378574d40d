package dev.loopflow.core.loops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Loops inside loops (SPEC §1: every construct may be nested in every other), the run-wide {@code limits.max_steps}
 * that stops runaway nesting, and cancellation in the middle of a pass.
 */
class NestedLoopTest {
  private final Loopflow engine = Loopflow.create();

  @Test
  void whileLoopInsideALoopGroupRunsToCompletionOnEveryGroupPass() {
    String yaml = """
        name: while-in-group
        nodes:
          - id: fix
            loop_group:
              max_iterations: 4
              until: ALL_GREEN
              nodes:
                - id: implement
                  run: |
                    return { round = (state.round or 0) + 1, tries = 0 }
                - id: retry_tests
                  type: while_loop
                  max_iterations: 5
                  condition: "state.tries < state.round"
                  depends_on: [implement]
                  body:
                    - id: attempt
                      run: |
                        return { tries = state.tries + 1, total = (state.total or 0) + 1 }
                - id: review
                  type: transform
                  depends_on: [retry_tests]
                  template: "{% if state.round >= 3 %}ALL_GREEN{% else %}round {{ loop.iteration }}{% endif %}"
          - id: report
            type: transform
            template: "{{ fix.output }} after {{ fix.count }} rounds, {{ state.total }} attempts"
        """;
    LoopTests.Run run = LoopTests.run(engine, yaml, Map.of());

    assertThat(run.result().error()).isNull();
    assertThat(run.result().status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(run.node("fix"))
        .containsEntry("count", 3)
        .containsEntry("exit_reason", "signal")
        .containsEntry("iterations", List.of("round 1", "round 2", "ALL_GREEN"));
    assertThat(run.result().output()).isEqualTo("ALL_GREEN after 3 rounds, 6 attempts");
    assertThat(run.started()).contains("fix[1].retry_tests[1].attempt", "fix[2].retry_tests[2].attempt",
        "fix[3].retry_tests[3].attempt").doesNotContain("fix[1].retry_tests[2].attempt");
    assertThat(run.events(Event.LoopCompleted.class))
        .extracting(e -> e.node().path() + ":" + e.iterationsRun() + ":" + e.exitReason())
        .containsExactly("fix[1].retry_tests:1:condition_false", "fix[2].retry_tests:2:condition_false",
            "fix[3].retry_tests:3:condition_false", "fix:3:signal");
  }

  @Test
  void loopGroupWrittenWithTypeAndNodesNestsAWhileLoopAlike() {
    String yaml = """
        name: typed-group
        nodes:
          - id: rounds
            type: loop_group
            max_iterations: 3
            on_exhausted: continue
            nodes:
              - id: aim
                run: |
                  return { target = loop.iteration * 2 }
              - id: count_up
                type: while_loop
                max_iterations: 10
                condition: "state.n < state.target"
                depends_on: [aim]
                body:
                  - id: bump
                    run: |
                      return { n = state.n + 1 }
              - id: say
                type: transform
                depends_on: [count_up]
                template: "n={{ state.n }}"
        """;
    LoopTests.Run run = LoopTests.run(engine, yaml, Map.of("n", 0));

    assertThat(run.result().error()).isNull();
    assertThat(run.node("rounds"))
        .containsEntry("count", 3)
        .containsEntry("exit_reason", "max_iterations")
        .containsEntry("iterations", List.of("n=2", "n=4", "n=6"));
    assertThat(run.starts("bump")).isEqualTo(6);
  }

  @Test
  void whileConditionInsideALoopSeesTheSameLoopOnEveryCheck() {
    String yaml = """
        name: condition-scope
        nodes:
          - id: rounds
            type: loop_group
            max_iterations: 3
            on_exhausted: continue
            nodes:
              - id: count_up
                type: while_loop
                max_iterations: 10
                condition: "state.n < loop.iteration * 2"
                body:
                  - id: bump
                    run: |
                      return { n = state.n + 1 }
              - id: say
                type: transform
                depends_on: [count_up]
                template: "n={{ state.n }}"
        """;
    LoopTests.Run run = LoopTests.run(engine, yaml, Map.of("n", 0));

    assertThat(run.result().error()).isNull();
    assertThat(run.node("rounds")).containsEntry("iterations", List.of("n=2", "n=4", "n=6"));
  }

  @Test
  void innerLoopBodySeesItsOwnIterationAndTheEnclosingLoopAsParent() {
    String yaml = """
        name: parent
        nodes:
          - name: outer
            type: while_loop
            max_iterations: 5
            condition: "state.i < 2"
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
                      return { j = state.j + 1,
                               trail = state.trail .. loop.parent.iteration .. "." .. loop.iteration .. "/" .. loop.max .. " " }
        """;
    LoopTests.Run run = LoopTests.run(engine, yaml, Map.of("i", 0, "j", 0, "trail", ""));

    assertThat(run.result().error()).isNull();
    assertThat(run.result().state()).containsEntry("trail", "1.1/5 1.2/5 1.3/5 2.1/5 2.2/5 2.3/5 ");
    assertThat(run.started()).containsSubsequence("outer[1].next_row", "outer[1].inner", "outer[1].inner[1].cell",
        "outer[1].inner[3].cell", "outer[2].next_row", "outer[2].inner[3].cell");
  }

  @Test
  void innerWhileLoopExhaustingItsBoundFailsTheOuterLoopWithTheInnerPath() {
    String yaml = """
        name: inner-exhausted
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
                max_iterations: 2
                condition: "state.j < state.i"
                body:
                  - name: cell
                    run: |
                      return { j = state.j + 1 }
        """;
    LoopTests.Run run = LoopTests.run(engine, yaml, Map.of("i", 0, "j", 0));

    assertThat(run.result().status()).isEqualTo(RunStatus.FAILED);
    assertThat(run.result().error().code()).isEqualTo("max_iterations_exceeded");
    assertThat(run.result().error().message()).contains("while_loop 'inner' exceeded max_iterations (2)");
    assertThat(run.result().error().path()).isEqualTo("outer[3].inner");
    assertThat(run.node("outer")).containsEntry("exit_reason", "error");
  }

  @Test
  void iteratorWhoseBodyIsAWhileLoopRunsTheLoopOncePerItem() {
    String yaml = """
        name: iterate-while
        nodes:
          - id: each
            type: iterator
            items: "{{ input.targets }}"
          - id: reset
            run: |
              return { n = 0, target = loop.item }
          - id: count_up
            type: while_loop
            max_iterations: 10
            condition: "state.n < state.target"
            body:
              - id: bump
                run: |
                  return { n = state.n + 1 }
          - id: summary
            type: transform
            template: "{{ loop.item }}:{{ count_up.count }}:{{ state.n }}"
          - id: collect
            type: aggregator
        edges:
          - {from: each, to: reset}
          - {from: reset, to: count_up}
          - {from: count_up, to: summary}
          - {from: summary, to: collect}
        """;
    LoopTests.Run run = LoopTests.run(engine, yaml, Map.of("targets", List.of(2, 0, 3)));

    assertThat(run.result().error()).isNull();
    assertThat(run.node("collect")).containsEntry("output", List.of("2:2:2", "0:0:0", "3:3:3"));
    assertThat(run.started()).contains("each[1].count_up[2].bump", "each[3].count_up[3].bump")
        .doesNotContain("each[2].count_up[1].bump");
    assertThat(run.starts("bump")).isEqualTo(5);
  }

  @Test
  void whileLoopInsideALoopNodeBodyRunsOnEveryRefinementPass() {
    String yaml = """
        name: while-in-loop
        nodes:
          - id: refine
            type: loop
            input: ""
            maxIterations: 3
          - id: aim
            run: |
              return { target = loop.iteration * 2 }
          - id: grow
            type: while_loop
            max_iterations: 10
            condition: "state.len < state.target"
            body:
              - id: add
                run: |
                  return { len = state.len + 1 }
          - id: draft
            type: transform
            template: "{{ loop.input }}{{ state.len }}"
          - id: refine_exit
            type: exit
        edges:
          - {from: refine, to: aim}
          - {from: aim, to: grow}
          - {from: grow, to: draft}
          - {from: draft, to: refine_exit}
        """;
    LoopTests.Run run = LoopTests.run(engine, yaml, Map.of("len", 0));

    assertThat(run.result().error()).isNull();
    assertThat(run.node("refine")).containsEntry("iterations", List.of("2", "24", "246"));
    assertThat(run.starts("add")).isEqualTo(6);
  }

  @Test
  void maxStepsStopsRunawayNestedLoopsWithAClearError() {
    String yaml = """
        name: runaway
        limits:
          max_steps: 30
        nodes:
          - name: outer
            type: while_loop
            max_iterations: 1000
            condition: "true"
            body:
              - name: reset
                run: |
                  return { j = 0 }
              - name: inner
                type: while_loop
                max_iterations: 1000
                condition: "state.j < 1000"
                body:
                  - name: step
                    run: |
                      return { j = state.j + 1 }
        """;
    LoopTests.Run run = LoopTests.run(engine, yaml, Map.of());

    assertThat(run.result().status()).isEqualTo(RunStatus.FAILED);
    assertThat(run.result().error().code()).isEqualTo("max_steps_exceeded");
    assertThat(run.result().error().message()).contains("max_steps", "30");
    assertThat(run.events(Event.NodeStarted.class)).hasSize(30);
    assertThat(run.result().error().path()).startsWith("outer[1].inner[");
  }

  @Test
  void maxStepsCountsEveryNodeExecutionIncludingTheLoopsThemselves() {
    // outer + 2 × (reset + inner + 3 × step) = 11 node executions
    String yaml = """
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
        """;
    LoopTests.Run enough = LoopTests.run(engine, yaml.formatted(11), Map.of("i", 0, "j", 0));
    LoopTests.Run oneShort = LoopTests.run(engine, yaml.formatted(10), Map.of("i", 0, "j", 0));

    assertThat(enough.result().error()).isNull();
    assertThat(enough.result().status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(enough.started()).hasSize(11);
    assertThat(oneShort.result().status()).isEqualTo(RunStatus.FAILED);
    assertThat(oneShort.result().error().code()).isEqualTo("max_steps_exceeded");
    assertThat(oneShort.result().error().path()).isEqualTo("outer[2].inner[3].step");
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
  void loopEdgeRegionInsideALoopNodeBodyRunsOnEveryRefinementPass() {
    String yaml = """
        name: edge-in-loop
        nodes:
          - id: refine
            type: loop
            input: "d"
            maxIterations: 2
          - id: draft
            run: |
              return { tries = 0 }
          - id: check
            run: |
              return { tries = state.tries + 1 }
          - id: summary
            type: transform
            template: "pass {{ loop.iteration }} checked {{ state.tries }} times"
          - id: refine_exit
            type: exit
        edges:
          - {from: refine, to: draft}
          - {from: draft, to: check}
          - {from: check, to: summary}
          - {from: summary, to: refine_exit}
          - {from: check, to: check, type: loop, maxIterations: 5, when: "state.tries < 2"}
        """;
    LoopTests.Run run = LoopTests.run(engine, yaml, Map.of());

    assertThat(run.result().error()).isNull();
    assertThat(run.node("refine")).containsEntry("iterations", List.of("pass 1 checked 2 times",
        "pass 2 checked 2 times"));
    assertThat(run.started()).containsSubsequence("refine[1].draft", "refine[1].check->check[1].check",
        "refine[1].check->check[2].check", "refine[1].summary", "refine[2].draft", "refine[2].check->check[2].check");
  }
}
