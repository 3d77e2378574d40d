package dev.loopflow.core.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.Problem;
import dev.loopflow.core.error.WorkflowInvalidException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A value is never evaluated again as a template: Jinjava's render filter (which renders its input) and the tags
 * that render another template are load errors with the file, line and column, in templates and conditions.
 */
class NoReRenderingTest {
  private static final Loopflow ENGINE = Loopflow.create();

  @ParameterizedTest
  @ValueSource(strings = {"{{ input.v | render }}", "{{ input.v|render }}", "{{ (input.v ~ '') | render }}",
      "x {{ input.v | trim | render | upper }}", "{{ input.v | render() }}", "{% if true %}{{ input.v | render }}{% endif %}",
      "{% set t = input.v | render %}{{ t }}", "{% include input.v %}", "{% include 'a.j2' %}",
      "{% import input.v as m %}", "{% from input.v import f %}", "{% extends input.v %}",
      "{% for x in [1] %}{% include input.v %}{% endfor %}"})
  void reRenderingAValueIsALoadError_bugRenderFilterEvaluatedAValueAgain(String template) {
    WorkflowInvalidException e = catchThrowableOfType(WorkflowInvalidException.class, () -> ENGINE.parse("""
        name: r
        nodes:
          - id: t
            type: transform
            template: "%s"
        """.formatted(template.replace("\"", "\\\"")), "t.yaml"));

    assertThat(e).as(template).isNotNull();
    assertThat(e.problems()).extracting(Problem::format).allMatch(p -> p.matches("t\\.yaml:[0-9]+:[0-9]+: .*"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"state.x | render", "(input.v | render) == 'a'"})
  void aConditionCannotReRenderEither(String condition) {
    WorkflowInvalidException e = catchThrowableOfType(WorkflowInvalidException.class, () -> ENGINE.parse("""
        name: r
        nodes:
          - id: t
            type: transform
            template: "x"
            when: "%s"
        """.formatted(condition), "t.yaml"));

    assertThat(e).as(condition).isNotNull();
  }
}
