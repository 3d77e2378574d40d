package dev.loopflow.llm.loops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * EDGE H: a loop_group inside a loop_group body. Each pass of each level has its own position
 * ({@code outer[2].inner[1].work}), the inner loop restarts its counter and loop.prev on every outer pass,
 * the inner result is readable in the outer body, and failures, pauses and spending propagate outwards.
 */
class LoopGroupNestingTest {
  static final String NESTED = """
      nodes:
        - id: outer
          loop_group:
            max_iterations: 2
            nodes:
              - id: inner
                loop_group:
                  max_iterations: 3
                  until: DONE
                  nodes:
                    - id: work
                      type: transform
                      template: "o{{ loop.parent.iteration }}i{{ loop.iteration }} prev=[$LOOP_PREV.work.output]"
                    - id: judge
                      depends_on: [work]
                      type: transform
                      template: "{% if loop.iteration == 2 %}DONE{% else %}{{ work.output }}{% endif %}"
              - id: report
                depends_on: [inner]
                type: transform
                template: "pass {{ loop.iteration }}: {{ inner.output }} after {{ inner.count }} (outer prev=[$LOOP_PREV.report.output])"
      """;

  @Test
  void everyNestedPassHasItsOwnPosition() {
    LoopRuns runs = new LoopRuns();
    RunResult r = runs.run(NESTED);

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(runs.completed()).containsExactly(
        "outer[1].inner[1].work", "outer[1].inner[1].judge",
        "outer[1].inner[2].work", "outer[1].inner[2].judge",
        "outer[1].inner", "outer[1].report",
        "outer[2].inner[1].work", "outer[2].inner[1].judge",
        "outer[2].inner[2].work", "outer[2].inner[2].judge",
        "outer[2].inner", "outer[2].report",
        "outer");
    assertThat(runs.all(Event.NodeStarted.class)).filteredOn(e -> e.node().path().equals("outer[2].inner[1].work"))
        .singleElement().satisfies(e -> assertThat(e.node().loops())
            .extracting(f -> f.loopId() + "#" + f.iteration()).containsExactly("outer#2", "inner#1"));
    assertThat(runs.all(Event.LoopStarted.class)).extracting(e -> e.node().path())
        .containsExactly("outer", "outer[1].inner", "outer[2].inner");
    assertThat(runs.all(Event.LoopCompleted.class)).extracting(e -> e.node().path() + ":" + e.exitReason())
        .containsExactly("outer[1].inner:signal", "outer[2].inner:signal", "outer:max_iterations");
  }

  @Test
  void innerLoopSeesTheOuterIterationAndRestartsItsCounterAndPrevEveryOuterPass() {
    LoopRuns runs = new LoopRuns();
    runs.run(NESTED);

    assertThat(runs.preview("outer[1].inner[1].work")).isEqualTo("o1i1 prev=[]");
    assertThat(runs.preview("outer[1].inner[2].work")).isEqualTo("o1i2 prev=[o1i1 prev=[]]");
    assertThat(runs.preview("outer[2].inner[1].work")).isEqualTo("o2i1 prev=[]");
    assertThat(runs.preview("outer[2].inner[2].work")).isEqualTo("o2i2 prev=[o2i1 prev=[]]");
  }

  @Test
  void innerResultIsReadableInTheOuterBodyAndOuterPrevSeesTheLastOuterPass() {
    RunResult r = new LoopRuns().run(NESTED);

    assertThat(r.nodes().get("outer")).containsEntry("count", 2).containsEntry("exit_reason", "max_iterations");
    assertThat(r.nodes().get("outer").get("iterations")).isEqualTo(List.of(
        "pass 1: DONE after 2 (outer prev=[])",
        "pass 2: DONE after 2 (outer prev=[pass 1: DONE after 2 (outer prev=[])])"));
  }

  @Test
  void innerExhaustionFailsTheOuterLoopAtOnce() {
    LoopRuns runs = new LoopRuns();
    RunResult r = runs.run("""
        nodes:
          - id: outer
            loop_group:
              max_iterations: 3
              nodes:
                - id: inner
                  loop_group:
                    max_iterations: 2
                    until: DONE
                    nodes:
                      - id: work
                        type: transform
                        template: "never"
        """);
    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("max_iterations_exceeded");
    assertThat(r.error().path()).isEqualTo("outer[1].inner");
    assertThat(r.nodes().get("outer")).containsEntry("status", "failed").containsEntry("exit_reason", "error")
        .containsEntry("count", 1);
    assertThat(runs.started()).noneMatch(p -> p.startsWith("outer[2]"));
  }

