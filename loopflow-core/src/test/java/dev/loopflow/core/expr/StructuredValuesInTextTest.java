package dev.loopflow.core.expr;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A map or a list printed inside longer text is written as JSON (as {@code | tojson} writes it), never in Java's
 * {@code {k=v}} form; a template that is one expression still yields the value itself.
 */
class StructuredValuesInTextTest {
  private static Map<String, Object> scope() {
    Map<String, Object> inner = new LinkedHashMap<>();
    inner.put("x", null);
    inner.put("q", "say \"hi\"\n<b>");
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("k", "v");
    out.put("n", new ArrayList<>(List.of(1, 2.5, true)));
    ((List<Object>) out.get("n")).add(inner);
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("a", Map.of("output", out, "none", List.of(), "nothing", Map.of()));
    s.put("state", Map.of("items", List.of("one", "two")));
    return s;
  }

  static Stream<Arguments> structuredValues() {
    return Stream.of(
        Arguments.of("got {{ a.output }}!", "got {\"k\":\"v\",\"n\":[1,2.5,true,{\"x\":null,\"q\":\"say \\\"hi\\\"\\n<b>\"}]}!"),
        Arguments.of("n={{ a.output.n }}", "n=[1,2.5,true,{\"x\":null,\"q\":\"say \\\"hi\\\"\\n<b>\"}]"),
        Arguments.of("last={{ a.output.n[3] }}.", "last={\"x\":null,\"q\":\"say \\\"hi\\\"\\n<b>\"}."),
        Arguments.of("items: {{ state.items }}", "items: [\"one\",\"two\"]"),
        Arguments.of("[{{ a.none }}|{{ a.nothing }}]", "[[]|{}]"),
        Arguments.of("{{ [1, 'a'] }} and {{ {'b': 2} }}", "[1,\"a\"] and {\"b\":2}"),
        Arguments.of("{% for i in state.items %}{{ [i] }}{% endfor %}", "[\"one\"][\"two\"]"),
        Arguments.of("same as tojson: {{ a.output == a.output }} {{ a.output | tojson }}",
            "same as tojson: true " + Json.compact(scope().get("a") instanceof Map<?, ?> m ? m.get("output") : null)),
        Arguments.of("missing entry: {{ a.output.n[3].x }}|", "missing entry: |"),
        Arguments.of("{{ 'items: ' ~ state.items }}", "items: [\"one\",\"two\"]"),
        Arguments.of("{{ state.items ~ '!' }} {{ state.items | string }}", "[\"one\",\"two\"]! [\"one\",\"two\"]"),
        Arguments.of("{{ (state.items | string) | length }}", "13"),
        Arguments.of("{{ a.nothing | string }}{{ nope | string }}|", "{}|"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("structuredValues")
  void mapsAndListsInTextPrintAsJson_bugJavaMapFormInPrompts(String template, String expected) {
    String rendered = String.valueOf(Expressions.template(template).render(scope()));
    assertThat(rendered).isEqualTo(expected).doesNotContain("=v").doesNotContain("x=null");
  }

  @Test
  void aTemplateThatIsOneExpressionStillYieldsTheValueItselfAndItsTextIsJson() {
    Template t = Expressions.template("{{ state.items }}");
    assertThat(t.evaluate(scope())).isEqualTo(List.of("one", "two"));
    assertThat(t.render(scope())).isEqualTo("[\"one\",\"two\"]");
  }

  @Test
  void scalarsPrintAsBefore() {
    Map<String, Object> s = new LinkedHashMap<>(scope());
    s.put("v", Map.of("i", 3, "d", 0.5, "b", false, "t", "text", "arr", Arrays.asList(1, null)));
    assertThat(Expressions.template("{{ v.i }} {{ v.d }} {{ v.b }} {{ v.t }} {{ v.arr }}").render(s))
        .isEqualTo("3 0.5 false text [1,null]");
  }
}
