package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.LoopConfig;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.model.Workflow;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code loopflow run examples/X.yaml} with no flags at all runs every example, on a machine with no LLM provider
 * configured and an empty LOOPFLOW_HOME: inputs have defaults, and LLM calls go to the (labelled) mock provider,
 * answering from the file's own {@code mock:} block. An example that waits for a person exits 3 and says how to
 * continue.
 */
class ExamplesWithoutFlagsTest {
  @TempDir
  Path home;

  private String oldHome;
  private Map<String, String> oldEnv;

  @BeforeEach
  void emptyHomeAndNoProvider() {
    oldHome = System.getProperty("loopflow.home");
    System.setProperty("loopflow.home", home.toString());
    oldEnv = Support.environment;
    Map<String, String> env = new java.util.HashMap<>(System.getenv());
    for (dev.loopflow.llm.provider.Provider p : dev.loopflow.llm.provider.Provider.values()) {
      env.remove(p.baseUrlVariable());
      p.apiKeyVariable().ifPresent(env::remove);
    }
    Support.environment = Map.copyOf(env);
  }

  @AfterEach
  void restore() {
    System.setProperty("loopflow.home", oldHome);
    Support.environment = oldEnv;
  }

  static List<Path> examples() throws IOException {
    try (Stream<Path> s = Files.list(Path.of("../examples"))) {
      return s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("examples")
  void everyExampleRunsWithNoFlags_bugExamplesNeededFlagsFromTheirHeader(Path example) throws Exception {
    String text = Files.readString(example);
    if (text.contains("python3")) {
      assumeTrue(python3(), example + " needs python3");
    }
    Workflow wf = Loopflow.create().load(example);
    CliTest.Run r = CliTest.cli("run", example.toString());
    if (waitsForAPerson(wf.nodes())) {
      assertThat(r.status()).as(r.err()).isEqualTo(3);
      assertThat(r.err()).contains("loopflow: continue with: loopflow resume run_").contains("--answer");
    } else {
      assertThat(r.status()).as(r.err()).isZero();
      assertThat(r.out()).isNotBlank().doesNotContain("null");
    }
    if (wf.blocks().containsKey("mock")) {
      // The mock is chosen because no provider is configured, and labelled wherever an LLM call is shown.
      assertThat(r.err()).contains("the mock provider answers from the workflow's mock: block").contains("(mock)");
    }
    assertThat(r.err()).doesNotContain("\tat ").doesNotContain("Exception");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("examples")
  void showJsonPrintsWhatRunJsonPrintedForEveryExample(Path example) throws Exception {
    if (Files.readString(example).contains("python3")) {
      assumeTrue(python3(), example + " needs python3");
    }
    CliTest.Run run = CliTest.cli("run", example.toString(), "--json", "--quiet");
    assertThat(run.status()).as(run.err()).isIn(0, 3);
    com.fasterxml.jackson.databind.JsonNode printed = new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(run.out());

    CliTest.Run show = CliTest.cli("show", printed.get("run_id").asText(), "--json");

    assertThat(show.status()).as(show.err()).isZero();
    assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(show.out())).isEqualTo(printed);
  }

  private static boolean waitsForAPerson(List<Node> nodes) {
    for (Node n : nodes) {
      if (n.kind().equals("approval")
          || n.body() instanceof Node.Loop l && (l.config() instanceof LoopConfig.Group g && g.interactive()
              || waitsForAPerson(l.body()))) {
        return true;
      }
    }
    return false;
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
