package dev.loopflow.core.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Template errors reach callers of the expression API as the root exception, told apart by code: a template or
 * condition that does not parse is {@code workflow_invalid}, one that fails while rendering is {@code node_failed}.
 */
class TemplateErrorCodesTest {
  private static final Map<String, Object> SCOPE = Map.of("input", Map.of("text", "abc", "n", 3),
      "state", Map.of("items", List.of(1, 2, 3), "m", Map.of("k", "v")));

  @ParameterizedTest
  @ValueSource(strings = {
      "{{ a + }}", "{{ a b }}", "{{ (a }}", "{{ a. }}", "{{ 'abc }}", "{{ a == == b }}", "{{ 1 +* 2 }}",
      "{% if x %}never closed", "{% for x in y %}{% endif %}", "{% bogus %}", "{% for %}{% endfor %}",
      "{% for x %}{% endfor %}", "{{ x | no_such_filter }}", "text {{ a", "{% if a %}{% if b %}{% endif %}",
      "line one\n{{ a ! }}", "{% set %}", "{% if a == %}yes{% endif %}"})
  void aTemplateThatDoesNotParseIsWorkflowInvalid(String source) {
    LoopflowException e = thrown(() -> Expressions.template(source));
    assertThat(e.code()).isEqualTo(ErrorCode.WORKFLOW_INVALID);
    assertThat(e).isInstanceOf(TemplateSyntaxException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "   ", "a ==", "(a", "a |", "x | no_such_filter", "{{ a + }}", "a b", "not",
      "'unterminated", "a[", "a and or b"})
  void aConditionThatDoesNotParseIsWorkflowInvalid(String source) {
    LoopflowException e = thrown(() -> Expressions.condition(source));
    assertThat(e.code()).isEqualTo(ErrorCode.WORKFLOW_INVALID);
  }

  static List<Map<String, ?>> malformedStructuredConditions() {
    return List.of(Map.of(), Map.of("bogus", 1), Map.of("and", List.of()), Map.of("or", "x"),
        Map.of("equals", Map.of("var", "x")), Map.of("gt", Map.of("var", "x", "value", 1, "extra", 2)),
        Map.of("not", 42), Map.of("expr", 7), Map.of("expr", "a =="), Map.of("equals", 1, "gt", 2));
  }

  @ParameterizedTest
  @MethodSource("malformedStructuredConditions")
  void aMalformedStructuredConditionIsWorkflowInvalid(Map<String, ?> form) {
    LoopflowException e = thrown(() -> Expressions.structured(form));
    assertThat(e.code()).isEqualTo(ErrorCode.WORKFLOW_INVALID);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "{{ range(200000) | length }}",
      "{{ range(1, 10, 0) }}",
      "{{ range('many') }}",
      "{{ 'x'.repeat(100000000) }}",
      "{{ '%0999999999d'.formatted(1) }}",
      "{{ input.text | center(100000000) }}",
      "{{ state.items | batch(2000000) }}",
      "{{ 1.5 | round(5000) }}",
      "{{ state.m.toString() }}",
      "{% set l = [1] %}{% for i in range(30) %}{% set l = [l, l] %}{% endfor %}{{ l | length }}",
      "{{ state.m.put('k', 'x') }}",
      "{{ state.items.add(4) }}",
      "prefix {{ input.text.replace('', 'yyyyyyyyyyyyyyyy') | string }} {{ 'z'.repeat(40000000) }}"})
  void aTemplateThatFailsWhileRenderingIsNodeFailed(String source) {
    Template t = Expressions.template(source);
    for (Supplier<Object> use : List.<Supplier<Object>>of(() -> t.render(SCOPE), () -> t.evaluate(SCOPE))) {
      LoopflowException e = thrown(use::get);
      assertThat(e.code()).isEqualTo(ErrorCode.NODE_FAILED);
      assertThat(e).isInstanceOf(TemplateRenderException.class);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"range(200000) | length > 0", "'x'.repeat(100000000) == ''", "state.m.toString() == ''",
      "range(1, 2, 0) | length == 0", "state.items.add(4)"})
  void aConditionThatFailsWhileTestingIsNodeFailed(String source) {
    Condition c = Expressions.condition(source);
    assertThat(thrown(() -> c.test(SCOPE)).code()).isEqualTo(ErrorCode.NODE_FAILED);
    assertThat(thrown(() -> Expressions.evaluateExpression(source, SCOPE)).code()).isEqualTo(ErrorCode.NODE_FAILED);
  }

  private static LoopflowException thrown(ThrowingCallable call) {
    LoopflowException e = catchThrowableOfType(LoopflowException.class, call);
    assertThat(e).as("expected a LoopflowException").isNotNull();
    return e;
  }
}
