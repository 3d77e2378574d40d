package dev.loopflow.core.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Jinjava reads '+1' right after a value as a second value, so 'n+1' does not parse (Jinja's own parser takes it):
 * the load error says how to write it.
 */
class PlusWithoutSpaceTest {
  @Test
  void aPlusWrittenWithoutASpaceBeforeANumberIsRefusedWithTheFix() {
    for (String t : new String[] {"{{ n+1 }}", "{{ 1+1 }}", "{{ state.count+2 }}", "{{ 'a' ~ x+0.5 }}"}) {
      assertThatThrownBy(() -> Expressions.template(t)).as(t)
          .isInstanceOf(TemplateSyntaxException.class)
          .hasMessageContaining("unexpected '+'").hasMessageContaining("write a space after '+' ('n + 1')");
    }
    assertThat(Expressions.template("{{ n + 1 }}").render(Map.of("n", 1))).isEqualTo("2");
    assertThat(Expressions.template("{{ n+ 1 }}").render(Map.of("n", 1))).isEqualTo("2");
  }
}
