package dev.loopflow.cli;

import static dev.loopflow.cli.CliTest.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loopflow.cli.CliTest.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a user sees through the command line when a loop fails or ends: the failed pass in {@code run --json} and
 * {@code show --json}, the while_loop idiom of the docs, and the spelling of every event's run id.
 */
class FailurePathsCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;
  String store;

  @BeforeEach
  void store() {
    store = "sqlite:" + dir.resolve("runs.db");
  }

  private Path file(String name, String yaml) throws Exception {
    Path p = dir.resolve(name);
    Files.writeString(p, yaml);
    return p;
  }

  private static final String FAILS_IN_PASS_TWO = """
      name: work-check
      nodes:
        - id: work
          bash: "if [ {{ loop.iteration }} = 2 ]; then echo boom >&2; exit 3; fi; echo pass {{ loop.iteration }}"
        - id: check
          bash: echo again
      edges:
        - {from: work, to: check}
        - {from: check, to: work, type: loop, maxIterations: 3}
      """;

  @Test
  void aNodeFailingInPassTwoIsFailedInRunJsonAndShowJson_bugBothSaidCompletedWithPassOne() throws Exception {
    Path wf = file("wc.yaml", FAILS_IN_PASS_TWO);
    Run run = cli("run", wf.toString(), "--store", store, "--json", "--quiet");
    assertThat(run.status()).as(run.err()).isEqualTo(1);
    JsonNode result = JSON.readTree(run.out());
    Run show = cli("show", result.get("run_id").asText(), "--store", store, "--json");
    assertThat(show.status()).as(show.err()).isZero();

    for (JsonNode r : List.of(result, JSON.readTree(show.out()))) {
      JsonNode work = r.get("nodes").get("work");
      assertThat(work.get("status").asText()).isEqualTo("failed");
      assertThat(work.get("output").asText()).isNotEqualTo("pass 1");
      assertThat(work.get("error").get("code").asText()).isEqualTo("node_failed");
      assertThat(work.get("error").get("path").asText()).isEqualTo("check->work[2].work");
      assertThat(work.get("error").get("message").asText()).contains("status 3");
      JsonNode loop = r.get("nodes").get("check").get("loop");
      assertThat(loop.get("exit_reason").asText()).isEqualTo("error");
      assertThat(loop.get("error").get("path").asText()).isEqualTo("check->work[2].work");
    }
  }

  @Test
  void theDocsWhileIdiomCompletesAfterThreePassesWithAFinalFalseCheck_bugItAlwaysHitTheBound() throws Exception {
    Path wf = file("w.yaml", """
        name: three
        nodes:
          - name: w
            type: while_loop
            max_iterations: 5
            condition: "(loop.iteration or 0) < 3"
            body:
              - name: step
                run: |
                  return { n = (state.n or 0) + 1 }
        """);
    Path events = dir.resolve("events.jsonl");
    Run run = cli("run", wf.toString(), "--store", store, "--json", "--quiet", "--events-jsonl", events.toString());

    assertThat(run.status()).as(run.err()).isZero();
    JsonNode result = JSON.readTree(run.out());
    assertThat(result.get("output").get("n").asInt()).isEqualTo(3);
    List<String> checks = new ArrayList<>();
    for (String line : Files.readAllLines(events)) {
      JsonNode e = JSON.readTree(line);
      if (e.get("type").asText().equals("loop.iteration")) {
        checks.add(e.get("iteration").asInt() + ":" + e.get("condition_result").asBoolean());
      }
    }
    assertThat(checks).containsExactly("1:true", "2:true", "3:true", "4:false");
  }

  @Test
  void everyEventInTheJsonlFileCarriesRunId_bugLoopIterateSpelledItRunId() throws Exception {
    Path wf = file("loop.yaml", """
        name: loops-back
        nodes:
          - id: work
            bash: echo pass {{ loop.iteration }}
          - id: check
            bash: echo again
        edges:
          - {from: work, to: check}
          - {from: check, to: work, type: loop, maxIterations: 3, on_exhausted: continue}
        """);
    Path events = dir.resolve("events.jsonl");
    Run run = cli("run", wf.toString(), "--store", store, "--quiet", "--events-jsonl", events.toString());
    assertThat(run.status()).as(run.err()).isZero();

    List<String> lines = Files.readAllLines(events);
    assertThat(lines).anyMatch(l -> l.contains("\"loop.iterate\""));
    for (String line : lines) {
      JsonNode e = JSON.readTree(line);
      assertThat(e.has("run_id")).as(line).isTrue();
      assertThat(e.has("runId")).as(line).isFalse();
    }
  }
}
