package dev.loopflow.llm.loops;

import static dev.loopflow.llm.loops.LoopRuns.fixture;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.Problem;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.model.Budget;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.LoopConfig;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.model.Workflow;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Loading a loop_group checks its sealed body and its sugar before anything runs: every problem is reported at
 * once, as {@code file:line:col: path: message}, body problems prefixed with the group they belong to. Each row's
 * workflow is a file under {@code src/test/resources/loops/invalid/}.
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

  private static Arguments invalid(String behaviour, String file, String... problems) {
    return Arguments.of(behaviour, file, List.of(problems));
  }

  private static final String OUTSIDE_THE_BODY = "is outside the body: a body's depends_on resolve inside it; it may "
      + "still read outer results in templates)";

  static Stream<Arguments> invalidGroups() {
    return Stream.of(
        invalid("loopPrevOutsideALoopBodyIsALoadError", "loop_prev_outside_a_body.yaml",
            "lg.yaml:6:13: nodes.b.prompt: $LOOP_PREV.a.output is only available inside a loop_group or while_loop "
                + "body"),
        invalid("loopUserInputOutsideALoopBodyIsALoadError", "user_input_outside_a_body.yaml",
            "lg.yaml:3:11: nodes.b.bash: $LOOP_USER_INPUT is only available inside a loop_group or while_loop body"),
        invalid("bodyDependsOnNamingAnOuterNodeIsALoadErrorPrefixedWithTheGroup", "body_depends_on_outer_node.yaml",
            "lg.yaml:9:24: nodes.fix.nodes.work.depends_on: loop_group 'fix' body: unknown node 'setup' ('setup' "
                + OUTSIDE_THE_BODY),
        invalid("duplicateIdsInTheBodyAreALoadErrorPrefixedWithTheGroup", "duplicate_body_ids.yaml",
            "lg.yaml:8:15: nodes.fix.nodes[1].id: loop_group 'fix' body: duplicate node id 'work' (first defined at "
                + "line 6)"),
        invalid("aCycleInTheBodyIsALoadErrorPrefixedWithTheGroup", "body_cycle.yaml",
            "lg.yaml:9:11: nodes.fix.nodes: loop_group 'fix' body: dependency cycle: a -> b -> a"),
        invalid("aLongerCycleInTheTypeFormIsReportedWithItsPath", "body_cycle_type_form.yaml",
            "lg.yaml:9:9: nodes.fix.nodes: loop_group 'fix' body: dependency cycle: a -> b -> c -> a"),
        invalid("loopPrevNamingNoBodyNodeOrMissingOutputIsALoadError", "loop_prev_unknown_node_or_field.yaml",
            "lg.yaml:7:17: nodes.fix.nodes.work.bash: $LOOP_PREV.wrok names no node of this loop's body (did you "
                + "mean 'work'?)",
            "lg.yaml:9:17: nodes.fix.nodes.show.bash: $LOOP_PREV.work needs '.output' ($LOOP_PREV.work.output or "
                + "$LOOP_PREV.work.output.<field>)"),
        invalid("loopPrevInUntilBashAndGateMessageIsCheckedAgainstTheBody", "loop_prev_in_until_and_gate.yaml",
            "lg.yaml:5:19: nodes.fix.until_bash: $LOOP_PREV.nope names no node of this loop's body",
            "lg.yaml:7:21: nodes.fix.gate_message: $LOOP_PREV.nada names no node of this loop's body"),
        invalid("maxIterationsIsRequired", "no_max_iterations.yaml",
            "lg.yaml:2:5: nodes.fix: loop_group 'fix' requires max_iterations (1..1000)"),
        invalid("maxIterationsOutsideOneToAThousandIsRejectedNotClamped", "max_iterations_out_of_range.yaml",
            "lg.yaml:4:23: nodes.low.max_iterations: 'max_iterations' must be between 1 and 1000, found 0",
            "lg.yaml:10:23: nodes.high.max_iterations: 'max_iterations' must be between 1 and 1000, found 1001"),
        invalid("blankUntilAndBothUntilCommandFormsAreRejected", "blank_until_and_both_commands.yaml",
            "lg.yaml:5:14: nodes.fix.until: 'until' must be a non-empty signal",
            "lg.yaml:7:19: nodes.fix.until_bash: give 'until_command' or 'until_bash', not both"),
        invalid("outputMustNameABodyNode", "output_not_in_body.yaml",
            "lg.yaml:5:15: nodes.fix.output: loop_group 'fix': output names 'reveiw', which is not a node of its "
                + "body (did you mean 'review'?)"),
        invalid("unknownFieldsAreRejectedWithASuggestion", "unknown_field.yaml",
            "lg.yaml:5:7: nodes.fix.fresh_contex: unknown field 'fresh_contex' for a loop_group node (did you mean "
                + "'fresh_context'?)"),
        invalid("unknownOnExhaustedIsRejected", "unknown_on_exhausted.yaml",
            "lg.yaml:5:21: nodes.fix.on_exhausted: unknown on_exhausted 'contineu'; expected fail or continue (did "
                + "you mean 'continue'?)"),
        invalid("aMissingOrEmptyBodyIsRejected", "missing_or_empty_body.yaml",
            "lg.yaml:2:5: nodes.a: loop_group 'a' requires nodes (its body)",
            "lg.yaml:8:14: nodes.b.nodes: loop_group 'b' needs at least one node in its nodes"),
        invalid("aNestedBodyIsCheckedAsItsOwnScopeWithTheInnerGroupInThePrefix", "nested_body_scope.yaml",
            "lg.yaml:15:17: nodes.outer.nodes.inner.nodes: loop_group 'inner' body: dependency cycle: x -> y -> x",
            "lg.yaml:19:30: nodes.outer.nodes.inner.nodes.z.depends_on: loop_group 'inner' body: unknown node "
                + "'sibling' ('sibling' " + OUTSIDE_THE_BODY),
        invalid("outerNodesCannotDependOnBodyNodes", "outer_depends_on_body_node.yaml",
            "lg.yaml:9:18: nodes.after.depends_on: unknown node 'w'"),
        invalid("everyProblemInTheFileIsReportedAtOnce", "many_problems.yaml",
            "lg.yaml:9:24: nodes.fix.nodes.a.depends_on: loop_group 'fix' body: unknown node 'setup' ('setup' "
                + OUTSIDE_THE_BODY,
            "lg.yaml:11:15: nodes.fix.nodes[1].id: loop_group 'fix' body: duplicate node id 'a' (first defined at "
                + "line 8)",
            "lg.yaml:14:17: nodes.fix.nodes.b.bash: $LOOP_PREV.zzz names no node of this loop's body",
            "lg.yaml:16:11: nodes.after.bash: $LOOP_PREV.a.output is only available inside a loop_group or "
                + "while_loop body"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidGroups")
  void invalidGroupIsRejectedWithEveryProblem(String behaviour, String file, List<String> expected) {
    assertThat(problems(fixture("invalid/" + file))).as(behaviour)
        .containsExactlyElementsOf(expected);
  }

  @Test
  void aWellFormedGroupWithBodyRefsToOuterNodesLoads() {
    Workflow wf = ENGINE.parse(fixture("group/well_formed.yaml"), "lg.yaml");

    Node fix = wf.node("fix");
    assertThat(fix.kind()).isEqualTo("loop_group");
    assertThat(fix.dependsOn()).containsExactly("setup");
    assertThat(fix.body()).isInstanceOfSatisfying(Node.Loop.class, loop -> {
      assertThat(loop.maxIterations()).isEqualTo(5);
      assertThat(loop.onExhausted()).isEqualTo(Edge.OnExhausted.CONTINUE);
      assertThat(loop.budget()).isEqualTo(new Budget(null, null, 10));
      // The body keeps its own nodes and their depends_on; the outer node is only read in templates.
      assertThat(loop.body()).extracting(Node::id).containsExactly("implement", "review");
      assertThat(loop.body().get(0).dependsOn()).isEmpty();
      assertThat(loop.body().get(1).dependsOn()).containsExactly("implement");
      assertThat(loop.config()).isInstanceOfSatisfying(LoopConfig.Group.class, group -> {
        assertThat(group.until()).isEqualTo("TESTS_PASS");
        assertThat(group.untilCommand()).isNotNull();
        assertThat(group.freshContext()).isTrue();
        assertThat(group.interactive()).isTrue();
        assertThat(group.gateMessage()).isNotNull();
        assertThat(group.terminal()).isEqualTo("review");
      });
    });
  }
}
