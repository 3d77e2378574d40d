package dev.loopflow.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code GET /api/runs/{id}/loops/{loop}/passes}: a loop's passes a page at a time. */
class LoopPassesApiTest {
  @TempDir static Path tmp;
  static ServerHarness h;
  static String thousand;
  static String nested;

  @BeforeAll
  static void start() {
    h = new ServerHarness(tmp.resolve("home"));
    thousand = run("""
        name: thousand
        nodes:
          - id: count_loop
            type: while_loop
            max_iterations: 1000
            condition: "(state.count or 0) < 1000"
            body:
              - id: increment
                run: |
                  return { count = (state.count or 0) + 1 }
        """);
    nested = run("""
        name: nested
        nodes:
          - id: outer
            loop_group:
              max_iterations: 3
              nodes:
                - id: inner
                  loop_group:
                    max_iterations: 4
                    nodes:
                      - id: work
                        type: transform
                        template: "{{ loop.iteration }}"
        """);
  }

  private static String run(String source) {
    ServerHarness.Response r = h.post("/api/runs", ServerHarness.map("source", source));
    assertThat(r.status()).as(r.toString()).isEqualTo(201);
    String id = r.json().path("run_id").asText();
    h.awaitStatus(id, "completed");
    return id;
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @Test
  void aPageOfAThousandPassLoopHoldsTheHundredAskedFor() {
    JsonNode page = h.get("/api/runs/" + thousand + "/loops/count_loop/passes?offset=100&limit=100").json();
    assertThat(page.path("total").asInt()).isEqualTo(1000);
    assertThat(page.path("passes").size()).isEqualTo(100);
    assertThat(page.path("passes").get(0).path("pass").asInt()).isEqualTo(101);
    assertThat(page.path("passes").get(99).path("pass").asInt()).isEqualTo(200);
    assertThat(page.path("passes").get(0).path("status").asText()).isEqualTo("completed");
    assertThat(page.path("passes").get(0).path("executions").asInt()).isEqualTo(1);
    JsonNode first = h.get("/api/runs/" + thousand + "/loops/count_loop/passes").json();
    assertThat(first.path("limit").asInt()).isEqualTo(100);
    assertThat(first.path("passes").get(0).path("pass").asInt()).isEqualTo(1);
    JsonNode past = h.get("/api/runs/" + thousand + "/loops/count_loop/passes?offset=5000").json();
    assertThat(past.path("passes").size()).isZero();
  }

  @Test
  void aNestedLoopIsAddressedByItsPathInsideTheOuterPass() {
    JsonNode page = h.get("/api/runs/" + nested + "/loops/outer%5B2%5D.inner/passes").json();
    assertThat(page.path("total").asInt()).isEqualTo(4);
    assertThat(page.path("loop").asText()).isEqualTo("outer[2].inner");
    JsonNode outer = h.get("/api/runs/" + nested + "/loops/outer/passes").json();
    assertThat(outer.path("total").asInt()).isEqualTo(3);
    assertThat(outer.path("passes").get(0).path("executions").asInt()).as("inner's 4 passes and its own row")
        .isGreaterThanOrEqualTo(4);
    assertThat(h.get("/api/runs/" + nested + "/loops/nope/passes").json().path("total").asInt()).isZero();
  }

  @ParameterizedTest
  @ValueSource(strings = {"offset=-1", "limit=0", "limit=1001", "limit=x", "offset=99999999999"})
  void badPageParametersAreNamed(String query) {
    ServerHarness.Response r = h.get("/api/runs/" + thousand + "/loops/count_loop/passes?" + query);
    assertThat(r.status()).as(r.toString()).isEqualTo(400);
  }

  @ParameterizedTest
  @ValueSource(strings = {"outer[0].inner", "outer[x].inner", "a b", "outer[2]", "outer[2].", ".inner"})
  void malformedLoopPathsAreRefused(String path) {
    ServerHarness.Response r = h.get("/api/runs/" + nested + "/loops/" + java.net.URLEncoder.encode(path,
        java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20") + "/passes");
    assertThat(r.status()).as(path + " " + r).isEqualTo(400);
  }
}
