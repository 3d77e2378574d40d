package dev.loopflow.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.Problem;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.yaml.YamlReader;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Anchors, aliases and merge keys mean what YAML says, never the anchor's name; alias bombs and the lines
 * that make the YAML scanner quadratic are refused with a clear problem before they cost time or memory.
 */
class YamlAliasesAndLimitsTest {
  private static final Loopflow ENGINE = Loopflow.create();

  private static RunResult run(String yaml) {
    Workflow wf = ENGINE.parse(yaml, "flow.yaml");
    return ENGINE.run(wf, Map.of());
  }

  private static List<String> problems(String yaml) {
    WorkflowInvalidException e = catchThrowableOfType(WorkflowInvalidException.class,
        () -> ENGINE.parse(yaml, "flow.yaml"));
    assertThat(e).as("the workflow must be rejected").isNotNull();
    return e.problems().stream().map(Problem::toString).toList();
  }

  @Test
  void aliasedInputDefaultIsTheAnchoredValue_bugAliasBecameAnchorName() {
    RunResult r = run("""
        description: &greet "hello there"
        input:
          who: {type: string, default: *greet}
        nodes:
          - id: say
            type: transform
            template: "{{ input.who }}"
        """);
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.output()).isEqualTo("hello there");
  }

  @Test
  void aliasedShellCommandRunsTheAnchoredCommand_bugAliasRanAnchorName() {
    RunResult r = run("""
        nodes:
          - id: a
            bash: &cmd "echo anchored"
          - id: b
            bash: *cmd
        """);
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.nodes().get("b").get("output")).isEqualTo("anchored");
  }

  @Test
  void mergeKeyAddsTheBaseMappingsKeys_bugMergeKeyDropped() {
    RunResult r = run("""
        nodes:
          - &base
            id: first
            type: transform
            template: "from base"
          - <<: *base
            id: second
        edges:
          - {from: first, to: second}
        """);
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.nodes().get("second").get("output")).isEqualTo("from base");
  }

  @Test
  void explicitKeysWinOverMergedOnesWhereverTheyStand() {
    RunResult r = run("""
        nodes:
          - &defaults {id: a, type: transform, template: "base"}
          - template: "own, before the merge"
            <<: [*defaults, {template: "second merge", id: ignored}]
            id: n
        """);
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.nodes()).containsOnlyKeys("a", "n");
    assertThat(r.nodes().get("n").get("output")).isEqualTo("own, before the merge");
  }

  @Test
  void firstMergedMappingWinsOverLaterOnes() {
    RunResult r = run("""
        nodes:
          - <<: [{type: transform, template: "first"}, {template: "second"}]
            id: n
        """);
    assertThat(r.output()).isEqualTo("first");
  }

  static Stream<Arguments> badAliases() {
    return Stream.of(
        Arguments.of("undefined alias", """
            nodes:
              - id: a
                bash: *nowhere
            """, "flow.yaml:3:11: nodes[0].bash: alias '*nowhere' has no anchor '&nowhere' before it"),
        Arguments.of("alias used before its anchor", """
            nodes:
              - id: a
                bash: *later
              - id: b
                bash: &later "echo x"
            """, "alias '*later' has no anchor '&later' before it"),
        Arguments.of("self-referencing anchor", """
            nodes: &self
              - id: a
                bash: echo
              - *self
            """, "alias '*self' has no anchor '&self' before it"),
        Arguments.of("merge of a scalar", """
            nodes:
              - <<: "id: a"
                id: a
                bash: echo
            """, "'<<' merges a mapping or a list of mappings into this mapping, found a string"),
        Arguments.of("merge of a list holding a scalar", """
            nodes:
              - <<: [{bash: echo}, 3]
                id: a
            """, "'<<' merges a mapping or a list of mappings into this mapping, found a list"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badAliases")
  void aliasProblemsAreReportedNeverSubstitutedByName(String name, String yaml, String expected) {
    assertThat(problems(yaml)).anySatisfy(p -> assertThat(p).contains(expected));
  }

  @Test
  void anAliasWithoutAnchorInPlaceOfANodeIsOneProblem_bugSecondProblemAboutTheNullItLeft() {
    List<String> found = problems("""
        nodes:
          - *nope
          - {id: b, bash: echo}
        """);
    assertThat(found).containsExactly("flow.yaml:2:5: nodes[0]: alias '*nope' has no anchor '&nope' before it (an "
        + "alias can only refer to an anchor defined earlier in the file, outside itself)");
  }

  @Test
  @org.junit.jupiter.api.Timeout(value = 5, unit = java.util.concurrent.TimeUnit.MINUTES) // a hang guard only
  void aliasBombIsRefusedWithOneProblem() {
    StringBuilder y = new StringBuilder("description: ok\nx0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    for (int i = 1; i <= 9; i++) {
      y.append("x").append(i).append(": &a").append(i).append(" [");
      for (int j = 0; j < 10; j++) {
        y.append(j == 0 ? "" : ",").append("*a").append(i - 1);
      }
      y.append("]\n");
    }
    y.append("nodes:\n  - id: a\n    bash: echo\n");
    // Expanded, the file would be 10^10 nodes: refusing it at all (within the hang guard) shows it was not expanded.
    List<String> found = problems(y.toString());
    assertThat(found).filteredOn(p -> p.contains("aliases expand this file to more than "
        + YamlReader.MAX_ALIAS_NODES + " nodes")).hasSize(1);
  }

  @Test
  void overlongLineIsRefusedBeforeParsing_bugQuadraticLongLine() {
    String yaml = "nodes:\n  - id: a\n    bash: echo " + "x".repeat(8_000_000 / 4) + "\n";
    assertThat(problems(yaml)).containsExactly("flow.yaml:3:1: line 3 has " + (2_000_000 + 15)
        + " characters; the limit is " + YamlReader.MAX_LINE_CHARS
        + " (put long text in a block scalar, 'key: |', over several lines)");
  }

  @Test
  void oversizedFileIsRefusedWithItsSize() {
    StringBuilder y = new StringBuilder("nodes:\n  - id: a\n    bash: |\n");
    while (y.length() <= YamlReader.MAX_FILE_CHARS) {
      y.append("      echo ").append("y".repeat(80)).append('\n');
    }
    assertThat(problems(y.toString())).singleElement().asString()
        .startsWith("flow.yaml:1:1: the file has ").endsWith("; the limit for a workflow file is " + YamlReader.MAX_FILE_CHARS);
  }

  @Test
  void longTextInABlockScalarStillLoads() {
    StringBuilder y = new StringBuilder("nodes:\n  - id: a\n    type: transform\n    template: |\n");
    for (int i = 0; i < 2_000; i++) {
      y.append("      ").append("z".repeat(500)).append('\n');
    }
    RunResult r = run(y.toString());
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(((String) r.output()).length()).isEqualTo(2_000 * 501);
  }
}
