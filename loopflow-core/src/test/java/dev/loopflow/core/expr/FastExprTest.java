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
      "b", "", "10", true, false, List.of(1), Map.of("x", 1), new java.math.BigDecimal("2"), 3.0f, (short) 2);

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
      case 2 -> "'" + List.of("a", "b", "", "10").get(r.nextInt(4)) + "'";
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
        String op = List.of("==", "!=", "<", "<=", ">", ">=").get(r.nextInt(6));
        yield operand(r) + " " + op + " " + operand(r);
      }
      case 2 -> "not " + (r.nextBoolean() ? operand(r) : "(" + expr(r, depth + 1) + ")");
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
  void answersTheCommonLoopConditionsWithoutJinjava() {
    Map<String, Object> scope = Map.of("state", Map.of("count", 3L, "approved", false, "tries", 1),
        "input", Map.of("n", 1000), "review", Map.of("passed", true));
    assertThat(FastExpr.compile("state.count < input.n").test(scope)).isEqualTo(true);
    assertThat(FastExpr.compile("not state.approved").test(scope)).isEqualTo(true);
    assertThat(FastExpr.compile("review.passed == true and state.tries < 3").test(scope)).isEqualTo(true);
    assertThat(FastExpr.compile("(state.count >= 3) or state.approved").test(scope)).isEqualTo(true);
  }

  @Test
  void leavesEverythingOutsideTheSubsetToJinjava() {
    for (String e : List.of("state.items | length > 2", "state.x is defined", "'a' in state.tags", "state.n + 1 < 3",
        "state.list[0] == 1", "len(state.x) > 0", "1 < state.x < 3", "state.s == 'it\\'s'", "True", "none")) {
      assertThat(FastExpr.compile(e)).as(e).isNull();
    }
    Map<String, Object> scope = Map.of("state", Map.of("list", List.of(1), "big", new java.math.BigDecimal("1")));
    assertThat(FastExpr.compile("state.missing < 3").test(scope)).isSameAs(FastExpr.UNKNOWN);
    assertThat(FastExpr.compile("state.list == 1").test(scope)).isSameAs(FastExpr.UNKNOWN);
    assertThat(FastExpr.compile("state.big < 3").test(scope)).isSameAs(FastExpr.UNKNOWN);
    assertThat(FastExpr.compile("state.list").test(scope)).isSameAs(FastExpr.UNKNOWN);
  }
}
