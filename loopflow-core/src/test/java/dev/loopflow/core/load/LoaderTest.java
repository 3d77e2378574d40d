package dev.loopflow.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.Problem;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.spi.NodeOutcome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LoaderTest {
  private final Loopflow engine = Loopflow.create();

  private List<String> problems(String yaml) {
    WorkflowInvalidException e = catchThrowableOfType(WorkflowInvalidException.class,
        () -> engine.parse(yaml, "w.yaml"));
    assertThat(e).as("expected the workflow to be invalid").isNotNull();
    return e.problems().stream().map(Problem::format).toList();
  }

  @Test
  void unknownFieldIsReportedWithDidYouMean() {
    assertThat(problems("""
        name: x
        nodes:
          - id: a
            type: transform
            templte: hi
        """)).containsExactly(
        "w.yaml:3:5: nodes.a: missing required field 'template'",
        "w.yaml:5:5: nodes.a.templte: unknown field 'templte' for a transform node (did you mean 'template'?)");
  }

  @Test
  void validWorkflowLoadsWithEverySectionParsed() {
    Workflow wf = engine.parse("""
        name: full
        description: all sections
        input:
          topic: string
        defaults: {model: "openai:gpt-4o-mini", temperature: 0.2}
        budget: {max_usd: 0.5, max_tokens: 200000, max_llm_calls: 100}
        limits: {max_steps: 50, timeout: 30m, concurrency: 2}
        nodes:
          - id: a
            bash: echo {{ input.topic }}
            retry: 2
            timeout: 1m30s
          - name: b
            type: transform
            template: "{{ a.output | upper }}"
            depends_on: [a]
            when: "a.exitCode == 0"
            output: shout
            allow_failure: true
        edges:
          - {from: __start__, to: a}
          - {from: b, to: __end__}
        output: "{{ b.output }}"
        """, "full.yaml");

    assertThat(wf.name()).isEqualTo("full");
    assertThat(wf.description()).isEqualTo("all sections");
    assertThat(wf.defaults()).containsEntry("model", "openai:gpt-4o-mini");
    assertThat(wf.budget().maxUsd()).isEqualTo(0.5);
    assertThat(wf.budget().maxTokens()).isEqualTo(200000L);
    assertThat(wf.budget().maxLlmCalls()).isEqualTo(100);
    assertThat(wf.limits().maxSteps()).isEqualTo(50);
    assertThat(wf.limits().timeout()).isEqualTo(Duration.ofMinutes(30));
    assertThat(wf.limits().concurrency()).isEqualTo(2);
    Node a = wf.node("a");
    assertThat(a.kind()).isEqualTo("shell");
    assertThat(a.retry().maxAttempts()).isEqualTo(3);
    assertThat(a.timeout()).isEqualTo(Duration.ofSeconds(90));
    Node b = wf.node("b");
    assertThat(b.dependsOn()).containsExactly("a");
    assertThat(b.when().source()).isEqualTo("a.exitCode == 0");
    assertThat(b.stateKey()).isEqualTo("shout");
    assertThat(b.allowFailure()).isTrue();
    assertThat(b.location().line()).isEqualTo(13);
    assertThat(wf.edges()).extracting(Edge::from, Edge::to)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("__start__", "a"),
            org.assertj.core.groups.Tuple.tuple("b", "__end__"));
    assertThat(wf.output().source()).isEqualTo("{{ b.output }}");
  }

  @Test
  void nameIsTakenFromTheFileWhenMissing() {
    Workflow wf = engine.parse("""
        nodes:
          - id: a
            bash: echo a
        """, "dir/my-flow.yaml");

    assertThat(wf.name()).isEqualTo("my-flow");
  }

  @Test
  void textWithoutAFileOrANameIsNamedWorkflow_bugNamelessSourceWithoutFileNameThrewNullPointer() {
    for (String file : new String[] {null, "", "  "}) {
      Workflow wf = engine.parse("""
          nodes:
            - id: a
              bash: echo a
          """, file);
      assertThat(wf.name()).as("file %s", file).isEqualTo("workflow");
    }
  }

  @Test
  void fileThatIsNotUtf8IsReported(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("latin1.yaml");
    Files.write(file, new byte[] {'n', 'a', 'm', 'e', ':', ' ', (byte) 0xE9, '\n'});

    WorkflowInvalidException e = catchThrowableOfType(WorkflowInvalidException.class, () -> engine.load(file));

    assertThat(e.problems()).extracting(Problem::format).containsExactly(file + ":1:1: the file is not UTF-8 text");
  }

  @Test
  void javaBuilderMistakesGetTheSameMessagesAsYaml() {
    WorkflowInvalidException e = catchThrowableOfType(WorkflowInvalidException.class,
        () -> engine.workflow("built")
            .node("a", ctx -> NodeOutcome.of(1))
            .node("b", "shel", Map.of("command", "echo"))
            .edge("a", "c")
            .set("limits", Map.of("concurency", 2))
            .build());

    assertThat(e.problems()).extracting(Problem::format).containsExactly(
        "<java>:0:0: limits.concurency: unknown field 'concurency' (did you mean 'concurrency'?)",
        "<java>:0:0: nodes.b.type: unknown node kind 'shel' (did you mean 'shell'?)",
        "<java>:0:0: edges[0].to: unknown node 'c' (did you mean 'a'?)");
  }

  @Test
  void problemsAreSortedByLineThenColumn() {
    List<String> found = problems("""
        name: order
        nodes:
          - id: z
            bash: echo {{ nope.x }} {{ nada.y }}
            when: "zilch"
        limits: {concurrency: 0}
        """);

    assertThat(found).containsExactly(
        "w.yaml:4:19: nodes.z.bash: unknown reference 'nope': no node or variable has that name",
        "w.yaml:4:32: nodes.z.bash: unknown reference 'nada': no node or variable has that name",
        "w.yaml:5:12: nodes.z.when: unknown reference 'zilch': no node or variable has that name",
        "w.yaml:6:23: limits.concurrency: 'concurrency' must be between 1 and 1024, found 0");
  }

  @Test
  void referencesToLaterNodesAndScopeRootsAreFine() {
    Workflow wf = engine.parse("""
        name: refs
        nodes:
          - id: first
            type: transform
            template: "{{ input.a }}{{ state.b }}{{ flow.input.c }}{% for item in input.list %}{{ item }}{% endfor %}"
          - id: second
            type: transform
            template: "{% set total = 1 %}{{ total }}{{ first.output }}{{ third.output }}"
          - id: third
            type: transform
            template: x
        """, "refs.yaml");

    assertThat(wf.nodes()).hasSize(3);
  }

  @Test
  void commonFieldsWrittenInsideALoopGroupOrInputMappingApply_bugLiftedWhenDependsOnAndRetryIgnored() {
    Workflow wf = engine.parse("""
        nodes:
          - id: later
            bash: echo later
          - id: g
            loop_group:
              max_iterations: 1
              when: "false"
              depends_on: [later]
              nodes:
                - {id: w, bash: echo hi}
          - id: a
            type: transform
            input:
              template: hi
              when: "false"
              retry: 2
          - id: c
            type: shell
            input:
              command: echo hi
              depends_on: [a]
              retry: {max_attempts: 4}
        """, "w.yaml");
    Node g = wf.nodes().get(1);
    assertThat(g.when()).isNotNull();
    assertThat(g.dependsOn()).containsExactly("later");
    Node a = wf.nodes().get(2);
    assertThat(a.when()).isNotNull();
    assertThat(a.retry().maxAttempts()).isEqualTo(3);
    Node c = wf.nodes().get(3);
    assertThat(c.dependsOn()).containsExactly("a");
    assertThat(c.retry().maxAttempts()).isEqualTo(4);
  }

  @Test
  void retryInsideALoopGroupMappingIsALoadError_bugLoopGroupMappingAcceptedRetrySilently() {
    assertThat(problems("""
        nodes:
          - id: g
            loop_group:
              max_iterations: 2
              retry: 2
              nodes:
                - {id: w, bash: echo hi}
        """)).containsExactly("w.yaml:5:7: nodes.g.retry: 'retry' has no meaning on a loop_group node (a loop is not "
        + "run again as a whole); put retry on the body nodes that may fail");
  }
}
