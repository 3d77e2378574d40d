package dev.loopflow.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.Problem;
import dev.loopflow.core.error.WorkflowInvalidException;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An approval's {@code schema} and a loop gate's {@code gate_schema} are checked when the workflow loads: anything a
 * form cannot draw, or that is too big to draw, is a workflow error at the field, one line with file:line:col.
 */
class AnswerSchemaLoadTest {
  private final Loopflow engine = Loopflow.create();

  private List<String> problems(String yaml) {
    WorkflowInvalidException e = catchThrowableOfType(WorkflowInvalidException.class,
        () -> engine.parse(yaml, "w.yaml"));
    assertThat(e).as("expected the workflow to be invalid").isNotNull();
    return e.problems().stream().map(Problem::format).toList();
  }

  private static String approval(String schema) {
    return """
        name: x
        nodes:
          - id: ask
            approval: ok?
            schema: %s
        """.formatted(schema);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "3",
      "\"text\"",
      "[1, 2]",
      "{type: array, items: {type: string}}",
      "{type: object}",
      "{type: object, properties: {}}",
      "{type: object, properties: {a: {type: object, properties: {b: {type: string}}}}}",
      "{type: object, properties: {a: {type: array}}}",
      "{type: object, properties: {a: {type: [string, 'null']}}}",
      "{type: object, properties: {a: {anyOf: [{type: string}]}}}",
      "{type: object, properties: {a: {$ref: '#/x'}}}",
      "{type: object, properties: {a: {}}}",
      "{type: object, properties: {a: 5}}",
      "{type: object, properties: {a: {enum: []}}}",
      "{type: object, properties: {a: {enum: [{x: 1}]}}}",
      "{type: object, properties: {a: {type: string, title: [1]}}}",
      "{type: object, properties: {'1bad': {type: string}}}",
      "{type: object, properties: {'a b': {type: string}}}",
      "{type: object, properties: {'<script>': {type: string}}}",
      "{type: object, properties: {a: {type: string}}, required: [b]}",
      "{type: object, properties: {a: {type: string}}, required: a}",
      "{type: object, properties: {a: {type: string}}, additionalProperties: true}",
      "{type: object, properties: {a: {type: string}}, allOf: []}",
      "{type: object, properties: {a: {type: integer, default: x}}}",
      "{type: object, properties: {a: {type: string, pattern: '['}}}",
  })
  void whatAFormCannotDrawIsAWorkflowErrorAtTheField(String schema) {
    assertThat(problems(approval(schema))).singleElement().satisfies(p -> assertThat(p)
        .startsWith("w.yaml:5:").contains("nodes.ask.schema: ").doesNotContain("\n"));
  }

  @Test
  void sizesAreBounded() {
    String many = IntStream.range(0, 101).mapToObj(i -> "f" + i + ": {type: string}")
        .collect(Collectors.joining(", ", "{type: object, properties: {", "}}"));
    assertThat(problems(approval(many))).singleElement().asString().contains("at most 100");
    String choices = IntStream.range(0, 201).mapToObj(i -> "c" + i)
        .collect(Collectors.joining(", ", "{type: object, properties: {a: {enum: [", "]}}}"));
    assertThat(problems(approval(choices))).singleElement().asString().contains("at most 200");
    String title = "{type: object, properties: {a: {type: string, title: '" + "t".repeat(2001) + "'}}}";
    assertThat(problems(approval(title))).singleElement().asString().contains("longer than 2000");
    String big = "{type: object, properties: {a: {type: string, description: '" + "d".repeat(1999)
        + "', examples: [" + IntStream.range(0, 40).mapToObj(i -> "'" + "e".repeat(1999) + "'")
        .collect(Collectors.joining(", ")) + "]}}}";
    assertThat(problems(approval(big))).singleElement().asString().contains("larger than 65536 bytes");
  }

  @Test
  void aGateSchemaNeedsAnInteractiveGroupAndIsCheckedAlike() {
    assertThat(problems("""
        name: x
        nodes:
          - id: fix
            loop_group:
              max_iterations: 2
              gate_schema: {type: object, properties: {a: {type: string}}}
              nodes:
                - id: s
                  type: transform
                  template: hi
          - id: fix2
            loop_group:
              max_iterations: 2
              interactive: true
              gate_schema: {type: object, properties: {a: {type: object}}}
              nodes:
                - id: s
                  type: transform
                  template: hi
        """)).containsExactly(
        "w.yaml:6:20: nodes.fix.gate_schema: loop_group 'fix': gate_schema is the form its gate asks a person to "
            + "fill after each pass; it needs interactive: true",
        "w.yaml:15:20: nodes.fix2.gate_schema: field 'a': type \"object\" is not drawn by a form; use string, "
            + "number, integer or boolean (or enum)");
  }

  @Test
  void aGoodFormLoadsAndLoopUserValuesIsAKnownLoopField() throws Exception {
    engine.parse("""
        name: x
        nodes:
          - id: fix
            loop_group:
              max_iterations: 2
              interactive: true
              gate_schema:
                type: object
                required: [t]
                properties:
                  t: {type: number, title: "Temperature <b>", description: "0..2", default: 1}
                  mode: {enum: [a, b, 3, true]}
              nodes:
                - id: s
                  type: transform
                  template: "{{ loop.user_values.t }}"
          - id: ask
            depends_on: [fix]
            approval: ok?
            schema: {type: object, properties: {why: {type: string}}, additionalProperties: false}
          - id: after
            depends_on: [ask]
            type: transform
            template: "{{ ask.values.why }}"
        """, "w.yaml");
  }

  /** The JSON Schema checker's own message may span lines (a regex, a caret under it); a load error is one line. */
  @Test
  void aSchemaTheCheckerRefusesIsOneLine_bugValidatorRegexErrorSpannedLines() {
    assertThat(problems("""
        name: x
        nodes:
          - id: v
            type: validator
            value: "a"
            schema: {type: string, pattern: "(["}
        """)).singleElement().satisfies(p -> assertThat(p).startsWith("w.yaml:6:").contains("nodes.v.schema: not a "
            + "valid JSON Schema").doesNotContain("\n"));
  }
}
