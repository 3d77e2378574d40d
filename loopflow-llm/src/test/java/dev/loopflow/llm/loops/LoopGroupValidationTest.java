package dev.loopflow.llm.loops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.loopflow.core.ErrorCode;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.WorkflowInvalidException;
import dev.loopflow.core.model.Problem;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Loading a loop_group checks its sealed body and its sugar before anything runs (SPEC §2, §5; seed 004 T3):
 * every problem is reported at once, as {@code file:line:col: path: message}, body problems prefixed with the
 * group they belong to.
 */
class LoopGroupValidationTest {
  static final Loopflow ENGINE = Loopflow.create();

  static List<String> problems(String yaml) {
    WorkflowInvalidException e = catchThrowableOfType(WorkflowInvalidException.class,
        () -> ENGINE.parse(yaml, "lg.yaml"));
    assertThat(e).as("the workflow must not load").isNotNull();
    assertThat(e.code()).isEqualTo(ErrorCode.WORKFLOW_INVALID);
    return e.problems().stream().map(Problem::format).toList();
  }

  @Test
  void loopPrevOutsideALoopBodyIsALoadError() {
    assertThat(problems("""
        defaults: {model: "openai:gpt-4o-mini"}
        nodes:
          - id: a
            prompt: "hi"
          - id: b
            prompt: "prev: $LOOP_PREV.a.output"
        """)).containsExactly(
        "lg.yaml:6:13: nodes.b.prompt: $LOOP_PREV.a.output is only available inside a loop_group or while_loop body");
  }

  @Test
  void loopUserInputOutsideALoopBodyIsALoadError() {
    assertThat(problems("""
        nodes:
          - id: b
            bash: "echo $LOOP_USER_INPUT"
        """)).containsExactly(
        "lg.yaml:3:11: nodes.b.bash: $LOOP_USER_INPUT is only available inside a loop_group or while_loop body");
  }

  @Test
  void bodyDependsOnNamingAnOuterNodeIsALoadErrorPrefixedWithTheGroup() {
    assertThat(problems("""
        nodes:
          - id: setup
            bash: "echo setup"
          - id: fix
            loop_group:
              max_iterations: 3
              nodes:
                - id: work
                  depends_on: [setup]
                  bash: "echo work"
        """)).containsExactly("lg.yaml:9:24: nodes.fix.nodes.work.depends_on: loop_group 'fix' body: unknown node "
        + "'setup' ('setup' is outside the body: a body's depends_on resolve inside it; it may still read outer "
        + "results in templates)");
  }

  @Test
  void duplicateIdsInTheBodyAreALoadErrorPrefixedWithTheGroup() {
    assertThat(problems("""
        nodes:
          - id: fix
            loop_group:
              max_iterations: 3
              nodes:
                - id: work
                  bash: "echo 1"
                - id: work
                  bash: "echo 2"
        """)).containsExactly(
        "lg.yaml:8:15: nodes.fix.nodes[1].id: loop_group 'fix' body: duplicate node id 'work' (first defined at line 6)");
  }

  @Test
  void aCycleInTheBodyIsALoadErrorPrefixedWithTheGroup() {
    assertThat(problems("""
        nodes:
          - id: fix
            loop_group:
              max_iterations: 3
              nodes:
                - id: a
                  depends_on: [b]
                  bash: "echo a"
                - id: b
                  depends_on: [a]
                  bash: "echo b"
        """)).containsExactly("lg.yaml:9:11: nodes.fix.nodes: loop_group 'fix' body: dependency cycle: a -> b -> a");
  }

  @Test
  void aLongerCycleInTheTypeFormIsReportedWithItsPath() {
    assertThat(problems("""
        nodes:
          - id: fix
            type: loop_group
            max_iterations: 3
            nodes:
              - id: a
                depends_on: [c]
                bash: "echo a"
              - id: b
                depends_on: [a]
                bash: "echo b"
              - id: c
                depends_on: [b]
                bash: "echo c"
        """)).containsExactly(
        "lg.yaml:9:9: nodes.fix.nodes: loop_group 'fix' body: dependency cycle: a -> b -> c -> a");
  }

