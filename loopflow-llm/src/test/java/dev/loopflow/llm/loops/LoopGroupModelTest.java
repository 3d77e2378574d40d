package dev.loopflow.llm.loops;

import static dev.loopflow.llm.loops.LoopGroupValidationTest.problems;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.event.Event;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A loop_group's {@code model} and {@code provider} are defaults for the llm nodes of its body, like the workflow's
 * {@code defaults}: the nearest group wins over outer groups and the workflow, a node's own fields win over all.
 * {@code retry} on any loop node is a load error, since a loop is never run again as a whole.
 */
class LoopGroupModelTest {
  /** The model each llm node called, by node id (every call runs on the mock provider in these tests). */
  private static Map<String, String> modelsCalled(LoopRuns runs) {
    return runs.all(Event.LlmCalled.class).stream()
        .collect(Collectors.toMap(e -> e.node().nodeId(), Event.LlmCalled::model, (a, b) -> a));
  }

  @Test
  void groupModelIsTheDefaultForItsBodyAndTheNearestGroupWins_bugLoopGroupRejectedModel() {
    LoopRuns runs = new LoopRuns();
    RunResult r = runs.run("""
        defaults: {model: "openai:workflow-model"}
        nodes:
          - id: before
            prompt: "outside any group"
          - id: outer
            depends_on: [before]
            loop_group:
              max_iterations: 1
              model: "openai:outer-model"
              nodes:
                - id: in_outer
                  prompt: "in the outer group"
                - id: own
                  model: "openai:own-model"
                  prompt: "names its own model"
                - id: inner
                  loop_group:
                    max_iterations: 1
                    model: "openai:inner-model"
                    nodes:
                      - id: in_inner
                        prompt: "in the inner group"
          - id: after
            depends_on: [outer]
            prompt: "outside again"
        """);

    assertThat(r.status()).as("%s", r.error()).isEqualTo(RunStatus.COMPLETED);
    assertThat(modelsCalled(runs)).containsExactlyInAnyOrderEntriesOf(Map.of(
        "before", "workflow-model", "in_outer", "outer-model", "own", "own-model", "in_inner", "inner-model",
        "after", "workflow-model"));
  }

  @Test
  void groupProviderPairsWithTheGroupModel_bugLoopGroupRejectedProvider() {
    LoopRuns runs = new LoopRuns();
    RunResult r = runs.run("""
        nodes:
          - id: g
            loop_group:
              max_iterations: 1
              provider: ollama
              model: "qwen3:8b"
              nodes:
                - id: ask
                  prompt: "hi"
        """);

    assertThat(r.status()).as("%s", r.error()).isEqualTo(RunStatus.COMPLETED);
    assertThat(modelsCalled(runs)).containsEntry("ask", "qwen3:8b");
    // Without the group's provider the same model cannot be placed: the provider really came from the group.
    assertThat(problems("""
        nodes:
          - id: g
            loop_group:
              max_iterations: 1
              model: "qwen3:8b"
              nodes:
                - id: ask
                  prompt: "hi"
        """)).singleElement().asString().contains("cannot tell the provider of model 'qwen3:8b'");
  }

  static Stream<Arguments> badGroupSettings() {
    return Stream.of(
        Arguments.of("provider: nosuch", "unknown provider 'nosuch' (given by the enclosing loop_group)"),
        Arguments.of("model: [a, b]", "model"),
        Arguments.of("model: \"\"", "'model' must be a non-empty model name"),
        Arguments.of("provider: {x: 1}", "provider"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badGroupSettings")
  void aBadGroupModelOrProviderIsALoadErrorNamingIt(String setting, String expected) {
    List<String> problems = problems("""
        nodes:
          - id: g
            loop_group:
              max_iterations: 1
              SETTING
              nodes:
                - id: ask
                  prompt: "hi"
        """.replace("SETTING", setting));
    assertThat(problems).isNotEmpty().anySatisfy(p -> assertThat(p).startsWith("lg.yaml:").contains(expected));
  }

  static Stream<Arguments> loopsWithRetry() {
    return Stream.of(
        Arguments.of("loop_group", """
            nodes:
              - id: l
                retry: 2
                loop_group:
                  max_iterations: 2
                  nodes:
                    - id: w
                      bash: echo w
            """),
        Arguments.of("loop_group", """
            nodes:
              - id: l
                type: loop_group
                retry: {max_attempts: 3, delay: 1s}
                max_iterations: 2
                nodes:
                  - id: w
                    bash: echo w
            """),
        Arguments.of("while_loop", """
            nodes:
              - id: l
                type: while_loop
                retry: 1
                max_iterations: 2
                condition: "false"
                body:
                  - id: w
                    bash: echo w
            """),
        Arguments.of("loop", """
            nodes:
              - id: l
                type: loop
                retry: 1
                max_iterations: 2
              - id: w
                bash: echo w
              - id: l_exit
                type: exit
            edges:
              - {from: l, to: w}
              - {from: w, to: l_exit}
            """),
        Arguments.of("iterator", """
            nodes:
              - id: l
                type: iterator
                retry: 1
                items: "{{ [1, 2] }}"
              - id: w
                bash: echo w
              - id: collect
                type: aggregator
            edges:
              - {from: l, to: w}
              - {from: w, to: collect}
            """));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("loopsWithRetry")
  void retryOnALoopIsALoadErrorNotSilentlyIgnored_bugLoopGroupAcceptedRetry(String kind, String yaml) {
    assertThat(problems(yaml)).anySatisfy(p -> assertThat(p).matches("lg\\.yaml:\\d+:5: nodes\\.l\\.retry: 'retry' has "
        + "no meaning on a " + kind + " node \\(a loop is not run again as a whole\\); put retry on the body nodes "
        + "that may fail"));
  }

  @Test
  void retryOnABodyNodeStillWorks() {
    LoopRuns runs = new LoopRuns();
    RunResult r = runs.run("""
        nodes:
          - id: g
            loop_group:
              max_iterations: 1
              nodes:
                - id: w
                  retry: {max_attempts: 2, delay: 1ms}
                  bash: echo w
        """);
    assertThat(r.status()).as("%s", r.error()).isEqualTo(RunStatus.COMPLETED);
  }
}
