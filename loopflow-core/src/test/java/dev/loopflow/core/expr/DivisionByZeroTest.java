package dev.loopflow.core.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Dividing by zero is an error with a plain message, never a value. Jinjava divides as doubles, so {@code n / 0}
 * used to render "Infinity" and {@code 0 / 0} "NaN": a wrong answer, silently.
 */
class DivisionByZeroTest {
  private static Map<String, Object> scope() {
    Map<String, Object> input = new HashMap<>();
    input.put("n", 5);
    input.put("zero", 0);
    input.put("fzero", 0.0);
    input.put("negzero", -0.0);
    input.put("big", new BigDecimal("2.50"));
    input.put("bigzero", BigDecimal.ZERO);
    input.put("text0", "0");
    input.put("inf", Double.POSITIVE_INFINITY);
    return Map.of("input", input);
  }

  static Stream<String> byZero() {
    return Stream.of("{{ input.n / 0 }}", "{{ input.n / input.zero }}", "{{ input.zero / input.zero }}",
        "{{ (-input.n) / input.zero }}", "{{ 1.5 / 0.0 }}", "{{ input.n / input.fzero }}", "{{ input.n / input.negzero }}",
        "{{ input.big / input.bigzero }}", "{{ input.n / input.bigzero }}", "{{ input.n / input.text0 }}",
        "{{ input.n / input.missing }}", "{{ input.missing / input.other_missing }}", "{{ input.inf / 0 }}", "{{ input.n // 0 }}", "{{ input.n % 0 }}",
        "a {{ (input.n + 1) / (input.n - 5) }} b", "{% if input.n / 0 > 1 %}big{% endif %}",
        "{% set r = input.n / input.zero %}{{ r }}", "{{ [1, 2] | map('int') | sum / 0 }}");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("byZero")
  void aTemplateDividingByZeroFailsSayingSo_bugRenderedInfinity(String template) {
    assertThatThrownBy(() -> Expressions.template(template).render(scope()))
        .isInstanceOf(TemplateRenderException.class)
        .hasMessageStartingWith("division by zero in '")
        .hasMessageNotContaining("Exception")
        .hasMessageNotContaining("Infinity");
  }

  @Test
  void conditionsAndExpressionsDividingByZeroFailToo() {
    assertThatThrownBy(() -> Expressions.condition("input.n / input.zero > 1").test(scope()))
        .isInstanceOf(TemplateRenderException.class).hasMessageStartingWith("division by zero in '");
    assertThatThrownBy(() -> Expressions.evaluateExpression("0 / 0", scope()))
        .isInstanceOf(TemplateRenderException.class).hasMessageStartingWith("division by zero in '");
  }

  @Test
  void divisionsByAnythingElseAreUnchanged() {
    assertThat(render("{{ input.n / 2 }}")).isEqualTo("2.5");
    assertThat(render("{{ (-input.n) / 2 }}")).isEqualTo("-2.5");
    assertThat(render("{{ input.n / 5 }}")).isEqualTo("1.0");
    assertThat(render("{{ 1 / 3 }}")).isEqualTo(String.valueOf(1.0 / 3));
    assertThat(render("{{ input.big / 2 }}")).isEqualTo("1.25");
    assertThat(render("{{ input.n / 0.5 }}")).isEqualTo("10.0");
    assertThat(render("{{ 1e-300 / 1e300 }}")).isEqualTo("0.0");
    // An infinity a workflow passed in is its own value, not a division by zero.
    assertThat(render("{{ input.inf / 2 }}")).isEqualTo("Infinity");
    assertThat(render("{{ input.n // 2 }} {{ input.n % 3 }}")).isEqualTo("2 2");
  }

  private static String render(String template) {
    return String.valueOf(Expressions.template(template).render(scope()));
  }
}
