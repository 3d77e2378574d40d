package dev.loopflow.core.expr;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** FastTemplate must render exactly what Jinjava renders whenever it renders at all. */
class FastTemplateTest {
  private static final List<Object> VALUES = List.of("text", "", "multi\nline", "{{ state.x }}", "<b>&amp;</b>", 0,
      42, -7L, 10_000_000_000L, 1.5, true, false, List.of("a"), Map.of("k", "v"));

  @Test
  void rendersWhatJinjavaRendersOnGeneratedTemplatesAndScopes() {
    Random r = new Random(11);
    int answered = 0;
    List<String> disagreements = new ArrayList<>();
    for (int i = 0; i < 5_000; i++) {
      StringBuilder src = new StringBuilder();
      int parts = 1 + r.nextInt(4);
      for (int p = 0; p < parts; p++) {
        src.append(List.of("Review: ", "\n", " and ", "x", "", "  ").get(r.nextInt(6)));
        String path = List.of("a.text", "a.n", "b", "state.x", "state.missing", "a.nested.text", "loop.iteration")
            .get(r.nextInt(7));
        src.append(r.nextBoolean() ? "{{ " + path + " }}" : "{{" + path + "}}");
      }
      String source = src.toString();
      FastTemplate fast = FastTemplate.compile(source);
      assertThat(fast).as(source).isNotNull();
      Map<String, Object> scope = new LinkedHashMap<>();
      Map<String, Object> a = new LinkedHashMap<>();
      a.put("text", VALUES.get(r.nextInt(VALUES.size())));
      a.put("n", VALUES.get(r.nextInt(VALUES.size())));
      a.put("nested", Map.of("text", VALUES.get(r.nextInt(VALUES.size()))));
      scope.put("a", a);
      scope.put("b", VALUES.get(r.nextInt(VALUES.size())));
      scope.put("state", Map.of("x", VALUES.get(r.nextInt(VALUES.size()))));
      scope.put("loop", Map.of("iteration", r.nextInt(5)));
      String got = fast.render(scope);
      if (got == null) {
        continue;
      }
      answered++;
      String jinja = Jinja.JINJAVA.render(source, scope);
      if (!got.equals(jinja)) {
        disagreements.add(source + " with " + scope + ": fast=<" + got + ">, Jinjava=<" + jinja + ">");
      }
    }
    assertThat(disagreements).isEmpty();
    assertThat(answered).isGreaterThan(500);
  }

  @Test
  void leavesEverythingElseToJinjava() {
    for (String s : List.of("{% if x %}y{% endif %}", "{{ x | upper }}", "{{- x }}", "{{ x + 1 }}", "{{ x[0] }}",
        "{# c #}{{ x }}", "{{ f(x) }}", "a }} b", "{{ x", "{{ true }}")) {
      assertThat(FastTemplate.compile(s)).as(s).isNull();
    }
    assertThat(FastTemplate.compile("Hi {{ name }}").render(Map.of("name", 1.5))).isNull();
    assertThat(FastTemplate.compile("Hi {{ name }}").render(Map.of())).isNull();
    assertThat(FastTemplate.compile("Hi {{ user.name }}!").render(Map.of("user", Map.of("name", "Ada"))))
        .isEqualTo("Hi Ada!");
  }
}
