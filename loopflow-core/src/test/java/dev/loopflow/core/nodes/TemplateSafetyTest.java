package dev.loopflow.core.nodes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TemplateSafetyTest {
  private final Loopflow engine = Loopflow.create();

  private RunResult transform(String template, Map<String, ?> inputs) {
    Workflow wf = engine.parse("""
        name: t
        nodes:
          - id: t
            type: transform
            template: %s
        """.formatted(quoteYaml(template)), "t.yaml");
    return engine.run(wf, inputs);
  }

  private static String quoteYaml(String s) {
    return "'" + s.replace("'", "''") + "'";
  }

  @Test
  void userInputWithTemplateSyntaxStaysLiteral() {
    String evil = "{{ 7*7 }} {% for i in range(3) %}x{% endfor %} {# c #} $LOOP_PREV.a.output";
    RunResult r = transform("Hello {{ input.x }}!", Map.of("x", evil));

    assertThat(r.error()).isNull();
    assertThat(r.output()).isEqualTo("Hello " + evil + "!");
  }

  @Test
  void nodeOutputWithTemplateSyntaxStaysLiteralDownstream() {
    Workflow wf = engine.parse("""
        name: chain
        nodes:
          - id: first
            type: transform
            template: "{{ input.x }}"
          - id: second
            type: transform
            template: "got {{ first.output }}"
        """, "chain.yaml");

    RunResult r = engine.run(wf, Map.of("x", "{{ input.secret }}"));

    assertThat(r.output()).isEqualTo("got {{ input.secret }}");
  }

  @Test
  void singleExpressionTemplateKeepsTheValueType() {
    Map<String, Object> in = Map.of("items", List.of(1, 2, 3), "obj", Map.of("a", true), "n", 4.5);

    assertThat(transform("{{ input.items }}", in).output()).isEqualTo(List.of(1, 2, 3));
    assertThat(transform("  {{ input.obj }} ", in).output()).isEqualTo(Map.of("a", true));
    assertThat(transform("{{ input.n }}", in).output()).isEqualTo(4.5);
    assertThat(transform("{{ input.items | length }}", in).output()).isEqualTo(3);
    assertThat(transform("{{ input.missing }}", in).output()).isNull();
    assertThat(transform("n={{ input.items }}", in).output()).isEqualTo("n=[1,2,3]");
  }

  @Test
  void templatesCannotMutateStateOrInputs() {
    for (String t : List.of("{% do state.update({'pwned': 1}) %}done", "{{ state.put('pwned', 1) }}",
        "{{ input.items.append('b') }}", "{% do input.items.add('c') %}", "{% do input.items.clear() %}",
        "{{ state.pop('x') }}")) {
      Map<String, Object> in = new LinkedHashMap<>();
      in.put("items", new ArrayList<>(List.of("a")));
      in.put("x", "1");

      RunResult r = transform(t, in);

      String method = t.replaceAll(".*\\.(\\w+)\\(.*", "$1");
      assertThat(r.status()).as(t).isEqualTo(RunStatus.FAILED);
      assertThat(r.error().message()).as(t).contains("Cannot find method '" + method + "'");
      assertThat(r.state()).as(t).isEqualTo(Map.of("items", List.of("a"), "x", "1"));
      assertThat(in.get("items")).as(t).isEqualTo(List.of("a"));
    }
  }

  @Test
  void aFailedMutationAttemptLeavesStateUnchangedForLaterNodes() {
    Workflow wf = engine.parse("""
        name: mutate
        nodes:
          - id: update
            type: transform
            template: "{% do state.update({'pwned': 1}) %}done"
            allow_failure: true
          - id: look
            type: transform
            template: "{{ state.keys() | list | sort | join(',') }}"
        """, "mutate.yaml");

    RunResult r = engine.run(wf, Map.of("x", 1));

    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.nodes().get("update")).containsEntry("status", "failed");
    assertThat(r.output()).isEqualTo("x");
    assertThat(r.state()).containsOnlyKeys("x");
  }

  @Test
  void templatesCannotCallGetClass() {
    for (String t : List.of("{{ input.getClass() }}", "{{ input.x.getClass().forName('java.lang.Runtime') }}",
        "{{ ''.getClass().getName() }}")) {
      RunResult r = transform(t, Map.of("x", "text"));

      assertThat(r.status()).as(t).isEqualTo(RunStatus.FAILED);
      assertThat(r.error().message()).as(t).contains("Cannot find method 'getClass'");
    }
  }

  @Test
  void classPropertiesResolveToNothing() {
    assertThat(transform("[{{ input.class }}][{{ input.x.class.name }}]", Map.of("x", "text")).output())
        .isEqualTo("[][]");
  }

  @Test
  void nodeThatHasNotRunIsEmptyInIfTests() {
    Workflow wf = engine.parse("""
        name: later
        nodes:
          - id: first
            type: transform
            template: "{% if later.output %}seen {{ later.output }}{% else %}nothing yet{% endif %}"
          - id: later
            type: transform
            template: "x"
        """, "later.yaml");

    assertThat(engine.run(wf, Map.of()).nodes().get("first")).containsEntry("output", "nothing yet");
  }
}
