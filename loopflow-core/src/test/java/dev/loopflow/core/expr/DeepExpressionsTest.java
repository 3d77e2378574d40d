package dev.loopflow.core.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Collections;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * Expressions written to exhaust the stack (deep parentheses, long chains of `not`) are a load error at their line,
 * never a crash of the loading process; long flat conditions still work.
 */
class DeepExpressionsTest {
  static Stream<String> tooDeep() {
    return Stream.of("(".repeat(20_000) + "state.x < 3" + ")".repeat(20_000), "not ".repeat(20_000) + "state.ok",
        "- ".repeat(20_000) + "1 < 2");
  }

  @ParameterizedTest
  @MethodSource("tooDeep")
  void aConditionNestedTooDeeplyIsRefusedWhenItIsCompiled_bugStackOverflowEndedTheLoad(String condition) {
    assertThatThrownBy(() -> Expressions.condition(condition))
        .isInstanceOf(TemplateSyntaxException.class)
        .hasMessageContaining("nests too deeply");
    assertThatThrownBy(() -> Expressions.template("x\n{{ " + condition + " }}"))
        .isInstanceOf(TemplateSyntaxException.class)
        .hasMessageContaining("nests too deeply")
        .satisfies(e -> assertThat(((TemplateSyntaxException) e).line()).isEqualTo(2));
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
}
