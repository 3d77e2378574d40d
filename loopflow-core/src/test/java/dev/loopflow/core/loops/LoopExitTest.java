package dev.loopflow.core.loops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.run.RunStatus;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Seed 000's {@code loop} + {@code exit} in graph form (SPEC §5): the three exit conditions, the two feedback
 * modes, the 1..50 bound and the loop/exit pairing rules.
 */
class LoopExitTest {
  private final Loopflow engine = Loopflow.create();

  /** loop → draft → exit → after, where draft renders {@code bodyTemplate} and the loop carries {@code config}. */
  private static String refine(String config, String bodyTemplate) {
    return """
        name: refine
        nodes:
          - id: refine
            type: loop
            CONFIG
          - id: draft
            type: transform
            template: "BODY"
          - id: refine_exit
            type: exit
          - id: after
            type: transform
            template: "after {{ refine.output }}"
        edges:
          - {from: refine, to: draft}
          - {from: draft, to: refine_exit}
          - {from: refine_exit, to: after}
        """.replace("CONFIG", config.replace("\n", "\n    ")).replace("BODY", bodyTemplate);
  }

  /** A pass's output is the item of {@code input.outputs} at its (1-based) iteration. */
  private static final String SCRIPTED = "{{ input.outputs[loop.iteration - 1] }}";

  // --- exitCondition: max_iterations ---------------------------------------------------------------------------

  @Test
  void maxIterationsModeRunsExactlyMaxPassesFeedingEachOutputIntoTheNextPass() {
    LoopTests.Run run = LoopTests.run(engine,
        refine("input: \"{{ input.seed }}\"\nmaxIterations: 3\nexitCondition: max_iterations", "{{ loop.input }}+"),
        Map.of("seed", "s"));

    assertThat(run.result().error()).isNull();
    assertThat(run.result().status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(run.node("refine"))
        .containsEntry("output", "s+++")
        .containsEntry("iterations", List.of("s+", "s++", "s+++"))
        .containsEntry("count", 3)
        .containsEntry("exit_reason", "max_iterations");
    assertThat(run.started()).containsExactly("refine", "refine[1].draft", "refine[2].draft", "refine[3].draft",
        "refine_exit", "after");
    assertThat(run.result().output()).isEqualTo("after s+++");
  }

  @Test
  void exitNodeResultEqualsTheLoopResult() {
    LoopTests.Run run = LoopTests.run(engine,
        refine("input: \"{{ input.seed }}\"\nmaxIterations: 2", "{{ loop.input }}+"), Map.of("seed", "s"));

    Map<String, Object> loop = run.node("refine");
    Map<String, Object> exit = run.node("refine_exit");
    for (String key : List.of("output", "iterations", "count", "exit_reason")) {
      assertThat(exit.get(key)).as(key).isEqualTo(loop.get(key));
    }
  }

  @Test
  void loopWithoutMaxIterationsRunsFivePassesByDefault() {
    LoopTests.Run run = LoopTests.run(engine, refine("input: \"x\"", "{{ loop.input }}."), Map.of());

    assertThat(run.result().error()).isNull();
    assertThat(run.node("refine")).containsEntry("count", 5).containsEntry("output", "x.....");
  }

  @Test
  void firstPassInputDefaultsToTheOutputOfTheNodeFeedingTheLoop() {
    String yaml = """
        name: fed
        nodes:
          - id: prep
            type: transform
            template: "prepared"
          - id: refine
            type: loop
            maxIterations: 2
          - id: draft
            type: transform
            template: "{{ loop.input }}!"
          - id: refine_exit
            type: exit
        edges:
          - {from: prep, to: refine}
          - {from: refine, to: draft}
          - {from: draft, to: refine_exit}
        """;
    LoopTests.Run run = LoopTests.run(engine, yaml, Map.of());

    assertThat(run.result().error()).isNull();
    assertThat(run.node("refine")).containsEntry("iterations", List.of("prepared!", "prepared!!"));
  }

  @Test
  void loopIterationEventsCarryTheInputOfEachPass() {
    LoopTests.Run run = LoopTests.run(engine,
        refine("input: \"seed\"\nmaxIterations: 3", "{{ loop.input }}+"), Map.of());

    assertThat(run.events(Event.LoopStarted.class)).singleElement().satisfies(e -> {
      assertThat(e.construct()).isEqualTo("loop");
      assertThat(e.max()).isEqualTo(3);
    });
    assertThat(run.events(Event.LoopIteration.class))
        .extracting(Event.LoopIteration::iteration, Event.LoopIteration::index, Event.LoopIteration::total,
            Event.LoopIteration::inputPreview)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(1, 0, 3, "seed"),
            org.assertj.core.groups.Tuple.tuple(2, 1, 3, "seed+"),
            org.assertj.core.groups.Tuple.tuple(3, 2, 3, "seed++"));
    assertThat(run.events(Event.LoopCompleted.class)).singleElement().satisfies(e -> {
      assertThat(e.iterationsRun()).isEqualTo(3);
      assertThat(e.exitReason()).isEqualTo("max_iterations");
    });
  }

