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
      42, -7L, 10_000_000_000L, 1.5, true, false, List.of("a"), Map.of("k", "v"), Integer.MAX_VALUE,
      Integer.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE - 1, "3", "1.5", 2.0f);

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
        // A path alone, or plus or minus a literal as a loop's counter is written.
        String sum = List.of("", "", " + 1", "  +  1", " - 1", " + 0", " -  2", " + 999999999", " - 0")
            .get(r.nextInt(9));
        src.append(r.nextBoolean() ? "{{ " + path + sum + " }}" : "{{" + path + sum + "}}");
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
      disagree(source, scope, got, disagreements);
    }
    assertThat(disagreements).isEmpty();
    assertThat(answered).isGreaterThan(500);
  }

  @Test
  void rendersMissingValuesAndQuotedKeysAsJinjavaDoes() {
    Random r = new Random(23);
    List<String> paths = List.of("a['text']", "a[\"n\"]", "a['missing']", "a.missing", "a.missing.deeper",
        "a['nested']['text']", "a.nested['missing'].x", "a['nested'].text", "loop.prev['review'].output",
        "loop.prev['draft-1'].output", "loop.prev['review'].output.score", "state.x", "state['x'].y",
        "state.missing", "a.empty", "a.class", "a.size", "a.keys", "a.values", "a.items", "a['empty']",
        "a['class']", "b.x", "b['x']", "absent.x", "absent['x']", "a.nested.text.length", "a.nested['text'].empty",
        "a.nothing", "a['nothing'].x");
    int answered = 0;
    int empty = 0;
    List<String> disagreements = new ArrayList<>();
    for (int i = 0; i < 6_000; i++) {
      StringBuilder src = new StringBuilder();
      int parts = 1 + r.nextInt(3);
      for (int p = 0; p < parts; p++) {
        src.append(List.of("Review: ", "\n", " and ", "").get(r.nextInt(4)));
        String path = paths.get(r.nextInt(paths.size()));
        src.append(r.nextBoolean() ? "{{ " + path + " }}" : "{{" + path + "}}");
      }
      String source = src.toString();
      FastTemplate fast = FastTemplate.compile(source);
      if (fast == null) {
        continue; // a.empty: `empty` is an operator of EL, never a name here
      }
      Map<String, Object> scope = new LinkedHashMap<>();
      Map<String, Object> a = new LinkedHashMap<>();
      a.put("text", VALUES.get(r.nextInt(VALUES.size())));
      a.put("n", VALUES.get(r.nextInt(VALUES.size())));
      a.put("nothing", null);
      Map<String, Object> nested = new LinkedHashMap<>();
      nested.put("text", r.nextInt(4) == 0 ? null : VALUES.get(r.nextInt(VALUES.size())));
      a.put("nested", r.nextBoolean() ? nested : Map.copyOf(Map.of("text", "t")));
      scope.put("a", a);
      scope.put("b", VALUES.get(r.nextInt(VALUES.size())));
      scope.put("state", r.nextBoolean() ? Map.of("x", VALUES.get(r.nextInt(VALUES.size()))) : Map.of());
      Map<String, Object> prev = new LinkedHashMap<>();
      if (r.nextBoolean()) {
        prev.put("review", Map.of("output", VALUES.get(r.nextInt(VALUES.size()))));
        prev.put("draft-1", Map.of("output", "d"));
      }
      scope.put("loop", Map.of("iteration", r.nextInt(5), "prev", prev));
      String got = fast.render(scope);
      if (got == null) {
        continue;
      }
      answered++;
      empty += got.isEmpty() ? 1 : 0;
      disagree(source, scope, got, disagreements);
    }
    assertThat(disagreements).isEmpty();
    assertThat(answered).isGreaterThan(1_000);
    assertThat(empty).as("missing values answered here").isGreaterThan(100);
  }

  /** Adds a line to {@code disagreements} when Jinjava renders {@code source} otherwise than {@code got}. */
  private static void disagree(String source, Map<String, Object> scope, String got, List<String> disagreements) {
    String jinja;
    try {
      jinja = Jinja.JINJAVA.render(source, scope);
    } catch (RuntimeException e) {
      jinja = "(fails: " + e.getMessage() + ")";
    }
    if (!got.equals(jinja)) {
      disagreements.add(source + " with " + scope + ": fast=<" + got + ">, Jinjava=<" + jinja + ">");
    }
  }

  @Test
  void textOverHalfTheOutputLimitIsLeftToJinjava_bugTheFastPathBuiltTextPastTheLimitJinjavaEnforces() {
    String half = "y".repeat(FastTemplate.LONGEST / 2 + 1);
    Map<String, Object> scope = Map.of("outputs", Map.of("first", half));
    assertThat(FastTemplate.compile("{{ outputs['first'] }}").render(scope)).hasSize(half.length());
    assertThat(FastTemplate.compile("{{ outputs['first'] }}{{ outputs['first'] }}").render(scope)).isNull();
  }

  @Test
  void quotedKeysAreTheOnlySubscripts() {
    for (String s : List.of("{{ a[0] }}", "{{ a[x] }}", "{{ a['k' ] }}", "{{ a [ 'k'] }}", "{{ a['k\\'] }}",
        "{{ a['k'] | upper }}", "{{ a['k'].not }}", "{{ a['k'].1 }}", "{{ a['k'']'] }}", "{{ a['k]' }}",
        "{{ a['k'] + 1 }}", "{{ a['k'][ }}", "{{ ['k'] }}", "{{ a.['k'] }}", "{{ a['k']. }}", "{{ a['a b'] }}",
        "{{ a['k'].b c }}", "{{ a['k']b }}", "{{ a['é'] }}")) {
      assertThat(FastTemplate.compile(s)).as(s).isNull();
    }
    assertThat(FastTemplate.path("loop.prev['draft-1'].output")).containsExactly("loop", "prev", "draft-1",
        "output");
    assertThat(FastTemplate.path(" a[\"k\"]['j'].x ")).containsExactly("a", "k", "j", "x");
  }

  @Test
  void leavesEverythingElseToJinjava() {
    for (String s : List.of("{% if x %}y{% endif %}", "{{ x | upper }}", "{{- x }}", "{{ x + y }}", "{{ x[0] }}",
        "{# c #}{{ x }}", "{{ f(x) }}", "a }} b", "{{ x", "{{ true }}", "{{ x + 1.5 }}", "{{ x + 01 }}",
        "{{ x + 1 + 1 }}", "{{ 1 + x }}", "{{ x * 2 }}", "{{ x + -1 }}", "{{ x + 1e3 }}", "{{ x + 1234567890 }}",
        "{{ x ~ 1 }}", "{{ x.1 + 1 }}", "{{ x +1 -}}", "{{ x+1 }}", "{{ x +1 }}", "{{ x- 1 }}")) {
      assertThat(FastTemplate.compile(s)).as(s).isNull();
    }
    assertThat(FastTemplate.compile("Hi {{ name }}").render(Map.of("name", 1.5))).isNull();
    assertThat(FastTemplate.compile("Hi {{ name }}").render(Map.of())).as("a missing root").isNull();
    assertThat(FastTemplate.compile("Hi {{ user.name }}").render(Map.of("user", Map.of()))).isEqualTo("Hi ");
    assertThat(FastTemplate.compile("Hi {{ user.name.first }}").render(Map.of("user", "Ada"))).as("not a map")
        .isNull();
    assertThat(FastTemplate.compile("Hi {{ user.name }}!").render(Map.of("user", Map.of("name", "Ada"))))
        .isEqualTo("Hi Ada!");
    // Arithmetic only on integers, and never past a long's range: Jinjava decides the rest.
    assertThat(FastTemplate.compile("Write draft {{ state.reviews + 1 }}").render(Map.of("state",
        Map.of("reviews", 4)))).isEqualTo("Write draft 5");
    assertThat(FastTemplate.compile("{{ n - 2 }}").render(Map.of("n", 1L))).isEqualTo("-1");
    assertThat(FastTemplate.compile("{{ n + 1 }}").render(Map.of("n", "4"))).isNull();
    assertThat(FastTemplate.compile("{{ n + 1 }}").render(Map.of("n", 1.5))).isNull();
    assertThat(FastTemplate.compile("{{ n + 1 }}").render(Map.of("n", Long.MAX_VALUE))).isNull();
    assertThat(FastTemplate.compile("{{ n + 1 }}").render(Map.of())).isNull();
  }
}
