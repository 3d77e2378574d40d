package dev.loopflow.core.loops;

import static dev.loopflow.core.loops.LoopTests.exactly;
import static dev.loopflow.core.loops.LoopTests.including;
import static dev.loopflow.core.loops.LoopTests.onlyOne;
import static dev.loopflow.core.loops.LoopTests.rejected;
import static dev.loopflow.core.loops.LoopTests.resource;
import static dev.loopflow.core.loops.LoopTests.row;
import static dev.loopflow.core.loops.LoopTests.someOne;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.loops.LoopTests.Expect;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The {@code loop} node and its paired {@code exit}, in graph form: the three exit conditions, the two feedback
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

  /** 40-character outputs: 3 differing characters are 0.925 alike, 2 are 0.95 (the default threshold). */
  private static final String BASE = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ";

  static Stream<Arguments> runs() {
    return Stream.of(
        row("maxIterationsModeRunsExactlyMaxPassesFeedingEachOutputIntoTheNextPass",
            refine("input: \"{{ input.seed }}\"\nmaxIterations: 3\nexitCondition: max_iterations", "{{ loop.input }}+"),
            Map.of("seed", "s"),
            Expect.completed()
                .node("refine", "output", "s+++", "iterations", List.of("s+", "s++", "s+++"), "count", 3,
                    "exit_reason", "max_iterations")
                .started("refine", "refine[1].draft", "refine[2].draft", "refine[3].draft", "refine_exit", "after")
                .output("after s+++")),
        row("loopWithoutMaxIterationsRunsFivePassesByDefault", refine("input: \"x\"", "{{ loop.input }}."), Map.of(),
            Expect.completed().node("refine", "count", 5, "output", "x.....")),
        row("firstPassInputDefaultsToTheOutputOfTheNodeFeedingTheLoop", resource("refine/fed.yaml"), Map.of(),
            Expect.completed().node("refine", "iterations", List.of("prepared!", "prepared!!"))),
        row("bodySeesThePreviousPassOutputsAsLoopPrev",
            refine("input: \"x\"\nmaxIterations: 3", "{{ loop.iteration }}<{{ loop.prev.draft.output }}>"), Map.of(),
            Expect.completed().node("refine", "iterations", List.of("1<>", "2<1<>>", "3<2<1<>>>"))),
        row("replaceFeedbackMakesEachOutputTheNextPassInput",
            refine("input: \"a\"\nmaxIterations: 3\nfeedbackMode: replace", "[{{ loop.input }}]"), Map.of(),
            Expect.completed().node("refine", "iterations", List.of("[a]", "[[a]]", "[[[a]]]"))),
        row("appendFeedbackOnANonStringInputFailsTheRun",
            refine("input: \"{{ input.doc }}\"\nmaxIterations: 3\nfeedback_mode: append", "text"),
            Map.of("doc", Map.of("title", "x")),
            Expect.failed().errorNode("refine").errorSays("append", "text").node("refine", "status", "failed")
                .notCompleted("after")),
        row("replaceFeedbackCarriesStructuredValuesUnchanged",
            refine("input: \"{{ input.doc }}\"\nmaxIterations: 2", "{{ loop.input }}"),
            Map.of("doc", Map.of("title", "x")),
            Expect.completed().node("refine", "output", Map.of("title", "x"))),
        // --- exitCondition: stable_output
        row("stableOutputStopsOnceConsecutiveOutputsAreNearlyIdentical",
            refine("input: \"start\"\nmaxIterations: 6\nexitCondition: stable_output", SCRIPTED),
            // 40 characters: 3 edits (0.925) is not stable, 1 edit (0.975) is above the default 0.95
            Map.of("outputs", List.of("rough draft", BASE + "0000", BASE + "0111", BASE + "0110", "never", "never")),
            Expect.completed().node("refine", "count", 4, "exit_reason", "stable_output", "output", BASE + "0110")
                .output("after " + BASE + "0110")),
        row("stableOutputComparesStructuredOutputsAsJsonWithSortedKeys",
            refine("input: \"start\"\nmaxIterations: 4\nexitCondition: stable_output\nstabilityThreshold: 0.999",
                SCRIPTED),
            Map.of("outputs", List.of(Map.of("v", 0), orderedMap("b", 1, "a", List.of(1, 2)),
                orderedMap("a", List.of(1, 2), "b", 1), "never")),
            Expect.completed().node("refine", "count", 3, "exit_reason", "stable_output")),
        // "aaaa" -> "aabb" is similarity 0.5 exactly: equal to the threshold is not above it; "aabb" again is 1.0.
        row("stableOutputStopsOnlyWhenTheSimilarityExceedsTheThreshold_bugItStoppedWhenItEqualedIt",
            refine("input: \"start\"\nmaxIterations: 5\nexitCondition: stable_output\nstabilityThreshold: 0.5",
                SCRIPTED),
            Map.of("outputs", List.of("aaaa", "aabb", "aabb", "never", "never")),
            Expect.completed().node("refine", "count", 3, "exit_reason", "stable_output", "output", "aabb")),
        row("stableOutputWithAStricterThresholdKeepsGoingOnNearlyIdenticalOutputs",
            refine("input: \"start\"\nmax_iterations: 4\nexit_condition: stable_output\nstability_threshold: 0.99",
                SCRIPTED),
            Map.of("outputs", List.of(BASE + "0000", BASE + "0001", BASE + "0011", BASE + "0111")),
            Expect.completed().node("refine", "count", 4, "exit_reason", "max_iterations")),
        // --- exitCondition: evaluator
        row("evaluatorDoneEndsTheLoopWithTheValueReachingExit", evaluator("maxIterations: 5", "loop.iteration == 3"),
            Map.of(),
            Expect.completed().node("refine", "count", 3, "exit_reason", "evaluator_done", "output", "a+!+!+!")
                .node("refine_exit", "output", "a+!+!+!").output("after a+!+!+!")),
        row("evaluatorThatChoosesDoneOnTheFirstPassRunsOnce", evaluator("maxIterations: 5", "true"), Map.of(),
            Expect.completed().node("refine", "count", 1, "exit_reason", "evaluator_done", "output", "a+!")),
        row("evaluatorThatNeverChoosesDoneStopsAtTheBoundAndContinuesByDefault", evaluator("maxIterations: 2", "false"),
            Map.of(),
            Expect.completed().node("refine", "count", 2, "exit_reason", "max_iterations")
                .node("after", "status", "completed")),
        row("evaluatorThatNeverChoosesDoneFailsWithMaxIterationsExceededWhenOnExhaustedIsFail",
            evaluator("maxIterations: 2\non_exhausted: fail", "false"), Map.of(),
            Expect.failed("max_iterations_exceeded").errorNode("refine").starts("draft", 2).notCompleted("after")),
        // --- the bound
        row("loopMaxIterationsFiftyIsAccepted", refine("input: \"\"\nmax_iterations: 50", "n{{ loop.iteration }}"),
            Map.of(),
            Expect.completed().node("refine", "count", 50, "output", "n50")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("runs")
  void loopRuns(String behaviour, String yaml, Map<String, ?> inputs, Expect expect) {
    expect.verify(behaviour, LoopTests.run(engine, yaml, inputs));
  }

  static Stream<Arguments> malformed() {
    String bound = "t.yaml:5:20: nodes.refine.maxIterations: 'maxIterations' must be between 1 and 50, found ";
    return Stream.of(
        rejected("loopMaxIterationsZeroIsALoadErrorReportedAlone", refine("maxIterations: 0", "x"),
            exactly(bound + 0)),
        rejected("loopMaxIterationsFiftyOneIsALoadErrorReportedAlone", refine("maxIterations: 51", "x"),
            exactly(bound + 51)),
        rejected("unknownExitConditionAndFeedbackModeAreLoadErrorsNamingTheChoices",
            refine("exitCondition: stable\nfeedbackMode: prepend\nstabilityThreshold: 1.5", "x"),
            including("t.yaml:5:20: nodes.refine.exitCondition: unknown exitCondition 'stable'; expected one of "
                    + "[evaluator, max_iterations, stable_output]",
                "t.yaml:6:19: nodes.refine.feedbackMode: unknown feedbackMode 'prepend'; expected one of "
                    + "[append, replace] (did you mean 'append'?)",
                "t.yaml:7:25: nodes.refine.stabilityThreshold: 'stabilityThreshold' must be between 0 and 1, "
                    + "found 1.5")),
        rejected("aStableOutputThresholdOfOneIsALoadError_bugTheLoopCouldNeverStopOnAStableOutput",
            refine("exitCondition: stable_output\nstabilityThreshold: 1", "x"),
            exactly("t.yaml:6:25: nodes.refine.stabilityThreshold: 'stabilityThreshold' 1 can never be exceeded: "
                + "stable_output stops when the similarity of two consecutive outputs is above the threshold, and "
                + "identical outputs have similarity 1; use a value below 1 (0.999 stops on identical or nearly "
                + "identical outputs)")),
        rejected("camelCaseAndSnakeCaseOfTheSameFieldTogetherAreALoadError",
            refine("maxIterations: 3\nmax_iterations: 4", "x"), someOne("t.yaml:", "maxIterations", "max_iterations")),
        // --- pairing
        rejected("exitWithoutALoopIsALoadError", resource("refine/exit_alone.yaml"),
            exactly("t.yaml:6:5: nodes.stray_exit: exit 'stray_exit' has no paired loop node upstream of it")),
        rejected("loopWithoutAnExitIsALoadError", resource("refine/loop_alone.yaml"),
            onlyOne("t.yaml:3:5: nodes.refine: ", "exit")),
        rejected("loopReachingTwoExitsIsALoadErrorReportedAlone", resource("refine/two_exits.yaml"),
            exactly("t.yaml:3:5: nodes.refine: loop 'refine' reaches several exit nodes [exit_a, exit_b]; it needs "
                + "exactly one")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformed")
  void malformedLoopIsRejectedAtLoad(String behaviour, String yaml, Consumer<List<String>> problems) {
    LoopTests.named(behaviour, () -> problems.accept(LoopTests.problems(engine, yaml)));
  }

  // --- what the events, the exit node and appended inputs show ------------------------------------------------

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
  void evaluatorContinueFeedsTheRouterValueIntoTheNextPass() {
    LoopTests.Run run = LoopTests.run(engine, evaluator("maxIterations: 5", "loop.iteration == 3"), Map.of());

    assertThat(run.events(Event.LoopIteration.class)).extracting(Event.LoopIteration::inputPreview)
        .containsExactly("a", "a+!", "a+!+!");
    assertThat(run.events(Event.RouterSelected.class))
        .extracting(e -> e.node().path() + "=" + e.branch())
        .containsExactly("refine[1].judge=continue", "refine[2].judge=continue", "refine[3].judge=done");
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

  private static Map<String, Object> orderedMap(String k1, Object v1, String k2, Object v2) {
    Map<String, Object> m = new java.util.LinkedHashMap<>();
    m.put(k1, v1);
    m.put(k2, v2);
    return m;
  }
}