  @Test
  void bodySeesThePreviousPassOutputsAsLoopPrev() {
    LoopTests.Run run = LoopTests.run(engine,
        refine("input: \"x\"\nmaxIterations: 3", "{{ loop.iteration }}<{{ loop.prev.draft.output }}>"), Map.of());

    assertThat(run.result().error()).isNull();
    assertThat(run.node("refine")).containsEntry("iterations", List.of("1<>", "2<1<>>", "3<2<1<>>>"));
  }

  // --- feedbackMode ----------------------------------------------------------------------------------------------

  @Test
  void replaceFeedbackMakesEachOutputTheNextPassInput() {
    LoopTests.Run run = LoopTests.run(engine,
        refine("input: \"a\"\nmaxIterations: 3\nfeedbackMode: replace", "[{{ loop.input }}]"), Map.of());

    assertThat(run.node("refine")).containsEntry("iterations", List.of("[a]", "[[a]]", "[[[a]]]"));
  }

  @Test
  void appendFeedbackAppendsEachOutputToTheInputAfterASeparator() {
    LoopTests.Run run = LoopTests.run(engine,
        refine("input: \"a\"\nmaxIterations: 3\nfeedbackMode: append", "[{{ loop.input }}]"), Map.of());

    String in1 = "a";
    String out1 = "[" + in1 + "]";
    String in2 = in1 + "\n---\n" + out1;
    String out2 = "[" + in2 + "]";
    String in3 = in2 + "\n---\n" + out2;
    String out3 = "[" + in3 + "]";
    assertThat(run.result().error()).isNull();
    assertThat(run.node("refine"))
        .containsEntry("iterations", List.of(out1, out2, out3))
        .containsEntry("output", out3);
    assertThat(run.events(Event.LoopIteration.class)).extracting(Event.LoopIteration::inputPreview)
        .first().isEqualTo("a");
  }

  @Test
  void appendFeedbackOnANonStringInputFailsTheRun() {
    LoopTests.Run run = LoopTests.run(engine,
        refine("input: \"{{ input.doc }}\"\nmaxIterations: 3\nfeedback_mode: append", "text"),
        Map.of("doc", Map.of("title", "x")));

    assertThat(run.result().status()).isEqualTo(RunStatus.FAILED);
    assertThat(run.result().error().node()).isEqualTo("refine");
    assertThat(run.result().error().message()).contains("append").contains("text");
    assertThat(run.node("refine")).containsEntry("status", "failed");
    assertThat(run.node("after").get("status")).isNotEqualTo("completed");
  }

  @Test
  void replaceFeedbackCarriesStructuredValuesUnchanged() {
    LoopTests.Run run = LoopTests.run(engine,
        refine("input: \"{{ input.doc }}\"\nmaxIterations: 2", "{{ loop.input }}"),
        Map.of("doc", Map.of("title", "x")));

    assertThat(run.result().error()).isNull();
    assertThat(run.node("refine")).containsEntry("output", Map.of("title", "x"));
  }

  // --- exitCondition: stable_output ----------------------------------------------------------------------------

  private static final String BASE = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ";

