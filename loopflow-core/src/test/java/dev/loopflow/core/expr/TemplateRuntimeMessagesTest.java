package dev.loopflow.core.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** A template that fails while it runs says what went wrong in the template's terms, never in Java class names. */
class TemplateRuntimeMessagesTest {
  private static Map<String, Object> scope() {
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("a", Map.of("output", Map.of("k", "v", "n", 3, "d", 1.5, "b", true, "l", List.of(1, 2)), "t", "text"));
    return s;
  }

  static Stream<String> failingTemplates() {
    return Stream.of("x {{ a.output.k.nope() }}", "x {{ a.output.k.nope(1, 2) }}", "x {{ a.output.n.foo() }}",
        "x {{ a.output.d.foo() }}", "x {{ a.output.b.foo() }}", "x {{ a.output.l.bar() }}", "x {{ a.output.nope() }}",
        "x {{ a.t / 0 }}", "x {{ a.output - 1 }}", "x {{ a.output.l - 1 }}", "x {{ a.t * a.t }}",
        "x {{ a.output.l * a.output }}", "x {{ a.output.k.upper(1, 2, 3) }}", "{% for x in a.output.n %}{% endfor %}x",
        "x {{ a.output.l.get(0).foo() }}", "x {{ a.output.n | replace(1) }}", "x {{ range(a.t) }}");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("failingTemplates")
  void runTimeErrorsNameKindsOfValuesNotJavaClasses_bugJinjavaClassNamesInMessages(String template) {
    Object result;
    try {
      result = Expressions.template(template).render(scope());
    } catch (TemplateRenderException e) {
      assertThat(e.getMessage()).doesNotContainIgnoringCase("java.").doesNotContain("hubspot")
          .doesNotContain("PyMap").doesNotContain("PyList").doesNotContain("class ").doesNotContain("{k=")
          .endsWith("(in '" + template + "')");
      return;
    }
    // Some of these render (Jinja is lenient); then the text must not carry Java's forms either.
    assertThat(String.valueOf(result)).doesNotContain("java.").doesNotContain("{k=");
  }

  @Test
  void theMessagesSayWhichFunctionAndWhichKindOfValue() {
    assertThat(message("x {{ a.output.k.nope(1) }}")).startsWith("'nope' is not a function of text (called with 1 "
        + "argument)");
    assertThat(message("x {{ a.output.l.bar() }}")).startsWith("'bar' is not a function of a list (called with 0 "
        + "arguments)");
    assertThat(message("x {{ a.output.nope() }}")).startsWith("'nope' is not a function of a map");
    assertThat(message("x {{ a.t / 0 }}")).startsWith("text 'text' cannot be used as a number");
    assertThat(message("x {{ a.output - 1 }}")).startsWith("a map cannot be used as a whole number");
  }

  @Test
  void aUsersOwnDottedNameIsNeverRewritten() {
    assertThat(Jinja.withoutJavaTypes("unknown name state.items.Count in java.util.HashMap"))
        .isEqualTo("unknown name state.items.Count in a map");
  }

  private static String message(String template) {
    return catchThrowableOfType(TemplateRenderException.class, () -> Expressions.template(template).render(scope()))
        .getMessage();
  }
}
