package dev.loopflow.core.expr;

import static org.assertj.core.api.Assertions.assertThat;

import com.hubspot.jinjava.lib.filter.Filter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A missing value (a skipped node, a node that has not run, an absent key) renders as empty text through every
 * expression form, on the Jinjava path and the fast paths alike, and a template that is one expression yields null.
 */
class MissingValuesTest {
  /** {@code big} ran; {@code small} was skipped; {@code later} has not run (it is not in the scope at all). */
  private static Map<String, Object> scope() {
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("big", Map.of("status", "completed", "stdout", "BIG\n", "output", "BIG", "exitCode", 0));
    s.put("small", Map.of("status", "skipped"));
    s.put("state", Map.of("n", 2));
    s.put("input", Map.of());
    return s;
  }

  /** Every way a template can read a missing value. */
  private static final List<String> MISSING = List.of("small.stdout", "later.stdout", "small.json.a.b", "state.nothing",
      "input.nothing", "later", "small['stdout']");

  /** Filters that measure or convert a missing value the way Jinja does, and what they give. */
  private static final Map<String, String> MEASURED = Map.of("length", "0", "count", "0", "wordcount", "0", "int",
      "0", "float", "0.0", "bool", "false", "string", "");

  static Stream<Arguments> everyFilterOnEveryMissingValue() {
    List<Arguments> out = new ArrayList<>();
    Set<String> names = new TreeSet<>();
    for (Filter f : Jinja.JINJAVA.getGlobalContext().getAllFilters()) {
      names.add(f.getName());
    }
    for (String name : names) {
      if (name.equals("default") || name.equals("d")) {
        continue; // needs its argument; covered below
      }
      if (name.equals("render")) {
        continue; // refused when the template is compiled (NoReRenderingTest)
      }
      for (String missing : MISSING) {
        out.add(Arguments.of(name, missing));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{1} | {0}")
  @MethodSource("everyFilterOnEveryMissingValue")
  void filterOnMissingValueRendersEmptyNotNull_bugTrimRendersNull(String filter, String missing) {
    String expected = MEASURED.getOrDefault(filter, "");
    Template t = Expressions.template("{{ " + missing + " | " + filter + " }}");
    assertThat(t.render(scope())).as(t.source()).isEqualTo(expected);
    Template viaSet = Expressions.template("{% set v = " + missing + " %}[{{ v | " + filter + " }}]");
    assertThat(viaSet.render(scope())).as(viaSet.source()).isEqualTo("[" + expected + "]");
    Object typed = t.evaluate(scope());
    if (MEASURED.containsKey(filter)) {
      assertThat(String.valueOf(typed)).as(t.source()).isEqualTo(expected);
    } else {
      assertThat(typed).as(t.source()).isNull();
    }
  }

  static Stream<Arguments> renderedForms() {
    return Stream.of(
        Arguments.of("{{ big.stdout | trim }}{{ small.stdout | trim }}", "BIG"),
        Arguments.of("{{ big.output }}{{ small.stdout }}", "BIG"),
        Arguments.of("{{ big.output }}{{ later.stdout }}!", "BIG!"),
        Arguments.of("[{{ small.stdout }}]", "[]"),
        Arguments.of("{{ small.stdout | trim | upper }}", ""),
        Arguments.of("{{ small.stdout | default('z') }}", "z"),
        Arguments.of("{{ small.stdout | d('z') }}", "z"),
        Arguments.of("{{ small.stdout | trim | default('z') }}", "z"),
        Arguments.of("{{ small.stdout | trim | upper | default('z') }}", "z"),
        Arguments.of("{{ later.stdout | default('z') }}", "z"),
        Arguments.of("{{ x.y | default('z') }}", "z"),
        Arguments.of("{{ small.stdout ~ 'x' }}", "x"),
        Arguments.of("{{ 'x' ~ small.stdout }}", "x"),
        Arguments.of("{{ small.stdout ~ small.stdout }}", ""),
        Arguments.of("{{ small.stdout + 'x' }}", "x"),
        Arguments.of("{{ 'x' + small.stdout }}", "x"),
        Arguments.of("{{ 'x' + later.stdout + 'y' }}", "xy"),
        Arguments.of("{{ 'a' + 'b' }}", "ab"),
        Arguments.of("{{ 1 + 2 }}", "3"),
        Arguments.of("{{ state.n + 1 }}", "3"),
        Arguments.of("{{ '%s-%s' | format(small.stdout, 'b') }}", "-b"),
        Arguments.of("{{ '%s' | format(big.output) }}", "BIG"),
        Arguments.of("{{ small.stdout | replace('a', 'b') }}", ""),
        Arguments.of("{{ small.stdout | tojson }}", ""),
        Arguments.of("{{ small.stdout | date }}", ""),
        Arguments.of("{{ small.stdout | string }}", ""),
        Arguments.of("{{ big.output | string }}", "BIG"),
        Arguments.of("{{ big.output | trim | lower }}", "big"),
        Arguments.of("{% if small.stdout %}T{% else %}F{% endif %}", "F"),
        Arguments.of("{% if later.stdout %}T{% else %}F{% endif %}", "F"),
        Arguments.of("{% if not small.stdout %}T{% else %}F{% endif %}", "T"),
        Arguments.of("{% if small.stdout is none %}T{% else %}F{% endif %}", "T"),
        Arguments.of("{% if small.stdout is defined %}T{% else %}F{% endif %}", "F"),
        Arguments.of("{{ small.stdout or 'o' }}", "o"),
        Arguments.of("{{ small.stdout if small.stdout else 'e' }}", "e"),
        Arguments.of("{% for c in small.stdout %}{{ c }}{% endfor %}", ""),
        Arguments.of("{{ small.stdout[0] }}", ""),
        Arguments.of("{{ small.stdout.x.y }}", ""));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("renderedForms")
  void missingValueRendersEmpty_bugSkippedNodeRendersNull(String source, String expected) {
    assertThat(Expressions.template(source).render(scope())).isEqualTo(expected);
  }

  @Test
  void singleExpressionOfMissingValueIsNull_andDefaultStillApplies() {
    for (String missing : MISSING) {
      assertThat(Expressions.template("{{ " + missing + " }}").evaluate(scope())).as(missing).isNull();
      assertThat(Expressions.template("{{ " + missing + " | trim }}").evaluate(scope())).as(missing).isNull();
      assertThat(Expressions.template("{{ " + missing + " | default('z') }}").evaluate(scope())).isEqualTo("z");
      assertThat(Expressions.template("{{ " + missing + " | length }}").evaluate(scope())).isEqualTo(0);
      assertThat(Expressions.template("x{{ " + missing + " }}").evaluate(scope())).isEqualTo("x");
    }
  }

  @Test
  void conditionOnMissingValueIsFalse_onFastPathAndJinjava() {
    for (String missing : List.of("small.stdout", "later.stdout", "state.nothing", "input.nothing", "later")) {
      assertThat(Expressions.condition(missing).test(scope())).as(missing).isFalse();
      assertThat(Expressions.condition("not " + missing).test(scope())).as(missing).isTrue();
      assertThat(Expressions.condition(missing + " == 'x'").test(scope())).as(missing).isFalse();
      assertThat(Expressions.condition(missing + " | trim").test(scope())).as(missing).isFalse();
      assertThat(Expressions.structured(Map.of("exists", Map.of("var", missing))).test(scope())).isFalse();
    }
  }

  @Test
  void fastTemplatePathAndJinjavaAgreeOnMissingValues() {
    for (String source : List.of("{{ big.output }}{{ small.stdout }}", "a{{ later.stdout }}b", "{{ state.nothing }}",
        "{{ input.nothing }}-{{ big.output }}")) {
      FastTemplate fast = FastTemplate.compile(source);
      assertThat(fast).as(source).isNotNull();
      String jinja = Jinja.JINJAVA.render(source, scope());
      String quick = fast.render(scope());
      if (quick != null) {
        assertThat(quick).as("a missing value under a map renders empty on the fast path too").isEqualTo(jinja);
      }
      String rendered = Expressions.template(source).render(scope());
      assertThat(rendered).doesNotContain("null").isEqualTo(jinja);
    }
  }
}
