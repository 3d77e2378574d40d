package dev.loopflow.core.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A template cannot take the JVM's memory: each of these would allocate gigabytes (or build a value exponential in
 * its size) and must instead fail, before allocating, with a message that names the limit. Ordinary templates of the
 * same shapes still work.
 */
class TemplateLimitsTest {
  private static String shared(int times) {
    return "{% set l = [1] %}" + "{% set l = [l, l] %}".repeat(times);
  }

  static Stream<Arguments> bombs() {
    String s100k = "{% set s = 'a'|center(100000) %}";
    return Stream.of(
        Arguments.of("{{ 'x'.repeat(1500000000) }}", "would build a string of 1500000000 characters"),
        Arguments.of("{{ ('x' ~ 'y').repeat(2000000000) }}", "would build a string of 4000000000 characters"),
        Arguments.of("{{ '%0999999999d'.formatted(1) }}", "'%0999999999d' is over the limit"),
        Arguments.of("{{ '%.999999999f'.formatted(1.5) }}", "'%.999999999f' is over the limit"),
        Arguments.of("{{ '%0999999999d'|format(1) }}", "the format filter"),
        Arguments.of("{{ 'a\nb'.indent(1000000000) }}", "'...'.indent() would build"),
        Arguments.of("{{ 'a\nb'|indent(1000000000) }}", "the indent filter would build"),
        Arguments.of("{{ 'x'|center(1500000000) }}", "the center filter's width would build"),
        Arguments.of(s100k + "{{ s|replace(' ', s) }}", "the replace filter would build"),
        Arguments.of(s100k + "{{ s.replace(' ', s) }}", "'...'.replace() would build"),
        Arguments.of(s100k + "{{ s.replaceAll(' ', s) }}", "'...'.replaceAll() would build"),
        Arguments.of(s100k + "{{ s|regex_replace('', s) }}", "the regex_replace filter would build"),
        Arguments.of("{{ range(1500000000)|length }}", "range() would produce 1500000000 numbers"),
        Arguments.of("{% for i in range(0, 2000000000, 2) %}x{% endfor %}", "range() would produce 1000000000"),
        Arguments.of("{{ [1]|batch(1000000000, 'x') }}", "the batch filter's size 1000000000"),
        Arguments.of("{{ 1.5|round(1000000000) }}", "the round filter's precision 1000000000"),
        Arguments.of("{% set s = 'xxxxxxxxxx' %}{% for i in range(30) %}{% set s = s ~ s %}{% endfor %}",
            "the template's output is over the limit of " + JinjaLimits.MAX_STRING),
        Arguments.of("{% set ns = namespace(s='xxxxxxxxxx') %}{% for i in range(30) %}{% set ns.s = ns.s ~ ns.s %}"
            + "{% endfor %}{{ ns.s|length }}", "over the limit of " + JinjaLimits.MAX_STRING),
        Arguments.of("{% set ns = namespace(l=[1]) %}{% for i in range(40) %}{% set ns.l = ns.l + ns.l %}"
            + "{% endfor %}{{ ns.l|length }}", "over the limit of " + JinjaLimits.MAX_ITEMS),
        Arguments.of(shared(64) + "{{ l }}", "holds more than " + JinjaLimits.MAX_VALUE_NODES + " values"),
        Arguments.of(shared(64) + "{{ l|string }}", "holds more than " + JinjaLimits.MAX_VALUE_NODES),
        Arguments.of(shared(64) + "{{ l|unique|length }}", "holds more than " + JinjaLimits.MAX_VALUE_NODES),
        Arguments.of("{% set ns = namespace(l=[1]) %}{% for i in range(64) %}{% set ns.l = [ns.l, ns.l] %}"
            + "{% endfor %}{{ ns.l|join }}", "holds more than " + JinjaLimits.MAX_VALUE_NODES),
        Arguments.of("{% set d = {} %}" + "{% set d = {'a': d, 'b': d} %}".repeat(64) + "{{ d|dictsort }}",
            "holds more than " + JinjaLimits.MAX_VALUE_NODES),
        Arguments.of("{% set l = [1] %}" + "{% set l = [l] %}".repeat(600) + "{{ l|length }}",
            "nested more than " + JinjaLimits.MAX_NESTING + " levels"),
        Arguments.of(shared(20) + "{{ l.toString() }}", "toString() is not available on lists and maps"));
  }

