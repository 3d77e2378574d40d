package dev.loopflow.core.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Both condition forms (Jinja expressions and 001's structured maps) compile to the same predicate type. */
class ConditionsTest {
  private static final Map<String, Object> SCOPE = Map.of(
      "reviewer", Map.of("structuredOutput", Map.of("passed", true, "score", 7), "text", "LGTM"),
      "state", Map.of("count", 3, "tags", List.of("a", "b"), "is_valid", false),
      "input", Map.of("mode", "fast", "limit", "10"));

  private static boolean test(Map<String, ?> form) {
    return Expressions.structured(form).test(SCOPE);
  }

  private static Map<String, Object> op(String name, String var, Object value) {
    return Map.of(name, Map.of("var", var, "value", value));
  }

  @Test
  void equalsComparesValuesLooselyAcrossNumberTypes() {
    assertThat(test(op("equals", "reviewer.structuredOutput.passed", true))).isTrue();
    assertThat(test(op("equals", "reviewer.structuredOutput.passed", false))).isFalse();
    assertThat(test(op("equals", "reviewer.structuredOutput.score", 7.0))).isTrue();
    assertThat(test(op("equals", "input.mode", "fast"))).isTrue();
    assertThat(test(op("equals", "missing.path", "x"))).isFalse();
  }

  @Test
  void notInvertsTheConditionAsInSeed001() {
    Map<String, Object> loopWhen = Map.of("not", op("equals", "reviewer.structuredOutput.passed", true));
    assertThat(test(loopWhen)).isFalse();
    assertThat(Expressions.structured(loopWhen).test(Map.of())).isTrue();
    assertThat(Expressions.structured(loopWhen).roots()).containsExactly("reviewer");
  }

  @Test
  void andOrCombineConditionsAndStrings() {
    assertThat(test(Map.of("and", List.of(op("gt", "state.count", 2), "input.mode == 'fast'")))).isTrue();
    assertThat(test(Map.of("and", List.of(op("gt", "state.count", 2), op("lt", "state.count", 3))))).isFalse();
    assertThat(test(Map.of("or", List.of(op("lt", "state.count", 3), Map.of("exists", "reviewer.text"))))).isTrue();
    assertThat(test(Map.of("or", List.of(false, op("equals", "input.mode", "slow"))))).isFalse();
  }

  @Test
  void existsGtLtAndInEvaluateAsDocumented() {
    assertThat(test(Map.of("exists", "reviewer.text"))).isTrue();
    assertThat(test(Map.of("exists", Map.of("var", "reviewer.nothing")))).isFalse();
    assertThat(test(op("gt", "input.limit", 9))).isTrue(); // numeric strings compare as numbers
    assertThat(test(op("lt", "input.limit", 9))).isFalse();
    assertThat(test(op("gte", "state.count", 3))).isTrue();
    assertThat(test(op("lte", "state.count", 2))).isFalse();
    assertThat(test(op("gt", "input.mode", 1))).isFalse(); // not a number
    assertThat(test(op("in", "input.mode", List.of("slow", "fast")))).isTrue();
    assertThat(test(op("in", "input.mode", List.of("slow")))).isFalse();
    assertThat(test(op("in", "input.mode", "breakfast"))).isTrue(); // substring of a string
  }

  @Test
  void exprOperatorTakesAJinjaExpression() {
    assertThat(test(Map.of("expr", "state.count * 2 == 6"))).isTrue();
  }

  @Test
  void jinjaExpressionsFromTheSeedsEvaluate() {
    assertThat(Expressions.condition("state.count < 5").test(SCOPE)).isTrue();
    assertThat(Expressions.condition("not state.get('is_valid', False)").test(SCOPE)).isTrue();
    assertThat(Expressions.condition("reviewer.structuredOutput.passed == true").test(SCOPE)).isTrue();
    assertThat(Expressions.condition("'LGTM' in reviewer.text").test(SCOPE)).isTrue();
    assertThat(Expressions.condition("{{ state.count > 10 }}").test(SCOPE)).isFalse();
    assertThat(Expressions.condition("nobody.text").test(SCOPE)).isFalse();
  }

  @Test
  void malformedStructuredConditionsAreSyntaxErrors() {
    assertThatThrownBy(() -> Expressions.structured(Map.of("equals", Map.of("var", "x"))))
        .isInstanceOf(TemplateSyntaxException.class).hasMessage("'equals' needs a 'value'");
    assertThatThrownBy(() -> Expressions.structured(Map.of("equals", Map.of("var", "x", "value", 1, "valeu", 2))))
        .isInstanceOf(TemplateSyntaxException.class)
        .hasMessage("'equals' has unknown field 'valeu' (expected var, value)");
    assertThatThrownBy(() -> Expressions.structured(Map.of("and", List.of())))
        .hasMessage("'and' takes a non-empty list of conditions");
    assertThatThrownBy(() -> Expressions.structured(Map.of("not", 3)))
        .hasMessage("'not' takes a condition (a map or an expression string)");
    assertThatThrownBy(() -> Expressions.structured(Map.of("eq", Map.of("var", "x", "value", 1))))
        .hasMessage("unknown operator 'eq'; expected one of "
            + "[and, equals, exists, expr, gt, gte, in, lt, lte, not, or]");
    assertThatThrownBy(() -> Expressions.structured(Map.of("gt", Map.of("var", "x", "value", 1), "lt",
        Map.of("var", "x", "value", 1))))
        .hasMessageStartingWith("a structured condition has exactly one operator");
  }

  @Test
  void conditionRootsAreReportedInTheOrderWritten() {
    assertThat(Expressions.condition("zeta.x and alpha.y or mid.z").roots()).containsExactly("zeta", "alpha", "mid");
    assertThat(Expressions.template("{{ zeta.x }} {{ alpha.y }} {{ mid.z }}").roots())
        .containsExactly("zeta", "alpha", "mid");
  }
}
