package dev.loopflow.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.Problem;
import dev.loopflow.core.error.WorkflowInvalidException;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A node that fails to load is reported once, at its own fields, however the rest of the workflow refers to it:
 * a node depending on it (at the top level or in a loop body), a loop around it, an edge from it. The loader must
 * report exactly the problems of the file, never fail with an exception of its own.
 */
class FailedNodeReferencesTest {
  private static final Loopflow ENGINE = Loopflow.create();

  static Stream<Arguments> dependentsOfFailedNodes() {
    return Stream.of(
        Arguments.of("shell_dep", """
            nodes:
              - id: a
                type: shell
              - id: b
                depends_on: [a]
                bash: echo b
            """, List.of(
            "wf.yaml:2:5: nodes.a: missing required field 'command'")),
        Arguments.of("chain", """
            nodes:
              - id: a
                type: shell
              - id: b
                depends_on: [a]
                bash: echo b
              - id: c
                depends_on: [b, a]
                bash: echo c
            """, List.of(
            "wf.yaml:2:5: nodes.a: missing required field 'command'")),
        Arguments.of("while", """
            nodes:
              - id: w
                type: while_loop
                max_iterations: 3
                body:
                  - id: step
                    bash: echo step
              - id: after
                depends_on: [w]
                bash: echo after
            """, List.of(
            "wf.yaml:2:5: nodes.w: while_loop 'w' requires condition")),
        Arguments.of("group_body", """
            nodes:
              - id: g
                loop_group:
                  max_iterations: 3
                  until: DONE
                  nodes:
                    - id: broken
                      type: shell
                    - id: uses
                      depends_on: [broken]
                      bash: echo DONE
              - id: after
                depends_on: [g]
                bash: echo after
            """, List.of(
            "wf.yaml:7:11: nodes.g.nodes.broken: missing required field 'command'")),
        Arguments.of("while_body", """
            nodes:
              - id: w
                type: while_loop
                max_iterations: 3
                condition: "true"
                body:
                  - id: broken
                    type: nosuchkind
                  - id: uses
                    depends_on: [broken]
                    bash: echo x
            """, List.of(
            "wf.yaml:8:15: nodes.w.body.broken.type: unknown node kind 'nosuchkind'")),
        Arguments.of("nested", """
            nodes:
              - id: outer
                loop_group:
                  max_iterations: 2
                  nodes:
                    - id: inner
                      loop_group:
                        max_iterations: 2
                        nodes:
                          - id: work
                            type: shell
                          - id: check
                            depends_on: [work]
                            bash: echo ok
                    - id: next
                      depends_on: [inner]
                      bash: echo next
              - id: last
                depends_on: [outer]
                bash: echo last
            """, List.of(
            "wf.yaml:10:17: nodes.outer.nodes.inner.nodes.work: missing required field 'command'")),
        Arguments.of("router", """
            nodes:
              - id: pick
                type: router
              - id: accept
                depends_on: [pick]
                bash: echo accept
            edges:
              - {from: pick, to: accept, branch: ok}
            """, List.of(
            "wf.yaml:2:5: nodes.pick: missing required field 'routes'")),
        Arguments.of("iterator", """
            nodes:
              - id: each
                type: iterator
              - id: work
                depends_on: [each]
                bash: echo work
              - id: collect
                type: aggregator
                depends_on: [work]
              - id: after
                depends_on: [collect, each]
                bash: echo after
            """, List.of(
            "wf.yaml:2:5: nodes.each: iterator 'each' requires items (a template yielding an array)")),
        Arguments.of("selfcycle_group", """
            nodes:
              - id: g
                loop_group:
                  max_iterations: 5
                  nodes:
                    - id: a
                      depends_on: [a]
                      type: transform
                      template: x
                      bogus: 1
                    - id: b
                      type: shell
              - id: after
                depends_on: [g]
                bash: echo after
            """, List.of(
            "wf.yaml:6:11: nodes.g.nodes: loop_group 'g' body: dependency cycle: a -> a",
            "wf.yaml:10:11: nodes.g.nodes.a.bogus: unknown field 'bogus' for a transform node",
            "wf.yaml:11:11: nodes.g.nodes.b: missing required field 'command'")),
        Arguments.of("loop_exit", """
            nodes:
              - id: start
                bash: echo start
              - id: refine
                type: loop
                depends_on: [start]
                maxIterations: 0
              - id: improve
                depends_on: [refine]
                type: shell
              - id: done
                type: exit
                depends_on: [improve]
              - id: publish
                depends_on: [done]
                bash: echo publish
            """, List.of(
            "wf.yaml:7:20: nodes.refine.maxIterations: 'maxIterations' must be between 1 and 50, found 0",
            "wf.yaml:8:5: nodes.improve: missing required field 'command'")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dependentsOfFailedNodes")
  void dependencyOnNodeThatFailedToLoadReportsOnlyItsProblems_bugLoaderNullPointerOnFailedDependency(String name,
      String yaml, List<String> expected) {
    assertThat(problems(yaml)).containsExactlyElementsOf(expected);
  }

  @ParameterizedTest(name = "max_attempts: {0}")
  @CsvSource(delimiter = '|', value = {
      "[1, 2]      | 'max_attempts' must be a whole number, found a list",
      "three       | 'max_attempts' must be a whole number, found a string 'three'",
      "0           | 'max_attempts' must be between 1 and 100, found 0",
      "101         | 'max_attempts' must be between 1 and 100, found 101",
      "-5          | 'max_attempts' must be between 1 and 100, found -5",
      "1.5         | 'max_attempts' must be a whole number, found a number '1.5'",
      "~           | 'max_attempts' must be a whole number, found null",
      "{n: 1}      | 'max_attempts' must be a whole number, found a mapping",
      "true        | 'max_attempts' must be a whole number, found a boolean 'true'",
      "99999999999999999999 | 'max_attempts' must be between 1 and 100, found 99999999999999999999"})
  void invalidMaxAttemptsIsReportedAtTheField_bugRetryMaxAttemptsUnboxing(String value, String message) {
    String yaml = """
        nodes:
          - id: a
            bash: echo a
            retry:
              max_attempts: %s
              delay: 1s
        """.formatted(value);

    assertThat(problems(yaml)).containsExactly("wf.yaml:5:21: nodes.a.retry.max_attempts: " + message);
  }

  private static List<String> problems(String yaml) {
    WorkflowInvalidException e = catchThrowableOfType(WorkflowInvalidException.class,
        () -> ENGINE.parse(yaml, "wf.yaml"));
    assertThat(e).as("the workflow must not load").isNotNull();
    return e.problems().stream().map(Problem::format).toList();
  }
}
