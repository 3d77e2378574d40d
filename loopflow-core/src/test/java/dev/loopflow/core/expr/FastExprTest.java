package dev.loopflow.core.expr;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** FastExpr must agree with Jinjava whenever it answers, and must answer the common loop conditions. */
class FastExprTest {

  private static final List<Object> VALUES = List.of(0, 1, 2, -3, 5L, 10_000_000_000L, 1.5, 2.0, -0.0, 0.0, "a",
      "b", "", "10", "ab", "APPROVED, ship it", true, false, List.of(1), List.of("a"), Map.of("x", 1),
      new java.math.BigDecimal("2"), 3.0f, (short) 2);

  private static Map<String, Object> scope(Random r) {
    Map<String, Object> state = new LinkedHashMap<>();
    Map<String, Object> input = new LinkedHashMap<>();
    for (String k : List.of("count", "n", "ok", "name", "x")) {
      if (r.nextInt(6) > 0) {
        state.put(k, VALUES.get(r.nextInt(VALUES.size())));
      }
      if (r.nextInt(6) > 0) {
        input.put(k, VALUES.get(r.nextInt(VALUES.size())));
      }
    }
    if (r.nextBoolean()) {
      state.put("nested", Map.of("count", VALUES.get(r.nextInt(VALUES.size()))));
    }
    Map<String, Object> scope = new LinkedHashMap<>();
    scope.put("state", java.util.Collections.unmodifiableMap(state));
    scope.put("input", java.util.Collections.unmodifiableMap(input));
    return scope;
  }

  private static String operand(Random r) {
    return switch (r.nextInt(9)) {
      case 0 -> String.valueOf(r.nextInt(7) - 3);
      case 1 -> (r.nextInt(5) - 2) + "." + r.nextInt(10);
      case 2 -> "'" + List.of("a", "b", "", "10", "APPROVED").get(r.nextInt(5)) + "'";
      case 3 -> r.nextBoolean() ? "true" : "false";
      case 4 -> "state.nested.count";
      case 5 -> "state.missing";
      default -> (r.nextBoolean() ? "state." : "input.") + List.of("count", "n", "ok", "name", "x").get(r.nextInt(5));
    };
  }

  private static String expr(Random r, int depth) {
    int k = depth > 2 ? 0 : r.nextInt(5);
    return switch (k) {
      case 0, 1 -> {
        String op = List.of("==", "!=", "<", "<=", ">", ">=", "in", "in").get(r.nextInt(8));
        yield operand(r) + " " + op + " " + operand(r);
      }
      // `not` before a comparison without parentheses too: `not 'a' in state.name` must group as Jinjava groups it.
      case 2 -> "not " + switch (r.nextInt(3)) {
        case 0 -> operand(r);
        case 1 -> operand(r) + " " + List.of("in", "==", "<").get(r.nextInt(3)) + " " + operand(r);
        default -> "(" + expr(r, depth + 1) + ")";
      };
      case 3 -> expr(r, depth + 1) + (r.nextBoolean() ? " and " : " or ") + expr(r, depth + 1);
      default -> r.nextBoolean() ? operand(r) : "(" + expr(r, depth + 1) + ")";
    };
  }