  @Test
  void loopPrevNamingNoBodyNodeOrMissingOutputIsALoadError() {
    assertThat(problems("""
        nodes:
          - id: fix
            loop_group:
              max_iterations: 3
              nodes:
                - id: work
                  bash: "echo $LOOP_PREV.wrok.output"
                - id: show
                  bash: "echo $LOOP_PREV.work"
        """)).containsExactly(
        "lg.yaml:7:17: nodes.fix.nodes.work.bash: $LOOP_PREV.wrok names no node of this loop's body (did you mean "
            + "'work'?)",
        "lg.yaml:9:17: nodes.fix.nodes.show.bash: $LOOP_PREV.work needs '.output' ($LOOP_PREV.work.output or "
            + "$LOOP_PREV.work.output.<field>)");
  }

  @Test
  void loopPrevInUntilBashAndGateMessageIsCheckedAgainstTheBody() {
    assertThat(problems("""
        nodes:
          - id: fix
            loop_group:
              max_iterations: 3
              until_bash: "test -n '$LOOP_PREV.nope.output'"
              interactive: true
              gate_message: "prev $LOOP_PREV.nada.output"
              nodes:
                - id: w
                  bash: "echo 1"
        """)).containsExactly(
        "lg.yaml:5:19: nodes.fix.until_bash: $LOOP_PREV.nope names no node of this loop's body",
        "lg.yaml:7:21: nodes.fix.gate_message: $LOOP_PREV.nada names no node of this loop's body");
  }

  @Test
  void maxIterationsIsRequired() {
    assertThat(problems("""
        nodes:
          - id: fix
            loop_group:
              until: DONE
              nodes:
                - id: work
                  bash: "echo 1"
        """)).containsExactly("lg.yaml:2:5: nodes.fix: loop_group 'fix' requires max_iterations (1..1000)");
  }

  @Test
  void maxIterationsOutsideOneToAThousandIsRejectedNotClamped() {
    assertThat(problems("""
        nodes:
          - id: low
            loop_group:
              max_iterations: 0
              nodes:
                - id: w
                  bash: "echo 1"
          - id: high
            loop_group:
              max_iterations: 1001
              nodes:
                - id: w
                  bash: "echo 1"
        """)).containsExactly(
        "lg.yaml:4:23: nodes.low.max_iterations: 'max_iterations' must be between 1 and 1000, found 0",
        "lg.yaml:10:23: nodes.high.max_iterations: 'max_iterations' must be between 1 and 1000, found 1001");
  }

  @Test
  void blankUntilAndBothUntilCommandFormsAreRejected() {
    assertThat(problems("""
        nodes:
          - id: fix
            loop_group:
              max_iterations: 3
              until: ""
              until_command: "true"
              until_bash: "true"
              nodes:
                - id: w
                  bash: "echo 1"
        """)).containsExactly(
        "lg.yaml:5:14: nodes.fix.until: 'until' must be a non-empty signal",
        "lg.yaml:7:19: nodes.fix.until_bash: give 'until_command' or 'until_bash', not both");
  }

  @Test
  void outputMustNameABodyNode() {
    assertThat(problems("""
        nodes:
          - id: fix
            loop_group:
              max_iterations: 3
              output: reveiw
              nodes:
                - id: review
                  bash: "echo 1"
        """)).containsExactly("lg.yaml:5:15: nodes.fix.output: loop_group 'fix': output names 'reveiw', which is not "
        + "a node of its body (did you mean 'review'?)");
  }

  @Test
  void unknownFieldsAreRejectedWithASuggestion() {
    assertThat(problems("""
        nodes:
          - id: fix
            loop_group:
              max_iterations: 3
              fresh_contex: true
              nodes:
                - id: w
                  bash: "echo 1"
        """)).containsExactly("lg.yaml:5:7: nodes.fix.fresh_contex: unknown field 'fresh_contex' for a loop_group node "
        + "(did you mean 'fresh_context'?)");
  }

  @Test
  void unknownOnExhaustedIsRejected() {
    assertThat(problems("""
        nodes:
          - id: fix
            loop_group:
              max_iterations: 3
              on_exhausted: contineu
              nodes:
                - id: w
                  bash: "echo 1"
        """)).containsExactly("lg.yaml:5:21: nodes.fix.on_exhausted: unknown on_exhausted 'contineu'; expected fail or "
        + "continue (did you mean 'continue'?)");
  }