  @Test
  void innerOnExhaustedContinueLetsTheOuterLoopGoOn() {
    RunResult r = new LoopRuns().run("""
        nodes:
          - id: outer
            loop_group:
              max_iterations: 2
              nodes:
                - id: inner
                  loop_group:
                    max_iterations: 2
                    until: DONE
                    on_exhausted: continue
                    nodes:
                      - id: work
                        type: transform
                        template: "o{{ loop.parent.iteration }}i{{ loop.iteration }}"
        """);
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.nodes().get("outer").get("iterations")).isEqualTo(List.of("o1i2", "o2i2"));
  }

  @Test
  void anInnerSignalDoesNotEndTheOuterLoop() {
    LoopRuns runs = new LoopRuns();
    RunResult r = runs.run("""
        defaults: {model: "openai:gpt-4o-mini"}
        mock: {responses: ["DONE"]}
        nodes:
          - id: outer
            loop_group:
              max_iterations: 3
              until: FINISHED
              nodes:
                - id: inner
                  loop_group:
                    max_iterations: 2
                    until: DONE
                    nodes:
                      - id: work
                        prompt: "go"
                - id: gate
                  depends_on: [inner]
                  type: transform
                  template: "{% if loop.iteration == 3 %}FINISHED{% else %}{{ inner.output }}{% endif %}"
        """);
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.nodes().get("outer")).containsEntry("count", 3).containsEntry("exit_reason", "signal")
        .containsEntry("output", "FINISHED");
    assertThat(runs.llmCalls()).containsExactly("outer[1].inner[1].work", "outer[2].inner[1].work",
        "outer[3].inner[1].work");
  }

  @Test
  void usageOfInnerPassesAddsUpThroughEveryLevel() {
    RunResult r = new LoopRuns().run("""
        defaults: {model: "openai:gpt-4o-mini"}
        mock: {responses: [{text: "x", input_tokens: 7, output_tokens: 3}]}
        nodes:
          - id: outer
            loop_group:
              max_iterations: 2
              nodes:
                - id: inner
                  loop_group:
                    max_iterations: 3
                    nodes:
                      - id: work
                        prompt: "go"
                - id: read
                  depends_on: [inner]
                  type: transform
                  template: "{{ inner.usage.llm_calls }}"
        """);
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(LoopRuns.usageOf(r, "outer")).containsEntry("llm_calls", 6).containsEntry("input_tokens", 42L)
        .containsEntry("output_tokens", 18L);
    assertThat(r.usage().llmCalls()).isEqualTo(6);
    assertThat(r.usage().inputTokens()).isEqualTo(42);
    assertThat(r.nodes().get("outer").get("iterations")).isEqualTo(List.of(3, 3));
  }

  @Test
  void anOuterLoopBudgetStopsCallsMadeByTheInnerLoop() {
    LoopRuns runs = new LoopRuns();
    RunResult r = runs.run("""
        defaults: {model: "openai:gpt-4o-mini"}
        mock: {responses: ["x"]}
        nodes:
          - id: outer
            loop_group:
              max_iterations: 3
              budget: {max_llm_calls: 4}
              nodes:
                - id: inner
                  loop_group:
                    max_iterations: 3
                    nodes:
                      - id: work
                        prompt: "go"
        """);
    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("budget_exceeded");
    assertThat(r.error().path()).isEqualTo("outer[2].inner[2].work");
    assertThat(runs.llmCalls()).hasSize(4);
    assertThat(r.nodes().get("outer")).containsEntry("exit_reason", "budget");
    assertThat(runs.all(Event.LoopCompleted.class)).extracting(e -> e.node().path() + ":" + e.exitReason())
        .containsExactly("outer[1].inner:max_iterations", "outer[2].inner:budget", "outer:budget");
  }

  @Test
  void anInteractiveInnerGroupPausesAtItsNestedGateAndResumes() {
    LoopRuns runs = new LoopRuns();
    Workflow wf = runs.parse("""
        nodes:
          - id: outer
            loop_group:
              max_iterations: 2
              nodes:
                - id: inner
                  loop_group:
                    max_iterations: 2
                    interactive: true
                    gate_message: "outer {{ loop.parent.iteration }} inner {{ loop.iteration }}?"
                    nodes:
                      - id: work
                        type: transform
                        template: "o{{ loop.parent.iteration }}i{{ loop.iteration }} input=[$LOOP_USER_INPUT]"
        """);
    RunResult p1 = runs.run(wf);
    assertThat(p1.status()).as(String.valueOf(p1.error())).isEqualTo(RunStatus.PAUSED);
    assertThat(p1.waiting().path()).isEqualTo("outer[1].inner[1].gate");
    assertThat(p1.waiting().message()).isEqualTo("outer 1 inner 1?");

    RunResult p2 = runs.resume(wf, p1, "a");
    assertThat(p2.status()).as(String.valueOf(p2.error())).isEqualTo(RunStatus.PAUSED);
    assertThat(p2.waiting().path()).isEqualTo("outer[2].inner[1].gate");

    RunResult r = runs.resume(wf, p2, "b");
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.nodes().get("outer").get("iterations")).isEqualTo(List.of("o1i2 input=[a]", "o2i2 input=[b]"));
    assertThat(runs.completed()).containsOnlyOnce("outer[1].inner[1].work", "outer[1].inner[2].work",
        "outer[2].inner[1].work", "outer[2].inner[2].work");
  }

  @Test
  void maxStepsStopsRunawayNestingWithAClearError() {
    LoopRuns runs = new LoopRuns();
    RunResult r = runs.run("""
        limits: {max_steps: 25}
        nodes:
          - id: outer
            loop_group:
              max_iterations: 1000
              nodes:
                - id: inner
                  loop_group:
                    max_iterations: 1000
                    nodes:
                      - id: work
                        type: transform
                        template: "x"
        """);
    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("max_steps_exceeded");
    assertThat(r.error().message()).contains("limits.max_steps (25)");
    assertThat(runs.started().size()).isLessThanOrEqualTo(26);
  }
}