  @Test
  void stableOutputStopsOnceConsecutiveOutputsAreNearlyIdentical() {
    // 40-character outputs: 3 differing characters = 0.925 (goes on), 2 = 0.95 (the default threshold: stops)
    List<String> outputs = List.of("rough draft", BASE + "0000", BASE + "0111", BASE + "0100", "never", "never");
    LoopTests.Run run = LoopTests.run(engine,
        refine("input: \"start\"\nmaxIterations: 6\nexitCondition: stable_output", SCRIPTED),
        Map.of("outputs", outputs));

    assertThat(run.result().error()).isNull();
    assertThat(run.node("refine"))
        .containsEntry("count", 4)
        .containsEntry("exit_reason", "stable_output")
        .containsEntry("output", BASE + "0100");
    assertThat(run.result().output()).isEqualTo("after " + BASE + "0100");
  }

  @Test
  void stableOutputComparesStructuredOutputsAsJsonWithSortedKeys() {
    List<Object> outputs = List.of(Map.of("v", 0), orderedMap("b", 1, "a", List.of(1, 2)),
        orderedMap("a", List.of(1, 2), "b", 1), "never");
    LoopTests.Run run = LoopTests.run(engine,
        refine("input: \"start\"\nmaxIterations: 4\nexitCondition: stable_output\nstabilityThreshold: 1.0",
            SCRIPTED),
        Map.of("outputs", outputs));

    assertThat(run.result().error()).isNull();
    assertThat(run.node("refine")).containsEntry("count", 3).containsEntry("exit_reason", "stable_output");
  }

