package dev.loopflow.server.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.llm.MockScripts;
import dev.loopflow.llm.provider.Provider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The bundled templates: each loads, runs to completion with the real engine on the mock provider with no inputs
 * given, and is the example of its form but for its header comment, so the two cannot drift apart.
 */
class TemplatesTest {
  /** The example each template is taken from. */
  static final Map<String, String> EXAMPLE = Map.of(
      "self-refine", "loop-self-refine.yaml",
      "agentic-search", "loop-agentic-search.yaml",
      "coder-reviewer", "loop-coder-reviewer.yaml",
      "counter", "loop-while-counter.yaml",
      "refine-until-valid", "loop-refine-until-valid.yaml",
      "implement-test-review", "loop-group-fix-until-pass.yaml",
      "pipeline", "pipeline-quickstart.yaml");

  static List<String> ids() {
    return Templates.ids();
  }

  @Test
  void everyTemplateHasAnExampleAndTheFormsAreAllThere() {
    assertThat(EXAMPLE.keySet()).containsExactlyInAnyOrderElementsOf(Templates.ids());
    assertThat(Templates.ALL.stream().map(Templates.Template::form).collect(Collectors.toSet()))
        .containsExactlyInAnyOrder("loop", "loop edge", "while_loop", "loop_group", "pipeline");
    assertThat(Templates.ALL).extracting(Templates.Template::name).contains("Self-Refine", "Agentic Search");
    assertThat(Templates.ALL).allSatisfy(t -> {
      assertThat(t.id()).matches("[a-z][a-z-]*");
      assertThat(t.description()).isNotBlank().doesNotContain("null");
    });
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("ids")
  void templateIsItsExampleButForTheHeaderComment(String id) throws IOException {
    String template = Templates.source(Templates.find(id).orElseThrow());
    String example = Files.readString(Path.of("..", "examples", EXAMPLE.get(id)));
    assertThat(header(template)).as("the template says what it is").isNotBlank().doesNotContain("examples/");
    assertThat(body(template)).isEqualTo(body(example));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("ids")
  void templateLoadsAndRunsToCompletionOnTheMockProvider(String id) throws IOException {
    String source = Templates.source(Templates.find(id).orElseThrow());
    if (source.contains("python3")) {
      assumeTrue(python3(), id + " needs python3");
    }
    Loopflow engine = Loopflow.create();
    Workflow wf = engine.parse(source, id + ".yaml");
    Map<String, String> env = new HashMap<>(System.getenv());
    for (Provider p : Provider.values()) {
      env.remove(p.baseUrlVariable());
      p.apiKeyVariable().ifPresent(env::remove);
    }
    // As the server starts a run (LocalRuns): with no provider configured, LLM calls go to the mock provider.
    RunOptions.Builder options = RunOptions.builder().environment(env);
    if (MockScripts.mockWhenNoProvider(wf, env)) {
      options.option("llm.mock", true);
    }
    RunResult r = engine.run(wf, options.build());
    assertThat(r.status()).as("%s: %s", id, r.error()).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.output()).as(id).isNotNull();
    assertThat(String.valueOf(r.output())).isNotBlank();
  }

  @Test
  void counterTemplateCountsToThree() {
    Loopflow engine = Loopflow.create();
    RunResult r = engine.run(engine.parse(Templates.source(Templates.find("counter").orElseThrow()), "c.yaml"),
        Map.of());
    assertThat(r.state()).containsEntry("count", 3L);
  }

  @Test
  void unknownTemplateIsNotFound() {
    for (String id : Set.of("", "..", "../pom", "self-refine.yaml", "SELF-REFINE", "self-refine/", "\u202e")) {
      assertThat(Templates.find(id)).as(id).isEmpty();
    }
  }

  /** The leading comment lines. */
  private static String header(String text) {
    StringBuilder sb = new StringBuilder();
    for (String line : text.split("\n", -1)) {
      if (!line.startsWith("#") && !line.isBlank()) {
        break;
      }
      sb.append(line).append('\n');
    }
    return sb.toString().strip();
  }

  /** Everything from the first line that is neither a comment nor blank. */
  private static String body(String text) {
    return text.substring(header(text).length()).stripLeading();
  }

  private static boolean python3() {
    try {
      Process p = new ProcessBuilder("python3", "--version").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor() == 0;
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }
}
