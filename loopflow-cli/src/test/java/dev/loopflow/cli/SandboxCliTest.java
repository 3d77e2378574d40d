package dev.loopflow.cli;

import static dev.loopflow.cli.CliTest.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loopflow.cli.CliTest.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code --sandbox} as a user meets it: the run store is unreadable from a contained node, {@code show} and
 * {@code --json} say how each process node ran, a machine without bubblewrap is named once and refused under
 * {@code required}, and a mode that is none is a usage error.
 */
class SandboxCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;
  String store;
  Path wf;

  @BeforeEach
  void setUp() throws Exception {
    store = "sqlite:" + dir.resolve("runs.db");
    wf = dir.resolve("peek.yaml");
    Files.writeString(wf, """
        name: peek
        nodes:
          - id: peek
            bash: "head -c 16 '%s' 2>&1; echo; echo done"
        """.formatted(dir.resolve("runs.db")));
  }

  private JsonNode run(String... extra) throws Exception {
    String[] args = new String[5 + extra.length];
    System.arraycopy(new String[] {"run", wf.toString(), "--store", store, "--json"}, 0, args, 0, 5);
    System.arraycopy(extra, 0, args, 5, extra.length);
    Run r = cli(args);
    assertThat(r.status()).as(r.err()).isIn(0, 1);
    return JSON.readTree(r.out());
  }

  @Test
  void aContainedNodeCannotReadTheRunStoreAndTheResultSaysHowItRan() throws Exception {
    JsonNode contained = run("--quiet");
    assertThat(contained.get("status").asText()).isEqualTo("completed");
    assertThat(contained.get("nodes").get("peek").get("sandbox").asText()).isEqualTo("workspace");
    assertThat(contained.get("nodes").get("peek").get("stdout").asText()).doesNotContain("SQLite format");

    JsonNode off = run("--quiet", "--sandbox", "off");
    assertThat(off.get("nodes").get("peek").get("sandbox").asText()).isEqualTo("disabled");
    assertThat(off.get("nodes").get("peek").get("stdout").asText()).contains("SQLite format"); // the control

    Run show = cli("show", contained.get("run_id").asText(), "--store", store);
    assertThat(show.out()).contains("peek  completed  [sandbox: workspace]");
  }

  @ParameterizedTest
  @ValueSource(strings = {"bogus", "", "Required ", "on", "true"})
  void aModeThatIsNoneIsAUsageError(String mode) {
    Run r = cli("run", wf.toString(), "--store", store, "--sandbox", mode);

    if (mode.strip().equalsIgnoreCase("required")) {
      assertThat(r.status()).as(r.err()).isZero();
      return;
    }
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err().strip()).startsWith("loopflow: --sandbox must be auto, required or off, was '")
        .doesNotContain("\n", "Exception");
  }

  @Test
  void withoutBubblewrapAutoSaysSoOnceAndRequiredRefusesTheNode() throws Exception {
    String before = System.getProperty("loopflow.bwrap");
    System.setProperty("loopflow.bwrap", dir.resolve("no-bwrap-here").toString());
    try {
      Run auto = cli("run", wf.toString(), "--store", store, "--json");
      assertThat(auto.status()).as(auto.err()).isZero();
      assertThat(auto.err().lines().filter(l -> l.contains("process nodes run uncontained")).count()).isEqualTo(1);
      assertThat(JSON.readTree(auto.out()).get("nodes").get("peek").get("sandbox").asText())
          .isEqualTo("unavailable");

      Run required = cli("run", wf.toString(), "--store", store, "--json", "--sandbox", "required");
      assertThat(required.status()).isEqualTo(1);
      JsonNode r = JSON.readTree(required.out());
      assertThat(r.get("error").get("code").asText()).isEqualTo("sandbox_required");
      assertThat(r.get("error").get("message").asText()).contains("bubblewrap");
      assertThat(required.err()).doesNotContain("process nodes run uncontained", "Exception");
    } finally {
      if (before == null) {
        System.clearProperty("loopflow.bwrap");
      } else {
        System.setProperty("loopflow.bwrap", before);
      }
    }
  }
}