  @Test
  void stableOutputWithAStricterThresholdKeepsGoingOnNearlyIdenticalOutputs() {
    List<String> outputs = List.of(BASE + "0000", BASE + "0001", BASE + "0011", BASE + "0111");
    LoopTests.Run run = LoopTests.run(engine,
        refine("input: \"start\"\nmax_iterations: 4\nexit_condition: stable_output\nstability_threshold: 0.99",
            SCRIPTED),
        Map.of("outputs", outputs));

    assertThat(run.result().error()).isNull();
    assertThat(run.result().status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(run.node("refine")).containsEntry("count", 4).containsEntry("exit_reason", "max_iterations");
  }

  // --- exitCondition: evaluator --------------------------------------------------------------------------------

  /** loop → draft → judge (router) →done→ exit; continue has no edge, so its value feeds the next pass. */
  private static String evaluator(String config, String doneWhen) {
    return """
        name: evaluator
        nodes:
          - id: refine
            type: loop
            input: "a"
            exitCondition: evaluator
            CONFIG
          - id: draft
            type: transform
            template: "{{ loop.input }}+"
          - id: judge
            type: router
            routes:
              done: "DONE_WHEN"
              continue: default
            value: "{{ draft.output }}!"
          - id: refine_exit
            type: exit
          - id: after
            type: transform
            template: "after {{ refine_exit.output }}"
        edges:
          - {from: refine, to: draft}
          - {from: draft, to: judge}
          - {from: judge, to: refine_exit, branch: done}
          - {from: refine_exit, to: after}
        """.replace("CONFIG", config.replace("\n", "\n    ")).replace("DONE_WHEN", doneWhen);
  }

  @Test
  void evaluatorDoneEndsTheLoopWithTheValueReachingExit() {
    LoopTests.Run run = LoopTests.run(engine, evaluator("maxIterations: 5", "loop.iteration == 3"), Map.of());

    assertThat(run.result().error()).isNull();
    assertThat(run.node("refine"))
        .containsEntry("count", 3)
        .containsEntry("exit_reason", "evaluator_done")
        .containsEntry("output", "a+!+!+!");
    assertThat(run.node("refine_exit")).containsEntry("output", "a+!+!+!");
    assertThat(run.result().output()).isEqualTo("after a+!+!+!");
  }

  @Test
  void evaluatorContinueFeedsTheRouterValueIntoTheNextPass() {
    LoopTests.Run run = LoopTests.run(engine, evaluator("maxIterations: 5", "loop.iteration == 3"), Map.of());

    assertThat(run.events(Event.LoopIteration.class)).extracting(Event.LoopIteration::inputPreview)
        .containsExactly("a", "a+!", "a+!+!");
    assertThat(run.events(Event.RouterSelected.class))
        .extracting(e -> e.node().path() + "=" + e.branch())
        .containsExactly("refine[1].judge=continue", "refine[2].judge=continue", "refine[3].judge=done");
  }

  @Test
  void evaluatorThatChoosesDoneOnTheFirstPassRunsOnce() {
    LoopTests.Run run = LoopTests.run(engine, evaluator("maxIterations: 5", "true"), Map.of());

    assertThat(run.node("refine")).containsEntry("count", 1).containsEntry("exit_reason", "evaluator_done")
        .containsEntry("output", "a+!");
  }

  @Test
  void evaluatorThatNeverChoosesDoneStopsAtTheBoundAndContinuesByDefault() {
    LoopTests.Run run = LoopTests.run(engine, evaluator("maxIterations: 2", "false"), Map.of());

    assertThat(run.result().error()).isNull();
    assertThat(run.result().status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(run.node("refine")).containsEntry("count", 2).containsEntry("exit_reason", "max_iterations");
    assertThat(run.node("after")).containsEntry("status", "completed");
  }

  @Test
  void evaluatorThatNeverChoosesDoneFailsWithMaxIterationsExceededWhenOnExhaustedIsFail() {
    LoopTests.Run run = LoopTests.run(engine, evaluator("maxIterations: 2\non_exhausted: fail", "false"), Map.of());

    assertThat(run.result().status()).isEqualTo(RunStatus.FAILED);
    assertThat(run.result().error().code()).isEqualTo("max_iterations_exceeded");
    assertThat(run.result().error().node()).isEqualTo("refine");
    assertThat(run.starts("draft")).isEqualTo(2);
    assertThat(run.node("after").get("status")).isNotEqualTo("completed");
  }

  @Test
  void continueBranchNodeRunsInsideThePassAndFeedsTheNextPass() {
    String yaml = """
        name: agentic
        nodes:
          - id: refine
            type: loop
            input: "a"
            maxIterations: 5
            exitCondition: evaluator
          - id: draft
            type: transform
            template: "{{ loop.input }}+"
          - id: judge
            type: router
            routes:
              done: "loop.iteration == 3"
              continue: default
            value: "{{ draft.output }}"
          - id: whats_missing
            type: transform
            template: "{{ judge.value }}?"
          - id: refine_exit
            type: exit
        edges:
          - {from: refine, to: draft}
          - {from: draft, to: judge}
          - {from: judge, to: refine_exit, branch: done}
          - {from: judge, to: whats_missing, branch: continue}
        """;
    LoopTests.Run run = LoopTests.run(engine, yaml, Map.of());

    assertThat(run.result().error()).isNull();
    assertThat(run.started()).contains("refine[1].whats_missing", "refine[2].whats_missing")
        .doesNotContain("whats_missing", "refine[3].whats_missing");
    assertThat(run.events(Event.LoopIteration.class)).extracting(Event.LoopIteration::inputPreview)
        .containsExactly("a", "a+?", "a+?+?");
    assertThat(run.node("refine")).containsEntry("output", "a+?+?+").containsEntry("exit_reason", "evaluator_done");
  }

  // --- bound and configuration ---------------------------------------------------------------------------------

  @ParameterizedTest(name = "maxIterations {0}")
  @ValueSource(ints = {0, 51})
  void loopMaxIterationsOutsideOneToFiftyIsALoadError(int max) {
    assertThat(LoopTests.problems(engine, refine("maxIterations: " + max, "x")))
        .contains("t.yaml:5:20: nodes.refine.maxIterations: 'maxIterations' must be between 1 and 50, found " + max);
  }

  @Test
  void loopMaxIterationsFiftyIsAccepted() {
    LoopTests.Run run = LoopTests.run(engine, refine("input: \"\"\nmax_iterations: 50", "n{{ loop.iteration }}"),
        Map.of());

    assertThat(run.result().error()).isNull();
    assertThat(run.node("refine")).containsEntry("count", 50).containsEntry("output", "n50");
  }

  @Test
  void loopWithAnOutOfRangeBoundReportsOnlyTheBound() {
    assertThat(LoopTests.problems(engine, refine("maxIterations: 51", "x")))
        .containsExactly("t.yaml:5:20: nodes.refine.maxIterations: 'maxIterations' must be between 1 and 50, "
            + "found 51");
  }

  @Test
  void unknownExitConditionAndFeedbackModeAreLoadErrorsNamingTheChoices() {
    List<String> problems = LoopTests.problems(engine,
        refine("exitCondition: stable\nfeedbackMode: prepend\nstabilityThreshold: 1.5", "x"));

    assertThat(problems).contains(
        "t.yaml:5:20: nodes.refine.exitCondition: unknown exitCondition 'stable'; expected one of "
            + "[evaluator, max_iterations, stable_output]",
        "t.yaml:6:19: nodes.refine.feedbackMode: unknown feedbackMode 'prepend'; expected one of "
            + "[append, replace] (did you mean 'append'?)",
        "t.yaml:7:25: nodes.refine.stabilityThreshold: 'stabilityThreshold' must be between 0 and 1, found 1.5");
  }

  @Test
  void camelCaseAndSnakeCaseOfTheSameFieldTogetherAreALoadError() {
    assertThat(LoopTests.problems(engine, refine("maxIterations: 3\nmax_iterations: 4", "x")))
        .anySatisfy(p -> assertThat(p).startsWith("t.yaml:").contains("maxIterations").contains("max_iterations"));
  }

  // --- pairing -------------------------------------------------------------------------------------------------

  @Test
  void exitWithoutALoopIsALoadError() {
    assertThat(LoopTests.problems(engine, """
        name: exit-alone
        nodes:
          - id: draft
            type: transform
            template: "x"
          - id: stray_exit
            type: exit
        edges:
          - {from: draft, to: stray_exit}
        """)).containsExactly("t.yaml:6:5: nodes.stray_exit: exit 'stray_exit' has no paired loop node upstream of it");
  }

  @Test
  void loopWithoutAnExitIsALoadError() {
    assertThat(LoopTests.problems(engine, """
        name: loop-alone
        nodes:
          - id: refine
            type: loop
            maxIterations: 3
          - id: draft
            type: transform
            template: "x"
        edges:
          - {from: refine, to: draft}
        """)).singleElement().asString().startsWith("t.yaml:3:5: nodes.refine: ").contains("exit");
  }

  @Test
  void loopReachingTwoExitsIsALoadError() {
    assertThat(LoopTests.problems(engine, """
        name: two-exits
        nodes:
          - id: refine
            type: loop
            maxIterations: 3
          - id: draft
            type: transform
            template: "x"
          - id: exit_a
            type: exit
          - id: exit_b
            type: exit
        edges:
          - {from: refine, to: draft}
          - {from: draft, to: exit_a}
          - {from: draft, to: exit_b}
        """)).contains("t.yaml:3:5: nodes.refine: loop 'refine' reaches several exit nodes [exit_a, exit_b]; it needs "
        + "exactly one");
  }

  @Test
  void loopReachingTwoExitsReportsOnlyThatProblem() {
    assertThat(LoopTests.problems(engine, """
        name: two-exits
        nodes:
          - id: refine
            type: loop
            maxIterations: 3
          - id: draft
            type: transform
            template: "x"
          - id: exit_a
            type: exit
          - id: exit_b
            type: exit
        edges:
          - {from: refine, to: draft}
          - {from: draft, to: exit_a}
          - {from: draft, to: exit_b}
        """)).containsExactly("t.yaml:3:5: nodes.refine: loop 'refine' reaches several exit nodes [exit_a, exit_b]; "
        + "it needs exactly one");
  }

  private static Map<String, Object> orderedMap(String k1, Object v1, String k2, Object v2) {
    Map<String, Object> m = new java.util.LinkedHashMap<>();
    m.put(k1, v1);
    m.put(k2, v2);
    return m;
  }
}
