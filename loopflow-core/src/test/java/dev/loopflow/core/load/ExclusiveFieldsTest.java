package dev.loopflow.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.Problem;
import dev.loopflow.core.error.WorkflowInvalidException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Fields a node kind's spec says exclude each other are refused by the loader, in the same words for every kind,
 * and the node is not compiled: nothing else is said about it.
 */
class ExclusiveFieldsTest {
  private final Loopflow engine = Loopflow.create();

  private List<String> problems(String yaml) {
    WorkflowInvalidException e = catchThrowableOfType(WorkflowInvalidException.class,
        () -> engine.parse(yaml, "w.yaml"));
    assertThat(e).as("expected the workflow to be invalid").isNotNull();
    return e.problems().stream().map(Problem::format).toList();
  }

  @Test
  void aPairIsReportedAtItsSecondFieldAndALargerGroupAtTheNode() {
    assertThat(problems("""
        name: x
        nodes:
          - id: a
            command: echo a
            bash: echo b
            env: 3
          - id: s
            type: script
            run: return {}
            code: return {}
            max_memory: 5
          - id: t
            type: transform
            template: hi
            value: 1
            expression: 1 +
          - id: u
            type: transform
            value: 1
            expression: 2
        """)).containsExactly(
        "w.yaml:5:11: nodes.a.bash: give 'command' or 'bash', not both",
        "w.yaml:10:11: nodes.s.code: give 'run' or 'code', not both",
        "w.yaml:12:5: nodes.t: give one of 'template', 'value' or 'expression'",
        "w.yaml:17:5: nodes.u: give one of 'template', 'value' or 'expression'");
  }

  @Test
  void aFieldWithoutAValueIsNotGiven() throws Exception {
    assertThat(engine.parse("""
        name: x
        nodes:
          - id: a
            command: echo a
            bash: null
        """, "w.yaml").nodes()).hasSize(1);
  }
}
