package dev.loopflow.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Forks and diffs over HTTP: {@code POST /api/runs/{id}/fork} and {@code GET /api/runs/{id}/diff}. */
class ForkApiTest {
  @TempDir static Path tmp;
  static ServerHarness h;

  private static final String COUNTER = """
      name: counter
      nodes:
        - id: count_loop
          type: while_loop
          max_iterations: 10
          condition: "(state.count or 0) < 5"
          body:
            - id: increment
              run: |
                return { count = (state.count or 0) + 1 }
      output: "{{ state.count }}"
      """;

  @BeforeAll
  static void start() {
    h = new ServerHarness(tmp.resolve("home"));
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  private static String origin() {
    ServerHarness.Response r = h.post("/api/runs", ServerHarness.map("source", COUNTER));
    assertThat(r.status()).as(r.toString()).isEqualTo(201);
    String id = r.json().path("run_id").asText();
    h.awaitStatus(id, "completed");
    return id;
  }

  @Test
  void aForkAnswersWithANewRunIdAndEndsWithTheEditedState() {
    String id = origin();
    ServerHarness.Response r = h.post("/api/runs/" + id + "/fork", ServerHarness.map("at", "count_loop:3", "set",
        Map.of("state.count", 100)));
    assertThat(r.status()).as(r.toString()).isEqualTo(201);
    String fork = r.json().path("run_id").asText();
    assertThat(fork).isNotBlank().isNotEqualTo(id);
    JsonNode done = h.awaitStatus(fork, "completed");
    assertThat(done.at("/state/count").asInt()).isEqualTo(100);
    assertThat(done.at("/forked_from/run_id").asText()).isEqualTo(id);
    assertThat(h.get("/api/runs/" + id).json().at("/forks/0/run_id").asText()).isEqualTo(fork);
    JsonNode executions = h.get("/api/runs/" + fork + "/executions").json();
    assertThat(executions.get(0).path("reused_from").asText()).isEqualTo(id);
  }

  @Test
  void aDryRunStartsNothingAndSaysWhatIsReused() {
    String id = origin();
    int before = h.get("/api/runs").json().size();
    ServerHarness.Response r = h.post("/api/runs/" + id + "/fork", ServerHarness.map("at", "count_loop:3",
        "dry_run", true));
    assertThat(r.status()).as(r.toString()).isEqualTo(200);
    assertThat(r.json().path("dry_run").asBoolean()).isTrue();
    assertThat(r.json().path("reused").size()).isEqualTo(2);
    assertThat(h.get("/api/runs").json().size()).isEqualTo(before);
  }

  @Test
  void refusalsAreTypedAndNothingStarts() {
    String id = origin();
    int before = h.get("/api/runs").json().size();
    assertThat(h.post("/api/runs/" + id + "/fork", ServerHarness.map("at", "count_loop:99")).code())
        .isEqualTo("fork_refused");
    assertThat(h.post("/api/runs/" + id + "/fork", ServerHarness.map("at", "count loop")).status()).isEqualTo(400);
    assertThat(h.post("/api/runs/" + id + "/fork", ServerHarness.map("at", "count_loop:1", "set",
        Map.of("nope", 1))).status()).isEqualTo(400);
    assertThat(h.post("/api/runs/" + id + "/fork", Map.of()).status()).isEqualTo(400);
    assertThat(h.post("/api/runs/nope/fork", ServerHarness.map("at", "count_loop:1")).code())
        .isEqualTo("run_not_found");
    assertThat(h.get("/api/runs").json().size()).isEqualTo(before);
  }

  @Test
  void twoPassesDiffByStateAndOutputs() {
    String id = origin();
    ServerHarness.Response r = h.get("/api/runs/" + id + "/diff?a=count_loop:2&b=count_loop:3");
    assertThat(r.status()).as(r.toString()).isEqualTo(200);
    assertThat(r.json().at("/left/state/count").asInt()).isEqualTo(2);
    assertThat(r.json().at("/right/state/count").asInt()).isEqualTo(3);
    assertThat(h.get("/api/runs/" + id + "/diff?a=count_loop:2").status()).isEqualTo(400);
    assertThat(h.get("/api/runs/" + id + "/diff").status()).isEqualTo(400);
    assertThat(h.get("/api/runs/" + id + "/diff?a=count_loop:2&b=count_loop:40").status()).isEqualTo(400);
  }

}
