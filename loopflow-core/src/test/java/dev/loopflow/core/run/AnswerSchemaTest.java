package dev.loopflow.core.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.expr.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The form rule's adversarial corpus: hostile answers and field arguments are refused in one bounded line that never
 * echoes control characters, and accepted answers are exactly the ones that fit.
 */
class AnswerSchemaTest {
  @SuppressWarnings("unchecked")
  private static final AnswerSchema FORM = AnswerSchema.of(Json.parse("""
      {"type": "object", "required": ["name", "size"],
       "properties": {
         "name": {"type": "string", "maxLength": 20},
         "size": {"type": "integer", "minimum": 1, "maximum": 10},
         "ratio": {"type": "number"},
         "ok": {"type": "boolean"},
         "pick": {"enum": ["a", 2, true]}}}
      """));

  private static Map<String, Object> m(Object... kv) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      out.put((String) kv[i], kv[i + 1]);
    }
    return out;
  }

  @Test
  void answersThatFitAreAccepted() {
    assertThat(FORM.refusal(m("name", "x", "size", 3))).isNull();
    assertThat(FORM.refusal(m("name", "", "size", 10, "ratio", -1.5, "ok", false, "pick", 2))).isNull();
    assertThat(FORM.refusal(m("name", "x", "size", 3L, "pick", true))).isNull();
  }

  @Test
  void hostileAnswersAreRefusedInOneBoundedLine() {
    Map<String, Object> deep = m("name", "x", "size", 1);
    Map<String, Object> at = deep;
    for (int i = 0; i < 10_000; i++) {
      Map<String, Object> next = new LinkedHashMap<>();
      at.put("n", next);
      at = next;
    }
    Map<String, Object> wide = m("name", "x", "size", 1);
    IntStream.range(0, 5000).forEach(i -> wide.put("k" + i, i));
    List<Map<String, Object>> corpus = new ArrayList<>(List.of(
        m(),
        m("name", "x"),
        m("name", null, "size", 1),
        m("name", 1, "size", 1),
        m("name", "x".repeat(21), "size", 1),
        m("name", "x", "size", 0),
        m("name", "x", "size", 1.5),
        m("name", "x", "size", "1"),
        m("name", "x", "size", 1, "ok", "true"),
        m("name", "x", "size", 1, "pick", "A"),
        m("name", "x", "size", 1, "pick", List.of("a")),
        m("name", "x", "size", 1, "\u001b[2J\r\n<script>alert(1)</script>" + "k".repeat(500), 1),
        m("name", "x".repeat(100_000), "size", 1),
        m("name", List.of(List.of(List.of(List.of(List.of(List.of(List.of(List.of(List.of(1))))))))), "size", 1),
        m("name", m("\n", "\u2028"), "size", 1),
        deep,
        wide,
        m("name", "a", "size", 99, "ratio", "x", "ok", 1, "pick", "zz")));
    for (Map<String, Object> answer : corpus) {
      String why = FORM.refusal(answer);
      assertThat(why).as("%.200s", answer).isNotNull().hasSizeLessThan(1000)
          .doesNotContain("\n").doesNotContain("\r").doesNotContain("\u001b").doesNotContain("\u2028");
    }
    assertThat(FORM.refusal(null)).isEqualTo("values are required: a JSON object with the required fields name, "
        + "size");
    assertThat(FORM.refusal(m("name", "a", "size", 99, "ratio", "x", "ok", 1, "pick", "zz")))
        .contains("(and ").contains("more)");
  }

  @Test
  void fieldArgumentsAreTypedByTheForm() {
    assertThat(FORM.typed("size", " 7 ")).isEqualTo(7L);
    assertThat(FORM.typed("ratio", "2")).isEqualTo(2L);
    assertThat(FORM.typed("ratio", "0.25")).isEqualTo(0.25);
    assertThat(FORM.typed("ok", "TRUE")).isEqualTo(true);
    assertThat(FORM.typed("pick", "2")).isEqualTo(2);
    assertThat(FORM.typed("pick", "true")).isEqualTo(true);
    assertThat(FORM.typed("pick", "b")).isEqualTo("b");
    assertThat(FORM.typed("name", "  spaced  ")).isEqualTo("  spaced  ");
    for (String[] bad : new String[][] {{"size", "1.5"}, {"size", "x"}, {"size", "99999999999999999999999"},
        {"ratio", "NaN"}, {"ratio", "1e99999"}, {"ok", "yes"}, {"nope\n\u001b", "1"}}) {
      assertThatThrownBy(() -> FORM.typed(bad[0], bad[1])).as(String.join("=", bad))
          .isInstanceOf(IllegalArgumentException.class)
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n").doesNotContain("\u001b"));
    }
  }

  @Test
  void theFieldsLineIsBoundedWhateverTheChoices() {
    Map<String, Object> props = new LinkedHashMap<>();
    for (int i = 0; i < 12; i++) {
      props.put("f" + i, m("enum", IntStream.range(0, 10).mapToObj(j -> "\u001b[31m" + "c".repeat(300) + j)
          .toList()));
    }
    AnswerSchema big = AnswerSchema.of(m("type", "object", "properties", props));
    assertThat(big.fieldsLine()).hasSizeLessThan(2000).doesNotContain("\u001b").endsWith("and 2 more");
  }

  @Test
  void theSchemaKeptIsACopy() {
    Map<String, Object> name = m("type", "string");
    Map<String, Object> given = m("type", "object", "properties", m("name", name));
    AnswerSchema form = AnswerSchema.of(given);
    name.put("type", "integer");
    assertThat(form.refusal(m("name", "still text"))).isNull();
    assertThatThrownBy(() -> form.json().put("x", 1)).isInstanceOf(UnsupportedOperationException.class);
  }
}
