package dev.loopflow.core.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.Inputs;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** JSON text is one value and nothing after it: text that only starts with JSON is not JSON. */
class JsonWholeTextTest {
  @ParameterizedTest
  @ValueSource(strings = {"42 is the answer", "true story", "null and void", "[1] and more", "{\"a\": 1} junk",
      "{\"a\": 1}{\"b\": 2}", "\"quoted\" then not", "1 2", "{} //", "[]]", "{\"restart\": {}} ```"})
  void textThatOnlyStartsWithJsonIsNotJson_bugTrailingTextWasDropped(String text) {
    assertThatThrownBy(() -> Json.parse(text)).isInstanceOf(IllegalArgumentException.class);
    Workflow wf = Loopflow.builder().discover(false).build().parse("nodes: [{id: a, type: transform, template: x}]",
        "w.yaml");
    // An undeclared input given on the command line is JSON when it parses, else the text as written.
    assertThat(Inputs.fromText(wf, "undeclared", text)).isEqualTo(text);
  }

  static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> whole() {
    return java.util.stream.Stream.of(
        org.junit.jupiter.params.provider.Arguments.of("42", 42),
        org.junit.jupiter.params.provider.Arguments.of(" 42 \n", 42),
        org.junit.jupiter.params.provider.Arguments.of("\n{\"a\": [1, 2]}\n\t", Map.of("a", List.of(1, 2))),
        org.junit.jupiter.params.provider.Arguments.of("true", true),
        org.junit.jupiter.params.provider.Arguments.of("\"s\" ", "s"));
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.MethodSource("whole")
  void wholeJsonWithSurroundingWhitespaceParses(String text, Object expected) {
    assertThat(Json.parse(text)).isEqualTo(expected);
  }
}