  @Test
  void agreesWithJinjavaWheneverItAnswersOnGeneratedExpressionsAndScopes() {
    Random r = new Random(7);
    int answered = 0;
    List<String> disagreements = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      String e = expr(r, 0);
      FastExpr fast = FastExpr.compile(e);
      assertThat(fast).as("compiles: %s", e).isNotNull();
      Map<String, Object> scope = scope(r);
      Object got = fast.test(scope);
      if (got == FastExpr.UNKNOWN) {
        continue;
      }
      answered++;
      boolean jinja;
      try {
        jinja = Jinja.truthy(Jinja.evaluate(e, scope));
      } catch (RuntimeException ex) {
        disagreements.add(e + " with " + scope + ": fast=" + got + ", Jinjava threw " + ex.getMessage());
        continue;
      }
      if (!got.equals(jinja)) {
        disagreements.add(e + " with " + scope + ": fast=" + got + ", Jinjava=" + jinja);
      }
    }
    assertThat(disagreements).isEmpty();
    assertThat(answered).as("answered by the fast path").isGreaterThan(2_000);
  }

  @Test
  void valuesAreJinjavasEvaluationWheneverTheFastPathAnswers() {
    Random r = new Random(13);
    int answered = 0;
    List<String> disagreements = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      String e = i % 3 == 0 ? operand(r) : expr(r, 0);
      FastExpr fast = FastExpr.compile(e);
      assertThat(fast).as("compiles: %s", e).isNotNull();
      Map<String, Object> scope = scope(r);
      Object got = fast.value(scope);
      if (got == FastExpr.UNKNOWN) {
        continue;
      }
      answered++;
      Object jinja;
      try {
        jinja = Jinja.evaluate(e, scope);
      } catch (RuntimeException ex) {
        jinja = "(throws " + ex.getMessage() + ")";
      }
      if (!got.equals(jinja) || got.getClass() != jinja.getClass()) {
        disagreements.add(e + " with " + scope + ": fast=" + got + ", Jinjava=" + jinja);
      }
    }
    assertThat(disagreements).isEmpty();
    assertThat(answered).isGreaterThan(2_000);
  }

  @Test
  void answersTheCommonLoopConditionsWithoutJinjava() {
    Map<String, Object> scope = Map.of("state", Map.of("count", 3L, "approved", false, "tries", 1),
        "input", Map.of("n", 1000), "review", Map.of("passed", true));
    assertThat(FastExpr.compile("state.count < input.n").test(scope)).isEqualTo(true);
    assertThat(FastExpr.compile("not state.approved").test(scope)).isEqualTo(true);
    assertThat(FastExpr.compile("review.passed == true and state.tries < 3").test(scope)).isEqualTo(true);
    assertThat(FastExpr.compile("(state.count >= 3) or state.approved").test(scope)).isEqualTo(true);
  }

  @Test
  void notBindsTighterThanAComparisonAsInJinjava_bugNotAEqualsBWasReadAsNotOfTheComparison() {
    Map<String, Object> scope = Map.of("state", Map.of("status", "running"));
    String e = "not state.status == 'done'";
    Object fast = FastExpr.compile(e).test(scope);
    boolean jinja = Jinja.truthy(Jinja.evaluate(e, scope));
    assertThat(jinja).as("Jinjava reads (not state.status) == 'done'").isFalse();
    assertThat(fast).as("the fast path answers as Jinjava does, or leaves it to Jinjava").isIn(jinja,
        FastExpr.UNKNOWN);
    assertThat(FastExpr.compile("not (state.status == 'done')").test(scope)).isEqualTo(true);
  }

  @Test
  void leavesEverythingOutsideTheSubsetToJinjava() {
    for (String e : List.of("state.items | length > 2", "state.x is defined", "'a' in 'b' in state.s", "state.n + 1 < 3",
        "state.list[0] == 1", "len(state.x) > 0", "1 < state.x < 3", "state.s == 'it\\'s'", "True", "none")) {
      assertThat(FastExpr.compile(e)).as(e).isNull();
    }
    Map<String, Object> scope = Map.of("state", Map.of("list", List.of(1), "big", new java.math.BigDecimal("1")));
    assertThat(FastExpr.compile("state.missing < 3").test(scope)).isSameAs(FastExpr.UNKNOWN);
    assertThat(FastExpr.compile("state.list == 1").test(scope)).isSameAs(FastExpr.UNKNOWN);
    assertThat(FastExpr.compile("state.big < 3").test(scope)).isSameAs(FastExpr.UNKNOWN);
    assertThat(FastExpr.compile("state.list").test(scope)).isSameAs(FastExpr.UNKNOWN);
    assertThat(FastExpr.compile("'a' in state.list").test(scope)).as("membership in a list").isSameAs(
        FastExpr.UNKNOWN);
    assertThat(FastExpr.compile("'APPROVED' in review.text").test(Map.of("review", Map.of("text",
        "APPROVED, ship it")))).isEqualTo(true);
  }

  /**
   * A condition in the subset is compiled without Jinjava's syntax check (so a run with only such conditions never
   * loads Jinjava); that is right only if every expression the subset accepts is one Jinjava accepts, with the same
   * roots and references.
   */
  @Test
  void everyExpressionTheSubsetAcceptsIsOneJinjavaAcceptsWithTheSameRoots() {
    List<String> corpus = new ArrayList<>(List.of("state.count < input.n", "not not state.ok", "((state.x))",
        "-1 < state.n", "- 1 < state.n", "1.5 >= -0.0", "state.caf\u00e9 == 'x'", "\u00e9t\u00e9.x",
        "state._private.x1 != \"\"", "a.b.c.d.e.f == 'deep'", "x", "true", "false and x", "'it'", "\"a b\" == 'a b'",
        "state.n == 10000000000000000000000", "1. < 2", "0.5.5 < 1", "1..2 < 3", "state.1 < 2", "state..x",
        "state.x.", ".x", "(x", "x)", "x == == y", "x <", "not", "x and", "a.b == 'x\\'", "{{ state.n < 3 }}",
        "  {{state.ok}}  ", "state.n <> 3", "state.\u0661 == 1", "\u0661 == 1", "\u2167 < 1", "x\u200b == 1",
        "state.n<3", "state.n>=-3", "(((((((((state.ok)))))))))", "not(state.ok)", "state.ok==true",
        "x == 'a' or y == \"b\" and not z"));
    Random r = new Random(11);
    for (int i = 0; i < 5_000; i++) {
      corpus.add(expr(r, 0));
    }
    List<String> wrong = new ArrayList<>();
    for (String e : corpus) {
      Condition fast = JinjaCondition.ofFastSubset(e);
      if (fast == null) {
        continue;
      }
      try {
        Condition jinja = Jinja.compileCondition(e);
        if (!jinja.roots().equals(fast.roots()) || !jinja.references().equals(fast.references())) {
          wrong.add(e + ": roots " + fast.roots() + " vs " + jinja.roots());
        }
      } catch (RuntimeException ex) {
        wrong.add(e + ": Jinjava refuses it: " + ex.getMessage());
      }
    }
    assertThat(wrong).isEmpty();
  }
}
