package dev.loopflow.core.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.expr.TemplateScope;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.spi.NodeHandler;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The load-time reference check is only right if the fields it allows are the fields runs produce: a field missing
 * from the declarations rejects a correct template, a stale one lets a typo through. These runs exercise every kind
 * and loop construct and compare what the results and variables hold with what {@link TemplateScope} and the
 * handlers declare.
 */
class ScopeFieldsTest {
  private final Loopflow engine = Loopflow.create();

  private static final String EVERY_KIND = """
      name: every-kind
      input:
        words: {type: array, default: ["a", "b"]}
      nodes:
        - {id: in, type: input}
        - {id: sh, bash: "echo hi; echo err >&2", depends_on: [in]}
        - {id: bad, bash: "exit 3", allow_failure: true}
        - {id: sc, run: "print('p') return {a = 1}"}
        - {id: tr, type: transform, template: "{{ sh.output }}"}
        - {id: val, type: validator, schema: {type: object}, value: "{}"}
        - {id: rt, type: router, routes: {only: default}, value: "{{ tr.output }}"}
        - id: wl
          type: while_loop
          condition: "true"
          max_iterations: 2
          on_exhausted: continue
          body:
            - {id: wl_vars, type: transform, template: "{{ loop.keys() | list | join(',') }}", output: wl_vars}
            - id: nested
              type: while_loop
              condition: "true"
              max_iterations: 1
              on_exhausted: continue
              body:
                - {id: nested_vars, type: transform, template: "{{ loop.keys() | list | join(',') }}", output: nested_vars}
        - id: grp
          loop_group:
            max_iterations: 2
            nodes:
              - {id: grp_vars, type: transform, template: "{{ loop.keys() | list | join(',') }}", output: grp_vars}
        - {id: each, type: iterator, items: "{{ input.words }}"}
        - {id: it_vars, type: transform, template: "{{ loop.keys() | list | join(',') }}"}
        - {id: collect, type: aggregator}
        - {id: refine, type: loop, input: "x", maxIterations: 2}
        - {id: ref_vars, type: transform, template: "{{ loop.keys() | list | join(',') }}"}
        - {id: refine_exit, type: exit}
        - {id: a, type: transform, template: "{{ loop.keys() | list | join(',') }}"}
        - {id: b, type: transform, template: "b"}
        - {id: run_vars, type: transform, template: "{{ run.keys() | list | join(',') }}"}
        - {id: out, type: output, value: "{{ tr.output }}"}
      edges:
        - {from: each, to: it_vars}
        - {from: it_vars, to: collect}
        - {from: refine, to: ref_vars}
        - {from: ref_vars, to: refine_exit}
        - {from: a, to: b}
        - {from: b, to: a, type: loop, maxIterations: 2, when: "true", on_exhausted: continue}
      """;

  private Set<String> allowed(Workflow wf, Node n) {
    NodeHandler h = engine.handlers().get(n.kind());
    Set<String> declared = h != null ? h.resultFields() : TemplateScope.CONTROL_RESULT_FIELDS.get(n.kind());
    assertThat(declared).as("kind %s declares its result fields", n.kind()).isNotNull();
    Set<String> out = new TreeSet<>(TemplateScope.COMMON_RESULT_FIELDS);
    out.addAll(declared);
    if (wf.edges().stream().anyMatch(e -> e.type() == Edge.Type.LOOP && e.from().equals(n.id()))) {
      out.add(TemplateScope.LOOP_EDGE_FIELD);
    }
    return out;
  }

  private void assertOnlyDeclaredFields(Workflow wf, RunResult r, Set<String> seen) {
    for (Node n : wf.nodes()) {
      Map<String, Object> report = r.nodes().get(n.id());
      assertThat(report.keySet()).as("fields of %s node '%s'", n.kind(), n.id()).isSubsetOf(allowed(wf, n));
      seen.addAll(report.keySet());
      if (report.get(TemplateScope.LOOP_EDGE_FIELD) instanceof Map<?, ?> summary) {
        assertThat(summary.keySet()).isEqualTo(TemplateScope.LOOP_EDGE_SUMMARY_FIELDS);
      }
    }
  }

