package dev.loopflow.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InputsTest {
  private final Loopflow engine = Loopflow.create();
  private final Workflow wf = engine.parse("""
      name: typed
      input:
        s: string
        n: number
        i: integer
        b: boolean
        o: object
        a: array
        level:
          type: string
          default: info
          description: log level
      nodes:
        - id: echo
          type: transform
          template: "{{ input }}"
      """, "typed.yaml");

  private static LoopflowException usage(Runnable r) {
    LoopflowException e = catchThrowableOfType(LoopflowException.class, r::run);
    assertThat(e).isNotNull();
    assertThat(e.code()).isEqualTo(ErrorCode.USAGE);
    return e;
  }

  @Test
  void textIsConvertedToTheDeclaredType() {
    assertThat(Inputs.fromText(wf, "s", "42")).isEqualTo("42");
    assertThat(Inputs.fromText(wf, "n", "42")).isEqualTo(42L);
    assertThat(Inputs.fromText(wf, "n", " -4.5 ")).isEqualTo(-4.5);
    assertThat(Inputs.fromText(wf, "i", "7")).isEqualTo(7L);
    assertThat(Inputs.fromText(wf, "b", "yes")).isEqualTo(true);
    assertThat(Inputs.fromText(wf, "b", "FALSE")).isEqualTo(false);
    assertThat(Inputs.fromText(wf, "b", "0")).isEqualTo(false);
    assertThat(Inputs.fromText(wf, "o", "{\"k\": [1, 2]}")).isEqualTo(Map.of("k", List.of(1, 2)));
    assertThat(Inputs.fromText(wf, "a", "[\"x\", 2]")).isEqualTo(List.of("x", 2));
  }

  @Test
  void undeclaredInputsAreJsonWhenTheyParseAndTextOtherwise() {
    assertThat(Inputs.fromText(wf, "extra", "{\"a\": true}")).isEqualTo(Map.of("a", true));
    assertThat(Inputs.fromText(wf, "extra", "[1]")).isEqualTo(List.of(1));
    assertThat(Inputs.fromText(wf, "extra", "hello world")).isEqualTo("hello world");
    assertThat(Inputs.fromText(wf, "extra", "{not json")).isEqualTo("{not json");
  }

  @Test
  void textThatDoesNotConvertIsAUsageErrorNamingTheInput() {
    assertThat(usage(() -> Inputs.fromText(wf, "n", "many")).getMessage())
        .isEqualTo("input 'n' must be a number, got 'many'");
    assertThat(usage(() -> Inputs.fromText(wf, "i", "4.5")).getMessage())
        .isEqualTo("input 'i' must be an integer, got '4.5'");
    assertThat(usage(() -> Inputs.fromText(wf, "b", "maybe")).getMessage())
        .isEqualTo("input 'b' must be a boolean, got 'maybe'");
    assertThat(usage(() -> Inputs.fromText(wf, "o", "[1]")).getMessage())
        .isEqualTo("input 'o' must be an object, got '[1]'");
    assertThat(usage(() -> Inputs.fromText(wf, "a", "{\"x\":1}")).getMessage())
        .isEqualTo("input 'a' must be an array, got '{\"x\":1}'");
  }

  private Map<String, Object> complete(Map<String, Object> overrides) {
    Map<String, Object> in = new java.util.LinkedHashMap<>(Map.of("s", "x", "n", 1, "i", 2, "b", true,
        "o", Map.of(), "a", List.of()));
    in.putAll(overrides);
    return in;
  }

  @Test
  void runConvertsTextValuesAndAppliesDefaults() {
    RunResult r = engine.run(wf, complete(Map.of("n", "2.5", "i", "3", "b", "true", "a", "[1]", "s", 9)));

    assertThat(r.error()).isNull();
    @SuppressWarnings("unchecked")
    Map<String, Object> seen = (Map<String, Object>) r.output();
    assertThat(seen)
        .containsEntry("n", 2.5)
        .containsEntry("i", 3L)
        .containsEntry("b", true)
        .containsEntry("a", List.of(1))
        .containsEntry("s", "9")
        .containsEntry("level", "info");
    assertThat(r.state()).containsEntry("level", "info").containsEntry("i", 3L);
  }

  @Test
  void missingDeclaredInputIsAUsageErrorNamingIt() {
    Map<String, Object> in = complete(Map.of());
    in.remove("b");

    assertThat(usage(() -> engine.run(wf, in)).getMessage())
        .isEqualTo("missing input 'b' (boolean)");
  }

  @Test
  void wrongValueGivenToRunIsAUsageErrorNamingIt() {
    assertThat(usage(() -> engine.run(wf, complete(Map.of("o", "not an object")))).getMessage())
        .isEqualTo("input 'o' must be an object, got 'not an object'");
    assertThat(usage(() -> engine.run(wf, complete(Map.of("n", List.of(1))))).getMessage())
        .isEqualTo("input 'n' must be a number, got '[1]'");
  }

  @Test
  void undeclaredInputIsAUsageErrorNamingItAndTheDeclaredOnes_bugMisspeltInputIgnored() {
    assertThat(usage(() -> engine.run(wf, complete(Map.of("levle", "debug")))).getMessage())
        .isEqualTo("unknown input 'levle' (did you mean 'level'?); workflow 'typed' declares s, n, i, b, o, a, "
            + "level");
    assertThat(usage(() -> engine.run(wf, complete(Map.of("extra", 1, "nn", 2)))).getMessage())
        .startsWith("unknown inputs 'extra', 'nn' (did you mean 'n'?); workflow 'typed' declares s, n,");
  }

  @Test
  void undeclaredInputIsReportedBeforeTheDeclaredOneItMisspells() {
    Map<String, Object> in = complete(Map.of("ss", "x"));
    in.remove("s");

    assertThat(usage(() -> engine.run(wf, in)).getMessage()).startsWith("unknown input 'ss' (did you mean 's'?)");
  }

  @Test
  void workflowThatDeclaresNoInputsTakesAnyInputsIntoInputAndState() {
    Workflow free = engine.parse("""
        name: free
        nodes:
          - {id: echo, type: transform, template: "{{ input.extra.deep[0] }}"}
        """, "free.yaml");
    RunResult r = engine.run(free, Map.of("extra", Map.of("deep", List.of(1))));

    assertThat(r.output()).isEqualTo(1);
    assertThat(r.state()).containsEntry("extra", Map.of("deep", List.of(1)));
  }

  @Test
  void flowInputOf001DeclaresInputsToo() {
    Workflow flow = engine.parse("""
        flow:
          name: flow-form
          input:
            task: string
        nodes:
          - id: echo
            type: transform
            template: "{{ flow.input.task }} / {{ input.task }} / {{ flow.name }}"
        """, "flow.yaml");

    assertThat(flow.name()).isEqualTo("flow-form");
    assertThat(usage(() -> engine.run(flow, Map.of())).getMessage()).contains("missing input 'task'");
    assertThat(engine.run(flow, Map.of("task", "t")).output()).isEqualTo("t / t / flow-form");
  }
}
