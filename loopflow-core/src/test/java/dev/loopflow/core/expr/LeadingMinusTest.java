package dev.loopflow.core.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Jinjava takes a '-' after "{{ " for the whitespace-control marker, spaces or not, so {@code {{ -x }}} rendered x:
 * a negative lost its sign, silently. Such a template is now refused when it is compiled, at its line.
 */
class LeadingMinusTest {
  private static final Map<String, Object> SCOPE = Map.of("x", 5, "state", Map.of("delta", 2.5));

  static Stream<String> refused() {
    return Stream.of("{{ -x }}", "a {{ -x }} b", "{{  -state.delta }}", "{{\t-x }}", "{{\n-x / 2 }}",
        "line1\nline2 {{ -x | abs }}", "{% if true %}{{ -x }}{% endif %}", "{{ - x }}", "{{ -x -}}");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refused")
  void aMinusAfterTheOpeningBracesAndASpaceIsRefused_bugRenderedThePositiveValue(String template) {
    assertThatThrownBy(() -> Expressions.template(template))
        .isInstanceOf(TemplateSyntaxException.class)
        .hasMessageContaining("whitespace control")
        .hasMessageNotContaining("Exception");
  }

  @Test
  void theRefusalNamesTheLineOfTheExpression() {
    TemplateSyntaxException e = org.assertj.core.api.Assertions.catchThrowableOfType(TemplateSyntaxException.class,
        () -> Expressions.template("one\ntwo\nthree {{ -x }}"));
    assertThat(e.line()).isEqualTo(3);
  }

  @Test
  void negativesWrittenOtherwiseAndTheTrimMarkerStillWork() {
    assertThat(render("{{ (-x) }}")).isEqualTo("-5");
    assertThat(render("a {{ 0 - x }}")).isEqualTo("a -5");
    assertThat(render("a {{ x * -1 }}")).isEqualTo("a -5");
    // The marker itself (no space before the '-') is still accepted; it never carries a sign.
    assertThat(render("a {{- x }}")).endsWith("5").doesNotContain("-");
    assertThat(render("{{ x -}} b")).startsWith("5").doesNotContain("-");
    assertThat(render("{% raw %}{{ -x }}{% endraw %}")).isEqualTo("{{ -x }}");
    assertThat(render("{# {{ -x }} #}ok")).isEqualTo("ok");
    assertThat(render("{{ '-x' }}")).isEqualTo("-x");
  }

  private static String render(String template) {
    return String.valueOf(Expressions.template(template).render(SCOPE));
  }
}