  private static Set<String> names(Object joined) {
    return new TreeSet<>(Arrays.asList(String.valueOf(joined).split(",")));
  }

  @Test
  void everyKindsResultHoldsOnlyDeclaredFields_andLoopAndRunVariablesAreAsDeclared() {
    Workflow wf = engine.parse(EVERY_KIND, "every-kind.yaml");
    RunResult r = engine.run(wf, Map.of());

    assertThat(r.error()).isNull();
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    Set<String> seen = new LinkedHashSet<>();
    assertOnlyDeclaredFields(wf, r, seen);
    assertThat(seen).contains("error", "stdout", "stderr", "exitCode", "valid", "errors", "value", "selectedBranch",
        "iterations", "count", "exit_reason", "usage", "loop");

    Set<String> loopVariables = new TreeSet<>();
    for (String id : List.of("it_vars", "ref_vars", "a")) {
      loopVariables.addAll(names(r.nodes().get(id).get("output")));
    }
    for (String key : List.of("wl_vars", "nested_vars", "grp_vars")) {
      loopVariables.addAll(names(r.state().get(key)));
    }
    assertThat(loopVariables).contains("parent", "item", "iteration", "prev");
    assertThat(loopVariables).isSubsetOf(TemplateScope.LOOP_VARIABLE_FIELDS);
    assertThat(names(r.nodes().get("run_vars").get("output"))).isEqualTo(TemplateScope.RUN_FIELDS);
  }

  @Test
  void loopVariablesInBodiesAreTheDeclaredOnes_includingParentAndItem() {
    String yaml = """
        name: vars
        nodes:
          - id: wl
            type: while_loop
            condition: "true"
            max_iterations: 1
            on_exhausted: continue
            body:
              - id: nested
                type: while_loop
                condition: "true"
                max_iterations: 1
                on_exhausted: continue
                body:
                  - {id: v, type: transform, template: "{{ loop.keys() | list | join(',') }}", output: nested_vars}
          - {id: each, type: iterator, items: "{{ [1] }}"}
          - {id: it_vars, type: transform, template: "{{ loop.keys() | list | join(',') }}"}
          - {id: collect, type: aggregator}
        edges:
          - {from: each, to: it_vars}
          - {from: it_vars, to: collect}
        """;
    RunResult r = engine.run(engine.parse(yaml, "vars.yaml"), Map.of());

    Set<String> union = new TreeSet<>(names(r.state().get("nested_vars")));
    union.addAll(names(r.nodes().get("it_vars").get("output")));
    // The restart loop's own variable: its passes see it (PipelineTest reads it), no body loop has it.
    union.add("restart");
    assertThat(union).isEqualTo(TemplateScope.LOOP_VARIABLE_FIELDS);
  }

  @Test
  void approvalAndCancelResultsHoldOnlyDeclaredFields() throws InterruptedException {
    Loopflow local = Loopflow.create();
    Workflow wf = local.parse("""
        name: ask
        nodes:
          - {id: ap, approval: "ok?", timeout: 1h, default: reject}
          - {id: stop, type: cancel, reason: "done", depends_on: [ap]}
        """, "ask.yaml");
    RunResult paused = local.run(wf, Map.of());
    assertThat(paused.status()).isEqualTo(RunStatus.PAUSED);
    Set<String> seen = new LinkedHashSet<>();
    assertOnlyDeclaredFields(wf, paused, seen);
    RunResult done = local.resume(wf, paused.runId(), ResumeInput.approve("fine"), RunOptions.defaults(), false)
        .await();
    assertOnlyDeclaredFields(wf, done, seen);
    assertThat(seen).contains("decision", "approved", "comment", "message", "timed_out", "deadline", "default",
        "reason");
  }
}