  @ParameterizedTest
  @MethodSource("bombs")
  void memoryBombFailsNamingTheLimit_bugTemplateTakesTheHeap(String source, String message) {
    Template t = Expressions.template(source);

    assertThatThrownBy(() -> t.evaluate(Map.of()))
        .isInstanceOf(TemplateRenderException.class)
        .hasMessageContaining(message)
        .hasMessageNotContaining("OutOfMemoryError");
  }

  @ParameterizedTest
  @MethodSource("bombs")
  void memoryBombFailsAsASingleExpressionValueToo(String source, String message) {
    if (!source.startsWith("{{") || source.indexOf("{{", 2) >= 0) {
      return; // only the bombs that are a single expression
    }
    assertThatThrownBy(() -> Expressions.template(source).render(Map.of()))
        .isInstanceOf(TemplateRenderException.class).hasMessageContaining(message);
  }

  static Stream<Arguments> ordinary() {
    return Stream.of(
        Arguments.of("{{ 'ab'.repeat(3) }}", "ababab"),
        Arguments.of("{{ '%05d'.formatted(42) }}", "00042"),
        Arguments.of("{{ '%5.2f'|format(3.14159) }}", " 3.14"),
        Arguments.of("{{ 'x'|center(5) }}", "  x  "),
        Arguments.of("{{ 'a\nb'|indent(2) }}", "a\n  b"),
        Arguments.of("{{ 'a-b-c'|replace('-', '+') }}", "a+b+c"),
        Arguments.of("{{ 'a-b-c'.replace('-', '--') }}", "a--b--c"),
        Arguments.of("{{ 'a1b22'|regex_replace('[0-9]+', '#') }}", "a#b#"),
        Arguments.of("{{ 'a1b22'.replaceFirst('([0-9]+)', '<$1>') }}", "a<1>b22"),
        Arguments.of("{{ range(3)|list }}", "[0,1,2]"),
        Arguments.of("{{ range(1, 10, 4)|list }}", "[1,5,9]"),
        Arguments.of("{{ range(5, 0, -2)|list }}", "[5,3,1]"),
        Arguments.of("{% for i in range(100000) %}{% endfor %}done", "done"),
        Arguments.of("{{ [1, 2, 3, 4, 5]|batch(2)|list|length }}", "3"),
        Arguments.of("{{ 1.256|round(2) }}", "1.26"),
        Arguments.of(shared(2) + "{{ l|tojson }}", "[[[1],[1]],[[1],[1]]]"),
        Arguments.of(shared(16) + "{{ l|length }}", "2"),
        Arguments.of("{% set a, b = 1, 2 %}{{ a + b }}", "3"),
        Arguments.of("{% set d = {'k': [1, 2]} %}{{ d.k|sum }}", "3"));
  }

  @ParameterizedTest
  @MethodSource("ordinary")
  void ordinaryTemplatesOfTheSameShapesStillWork(String source, String expected) {
    assertThat(Expressions.template(source).render(Map.of())).isEqualTo(expected);
  }

  @org.junit.jupiter.api.Test
  void valuesWithSharedPartsStaySharedWhenCopied() {
    List<Object> l = List.of(1);
    for (int i = 0; i < 40; i++) {
      l = List.of(l, l); // 2^40 leaves written out, 41 lists in memory
    }
    List<Object> twenty = l;
    for (int i = 0; i < 20; i++) {
      @SuppressWarnings("unchecked")
      List<Object> inner = (List<Object>) twenty.get(0);
      twenty = inner;
    }

    Object copy = JinjaLimits.plain(twenty);

    assertThat(copy).isEqualTo(twenty).isNotSameAs(twenty);
    assertThat(((List<?>) copy).get(0)).isSameAs(((List<?>) copy).get(1));
    List<Object> whole = l;
    assertThatThrownBy(() -> JinjaLimits.plain(whole)).hasMessageContaining("holds more than "
        + JinjaLimits.MAX_VALUE_NODES);
  }
}