  @Test
  void aMissingOrEmptyBodyIsRejected() {
    assertThat(problems("""
        nodes:
          - id: a
            loop_group:
              max_iterations: 3
          - id: b
            loop_group:
              max_iterations: 3
              nodes: []
        """)).containsExactly(
        "lg.yaml:2:5: nodes.a: loop_group 'a' requires nodes (its body)",
        "lg.yaml:8:14: nodes.b.nodes: loop_group 'b' needs at least one node in its nodes");
  }

  @Test
  void aNestedBodyIsCheckedAsItsOwnScopeWithTheInnerGroupInThePrefix() {
    assertThat(problems("""
        nodes:
          - id: outer
            loop_group:
              max_iterations: 3
              nodes:
                - id: sibling
                  bash: "echo s"
                - id: inner
                  loop_group:
                    max_iterations: 2
                    nodes:
                      - id: x
                        depends_on: [y]
                        bash: "echo x"
                      - id: y
                        depends_on: [x]
                        bash: "echo y"
                      - id: z
                        depends_on: [sibling]
                        bash: "echo z"
        """)).containsExactly(
        "lg.yaml:15:17: nodes.outer.nodes.inner.nodes: loop_group 'inner' body: dependency cycle: x -> y -> x",
        "lg.yaml:19:30: nodes.outer.nodes.inner.nodes.z.depends_on: loop_group 'inner' body: unknown node 'sibling' "
            + "('sibling' is outside the body: a body's depends_on resolve inside it; it may still read outer "
            + "results in templates)");
  }

  @Test
  void outerNodesCannotDependOnBodyNodes() {
    assertThat(problems("""
        nodes:
          - id: fix
            loop_group:
              max_iterations: 3
              nodes:
                - id: w
                  bash: "echo 1"
          - id: after
            depends_on: [w]
            bash: "echo {{ fix.output }}"
        """)).containsExactly("lg.yaml:9:18: nodes.after.depends_on: unknown node 'w'");
  }

  @Test
  void everyProblemInTheFileIsReportedAtOnce() {
    assertThat(problems("""
        nodes:
          - id: setup
            bash: "echo setup"
          - id: fix
            loop_group:
              max_iterations: 3
              nodes:
                - id: a
                  depends_on: [setup]
                  bash: "echo a"
                - id: a
                  bash: "echo again"
                - id: b
                  bash: "echo $LOOP_PREV.zzz.output"
          - id: after
            bash: "echo $LOOP_PREV.a.output"
        """)).containsExactly(
        "lg.yaml:9:24: nodes.fix.nodes.a.depends_on: loop_group 'fix' body: unknown node 'setup' ('setup' is outside "
            + "the body: a body's depends_on resolve inside it; it may still read outer results in templates)",
        "lg.yaml:11:15: nodes.fix.nodes[1].id: loop_group 'fix' body: duplicate node id 'a' (first defined at line 8)",
        "lg.yaml:14:17: nodes.fix.nodes.b.bash: $LOOP_PREV.zzz names no node of this loop's body",
        "lg.yaml:16:11: nodes.after.bash: $LOOP_PREV.a.output is only available inside a loop_group or while_loop "
            + "body");
  }

  @Test
  void aWellFormedGroupWithBodyRefsToOuterNodesLoads() {
    ENGINE.parse("""
        defaults: {model: "openai:gpt-4o-mini"}
        nodes:
          - id: setup
            bash: "echo setup"
          - id: fix
            depends_on: [setup]
            loop_group:
              max_iterations: 5
              until: TESTS_PASS
              until_bash: 'test -n "$LOOP_PREV.review.output"'
              fresh_context: true
              interactive: true
              gate_message: "Pass {{ loop.iteration }}: $LOOP_PREV.review.output"
              output: review
              on_exhausted: continue
              budget: {max_llm_calls: 10}
              nodes:
                - id: implement
                  prompt: "{{ setup.output }} $LOOP_PREV.review.output $LOOP_USER_INPUT"
                - id: review
                  depends_on: [implement]
                  prompt: "review {{ implement.text }}"
        """, "lg.yaml");
  }
}
