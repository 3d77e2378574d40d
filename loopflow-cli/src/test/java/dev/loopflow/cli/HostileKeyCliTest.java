package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A key taken from an input ({@code state[input.field]}) named after one of the template engine's internal names
 * reached the engine's interpreter; journaling it threw and the run stayed 'running' for ever, in the store too.
 * Through the real command line and a durable store: the run ends, its record says how, and nothing of the
 * engine is printed.
 */
class HostileKeyCliTest {
  @TempDir
  Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"____int3rpr3t3r____", "filter:render", "exptest:defined"})
  void aHostileKeyEndsItsRunAndTheStoreSaysSo_bugRunStayedRunningForEver(String key) throws Exception {
    Path wf = dir.resolve("hostile.yaml");
    Files.writeString(wf, """
        name: hostile
        input:
          field: {type: string}
        nodes:
          - id: t
            type: transform
            template: "{{ state[input.field] }}"
          - id: u
            type: transform
            depends_on: [t]
            template: "[{{ input[input.field] }}]"
        """);
    String store = "sqlite:" + dir.resolve("runs.db");

    CliTest.Run r = CliTest.cli("run", wf.toString(), "--input", "field=" + key, "--store", store, "--json",
        "--quiet", "--run-id", "run_hostile");

    JsonNode json = new ObjectMapper().readTree(r.out());
    assertThat(json.get("status").asText()).as(r.err()).isIn("completed", "failed");
    assertThat(r.out() + r.err()).doesNotContain("hubspot").doesNotContain("Interpreter").doesNotContain("Exception");
    CliTest.Run shown = CliTest.cli("show", "run_hostile", "--store", store, "--json");
    assertThat(new ObjectMapper().readTree(shown.out()).get("status").asText()).as(shown.err())
        .isIn("completed", "failed");
  }
}
