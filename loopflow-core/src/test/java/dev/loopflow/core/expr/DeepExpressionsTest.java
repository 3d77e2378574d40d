package dev.loopflow.core.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Collections;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Expressions and templates written to exhaust the stack or the parser's time (deep brackets, long chains of `not`,
 * tags nested thousands deep) are a load error at their line, in well under a second, never a crash of the loading
 * process or a render that fails with a stack overflow; long flat expressions still work.
 */
@Timeout(60)
class DeepExpressionsTest {
  static Stream<String> tooDeep() {
    return Stream.of("(".repeat(20_000) + "state.x < 3" + ")".repeat(20_000),
        "[".repeat(5_000) + "1" + "]".repeat(5_000) + " == 1",
        "{'a': ".repeat(3_000) + "1" + "}".repeat(3_000) + " == 1",
        "(".repeat(101) + "1" + ")".repeat(101) + " < 2",
        "(".repeat(20_000) + "1 < 2", // unbalanced too: the depth is refused first
        "not ".repeat(20_000) + "state.ok",
        "1 < " + "- ".repeat(20_000) + "2");
  }

  @ParameterizedTest
  @MethodSource("tooDeep")
  void aConditionNestedTooDeeplyIsRefusedWhenItIsCompiled_bugStackOverflowEndedTheLoadAfterMinutes(String condition) {
    assertThatThrownBy(() -> Expressions.condition(condition))
        .isInstanceOf(TemplateSyntaxException.class)
        .hasMessageContaining("deep");
    assertThatThrownBy(() -> Expressions.template("x\n{{ (" + condition + ") }}"))
        .isInstanceOf(TemplateSyntaxException.class)
        .hasMessageContaining("deep")
        .satisfies(e -> assertThat(((TemplateSyntaxException) e).line()).isEqualTo(2));
  }

  @Test
  void bracketsUpToTheLimitAreReadAndBracketsInsideStringsDoNotCount() {
    String deepest = "(".repeat(JinjaLimits.MAX_BRACKETS - 1) + "state.x" + ")".repeat(JinjaLimits.MAX_BRACKETS - 1);
    assertThat(Expressions.condition("(" + deepest + ") < 3").test(Map.of("state", Map.of("x", 1)))).isTrue();
    String quoted = "'" + "(".repeat(500) + "' ~ \"" + "[".repeat(500) + "\\\"\" != ''";
    assertThat(Expressions.condition(quoted).test(Map.of())).isTrue();
    assertThat(Jinja.bracketDepth("'\\'(' ~ (1)")).isEqualTo(1);
  }

  @Test
  void tagsNestedThousandsDeepAreALoadError_bugTheRenderFailedWithAStackOverflow() {
    String deep = "a\n" + "{% if true %}".repeat(5_000) + "x" + "{% endif %}".repeat(5_000);
    assertThatThrownBy(() -> Expressions.template(deep))
        .isInstanceOf(TemplateSyntaxException.class)
        .hasMessageContaining("tags nest more than " + JinjaLimits.MAX_TAG_NESTING + " levels deep")
        .satisfies(e -> assertThat(((TemplateSyntaxException) e).line()).isEqualTo(2));
    int n = JinjaLimits.MAX_TAG_NESTING;
    String deepest = "{% for i in [1] %}".repeat(n) + "{{ i }}" + "{% endfor %}".repeat(n);
    assertThat(Expressions.template(deepest).render(Map.of())).isEqualTo("1");
  }

  @Test
  void aLongFlatConditionIsLeftToJinjavaAndStillAnswers() {
    String chain = String.join(" and ", Collections.nCopies(300, "state.x < 3"));
    assertThat(FastExpr.compile(chain)).as("beyond the fast subset's size").isNull();
    assertThat(FastExpr.compile(String.join(" and ", Collections.nCopies(20, "state.x < 3")))).isNotNull();
    Condition c = Expressions.condition(chain);
    assertThat(c.test(Map.of("state", Map.of("x", 1)))).isTrue();
    assertThat(c.test(Map.of("state", Map.of("x", 5)))).isFalse();
  }

  @Test
  void aLongExpressionIsQuotedAroundTheErrorInAMessageOfBoundedLength_bugTheMessageQuotedAll60000Characters() {
    String longOne = "1 + ".repeat(20_000) + "+ 2";
    assertThatThrownBy(() -> Expressions.template("{{ " + longOne + " }}"))
        .isInstanceOf(TemplateSyntaxException.class)
        .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(250)
            .contains("syntax error in '...").contains("1 + 1 + + 2'").contains("unexpected '+'"));
    String closers = ")".repeat(5_000);
    assertThatThrownBy(() -> Expressions.condition(closers))
        .isInstanceOf(TemplateSyntaxException.class)
        .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(250));
    assertThatThrownBy(() -> Expressions.condition("state.x <"))
        .hasMessageContaining("syntax error in 'state.x <'");
  }
}
