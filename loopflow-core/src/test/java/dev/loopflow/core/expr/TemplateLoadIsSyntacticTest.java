package dev.loopflow.core.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hubspot.jinjava.lib.fn.ELFunctionDefinition;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.run.RunResult;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Loading (and so {@code loopflow validate}) checks template syntax and never evaluates an expression. A probe
 * function counts its calls: compiling templates that call it in every position must leave the count at zero,
 * while rendering one of them calls it.
 */
class TemplateLoadIsSyntacticTest {
  private static final AtomicInteger CALLS = new AtomicInteger();

  static int probe() {
    CALLS.incrementAndGet();
    return 1;
  }

  @BeforeAll
  static void registerProbe() throws Exception {
    Method m = TemplateLoadIsSyntacticTest.class.getDeclaredMethod("probe");
    m.setAccessible(true);
    Jinja.JINJAVA.getGlobalContext().registerFunction(new ELFunctionDefinition("", "lfprobe", m));
  }

  @BeforeEach
  void reset() {
    CALLS.set(0);
  }

  @ParameterizedTest
  @ValueSource(strings = {"{{ lfprobe() }}", "x {{ lfprobe() }} y", "{% if lfprobe() %}a{% endif %}",
      "{% if true %}{{ lfprobe() }}{% endif %}", "{% if false %}{% else %}{{ lfprobe() }}{% endif %}",
      "{% if false %}{% elif lfprobe() %}a{% endif %}", "{% for i in [lfprobe()] %}{{ i }}{% endfor %}",
      "{% for i in range(3) %}{{ lfprobe() }}{% endfor %}", "{% set x = lfprobe() %}{{ x }}",
      "{% set x %}{{ lfprobe() }}{% endset %}{{ x }}", "{% set a, b = lfprobe(), 2 %}{{ a }}",
      "{{ 'a' ~ lfprobe() }}", "{{ [lfprobe()]|join(',') }}", "{% do lfprobe() %}", "{% print lfprobe() %}",
      "{% macro m() %}{{ lfprobe() }}{% endmacro %}{{ m() }}", "{{ lfprobe() if true else 0 }}",
      "{% unless false %}{{ lfprobe() }}{% endunless %}", "{{ {'k': lfprobe()}.k }}"})
  void compilingATemplateEvaluatesNothing_bugValidateRendersTemplates(String source) {
    Template t = Expressions.template(source);
    assertThat(CALLS.get()).as("calls while compiling").isZero();

    t.render(Map.of());
    assertThat(CALLS.get()).as("calls while rendering").isPositive();
  }

  @ParameterizedTest
  @ValueSource(strings = {"lfprobe() > 0", "lfprobe()", "{{ lfprobe() }}", "not (lfprobe() == 2)",
      "lfprobe() and lfprobe()"})
  void compilingAConditionEvaluatesNothing(String source) {
    Condition c = Expressions.condition(source);
    assertThat(CALLS.get()).isZero();

    c.test(Map.of());
    assertThat(CALLS.get()).isPositive();
  }

  @Test
  void structuredConditionsEvaluateNothingAtCompileTime() {
    Expressions.structured(Map.of("and", List.of(Map.of("expr", "lfprobe() == 1"), "lfprobe() > 0")));
    assertThat(CALLS.get()).isZero();
  }

  @ParameterizedTest
  @ValueSource(strings = {"{{ 'x'.repeat(1500000000) }}", "{{ 'x' * 1500000000 }}",
      "{% for i in range(1500000000) %}x{% endfor %}", "{{ range(1500000000)|length }}",
      "{% set l = [1] %}{% for i in range(64) %}{% set l = l + l %}{% endfor %}{{ l|length }}",
      "{{ '%0999999999d'|format(1) }}", "{{ 'x'|center(1500000000) }}", "{{ 1.5|round(1000000000) }}",
      "{% if 'x'.repeat(2000000000) %}a{% endif %}"})
  void memoryBombsLoadWithoutRunning(String source) {
    String yaml = """
        name: bombs
        nodes:
          - id: t
            type: transform
            template: '%s'
            when: "'x'.repeat(2000000000) | length > 0"
        output: '%s'
        """.formatted(source.replace("'", "''"), source.replace("'", "''"));

    assertThat(Loopflow.create().parse(yaml, "bombs.yaml").nodes()).hasSize(1);
  }

  @Test
  void memoryBombsFailAtRunTimeWithTheLimitNamed() {
    Loopflow engine = Loopflow.create();
    RunResult r = engine.run(engine.parse("""
        name: bomb
        nodes:
          - id: t
            type: transform
            template: "{{ 'x'.repeat(1500000000) }}"
        """, "bomb.yaml"), Map.of());

    assertThat(r.error().message()).contains("would build a string of 1500000000 characters")
        .contains("at most " + JinjaLimits.MAX_STRING);
  }

  @ParameterizedTest
  @ValueSource(strings = {"{{ a == == b }}", "{% if x %}{{ a == == b }}{% endif %}",
      "{% if false %}{% else %}{{ 1 + }}{% endif %}", "{% for x in [1] %}{{ (x }}{% endfor %}",
      "{% set x = 1 + %}", "{% if 1 + %}{% endif %}", "{% for x y %}{% endfor %}"})
  void syntaxErrorsAreFoundInEveryBranch(String source) {
    assertThatThrownBy(() -> Expressions.template(source)).isInstanceOf(TemplateSyntaxException.class);
  }
}
