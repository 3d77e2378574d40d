package dev.loopflow.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.Problem;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Workflows written in the other forms the loader accepts (a {@code flow:} header, {@code name:} ids, {@code run:}
 * Lua, {@code __start__}/{@code __end__} edges), kept unchanged under {@code src/test/resources/dialects/}: each
 * must load, or be refused with exactly the problems it has, with no crash and nothing spurious, and run where it
 * describes a run.
 */
class DialectSnippetsTest {
  private final Loopflow engine = Loopflow.builder().handler(new StubLlmHandler()).build();

  static String snippet(String name) {
    try (var in = DialectSnippetsTest.class.getResourceAsStream("/dialects/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private List<String> problems(String name) {
    WorkflowInvalidException e = catchThrowableOfType(WorkflowInvalidException.class,
        () -> engine.parse(snippet(name), "dialects/" + name));
    assertThat(e).as("%s must not load", name).isNotNull();
    return e.problems().stream().map(Problem::format).toList();
  }

  @Test
  void coderReviewerLoadsWithItsLoopEdgeAsWritten() {
    Workflow wf = engine.parse(snippet("coder_reviewer.yaml"), "dialects/coder_reviewer.yaml");
    assertThat(wf.edges()).filteredOn(e -> e.isLoop()).singleElement()
        .satisfies(e -> assertThat(e.maxIterations()).isEqualTo(3));
  }

  @Test
  void coderReviewerLoadsOnceItsLoopEdgeIsRemoved() {
    String yaml = snippet("coder_reviewer.yaml");
    String forwardOnly = yaml.substring(0, yaml.indexOf("  # Loop: reviewer sends back"));
    Workflow wf = engine.parse(forwardOnly, "coder_reviewer.yaml");
    assertThat(wf.name()).isEqualTo("coder-reviewer-loop");
    assertThat(wf.inputs()).containsOnlyKeys("task");
    assertThat(wf.nodes()).extracting(n -> n.id() + ":" + n.kind()).containsExactly("coder:llm", "reviewer:llm");

    RunResult r = engine.run(wf, Map.of("task", "add two numbers"));
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    // reviewer has not run when coder renders its prompt: {% if reviewer.text %} is simply false.
    assertThat((String) r.nodes().get("coder").get("output"))
        .contains("Implement: add two numbers")
        .doesNotContain("Previous feedback");
    assertThat((String) r.nodes().get("reviewer").get("output")).contains("Implement: add two numbers");
  }

  @Test
  void whileLoopBasicRunsToCountThree() {
    Workflow wf = engine.parse(snippet("while_loop_basic.yaml"), "dialects/while_loop_basic.yaml");
    RunResult r = engine.run(wf, Map.of("count", 0));
    assertThat(r.error()).isNull();
    assertThat(r.state()).containsEntry("count", 3L);
    assertThat(r.nodes().get("count_loop")).containsEntry("exit_reason", "condition_false").containsEntry("count", 3);
  }

  @Test
  void whileLoopMaxIterationsFailsAtTheBound() {
    Workflow wf = engine.parse(snippet("while_loop_max_iterations.yaml"), "dialects/while_loop_max_iterations.yaml");
    RunResult r = engine.run(wf, Map.of());
    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("max_iterations_exceeded");
    assertThat(r.error().message()).contains("while_loop 'never_ends' exceeded max_iterations (5)");
    assertThat(r.state()).containsEntry("iterations", 5L);
  }

  @Test
  void refineUntilValidReportsOnlyItsMissingNode() {
    assertThat(problems("refine_until_valid.yaml")).containsExactly(
        "dialects/refine_until_valid.yaml:31:9: edges[1].to: unknown node 'use_result'",
        "dialects/refine_until_valid.yaml:32:11: edges[2].from: unknown node 'use_result'");
  }

  @Test
  void counterWithoutLoopRunsLuaWithNameIdsAndStartEndEdges() {
    Workflow wf = engine.parse(snippet("counter_without_loop.yaml"), "dialects/counter_without_loop.yaml");
    assertThat(wf.nodes()).extracting(n -> n.id()).containsExactly("increment", "increment_again");

    RunResult r = engine.run(wf, Map.of("count", 0));

    assertThat(r.error()).isNull();
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.state()).containsEntry("count", 2L);
    assertThat(r.nodes().get("increment")).containsEntry("status", "completed").containsEntry("output",
        Map.of("count", 1L));
    assertThat(r.output()).isEqualTo(Map.of("count", 2L));
  }

  @Test
  void validateNodeRunsAsPythonWithTopLevelReturn() {
    assumeThat(PythonAvailable.python3()).as("python3 on PATH").isTrue();
    Workflow wf = engine.parse(snippet("validate_python.yaml"), "dialects/validate_python.yaml");

    RunResult valid = engine.run(wf, Map.of("llm_response", Map.of("content", "{\"answer\": 42}")));
    assertThat(valid.error()).isNull();
    assertThat(valid.state())
        .containsEntry("is_valid", true)
        .containsEntry("parsed_result", Map.of("answer", 42));

    RunResult invalid = engine.run(wf, Map.of("llm_response", Map.of("content", "not json")));
    assertThat(invalid.error()).isNull();
    assertThat(invalid.state())
        .containsEntry("is_valid", false)
        .containsEntry("validation_error", "Invalid JSON")
        .doesNotContainKey("parsed_result");
  }

  @Test
  void anLlmNodeWithoutTheLlmModuleSaysWhichModuleIsMissing() {
    Loopflow coreOnly = Loopflow.builder().discover(false).build();
    WorkflowInvalidException e = catchThrowableOfType(WorkflowInvalidException.class, () -> coreOnly.parse("""
        name: needs-llm
        nodes:
          - id: ask
            prompt: "Say hi"
        """, "llm.yaml"));
    assertThat(e.problems()).extracting(Problem::format).containsExactly(
        "llm.yaml:4:5: nodes.ask: node kind 'llm' needs the loopflow-llm module, which is not on the class path");
  }
}
