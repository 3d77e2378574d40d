package dev.loopflow.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
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

  @Test
  void onePassIsServedWithItsExecutionsAndEventsAndNothingOfTheOtherPasses() {
    JsonNode pass = h.get("/api/runs/" + thousand + "/loops/count_loop/passes/500").json();
    assertThat(pass.path("pass").asInt()).isEqualTo(500);
    assertThat(pass.path("executions").size()).isEqualTo(1);
    assertThat(pass.path("executions").get(0).path("path").asText()).isEqualTo("count_loop[500].increment");
    JsonNode events = pass.path("events");
    assertThat(events.get(0).path("type").asText()).isEqualTo("loop.iteration");
    assertThat(events.get(0).path("iteration").asInt()).isEqualTo(500);
    List<String> paths = new ArrayList<>();
    events.forEach(e -> paths.add(e.path("path").asText()));
    assertThat(paths.subList(1, paths.size())).isNotEmpty().allMatch(p -> p.equals("count_loop[500].increment"));
    // 1001 is the while_loop's last check, which ran no pass; 1002 never began
    JsonNode check = h.get("/api/runs/" + thousand + "/loops/count_loop/passes/1001").json();
    assertThat(check.path("executions").size()).isZero();
    assertThat(check.path("events").get(0).path("condition_result").asBoolean(true)).isFalse();
    JsonNode beyond = h.get("/api/runs/" + thousand + "/loops/count_loop/passes/1002").json();
    assertThat(beyond.path("executions").size()).isZero();
    assertThat(beyond.path("events").size()).isZero();
  }

  @Test
  void aPassOfANestedLoopHoldsItsInnerLoopsEvents() {
    JsonNode outer2 = h.get("/api/runs/" + nested + "/loops/outer/passes/2").json();
    assertThat(outer2.path("executions").size()).as("inner's 4 passes and inner's own row").isGreaterThanOrEqualTo(4);
    List<String> types = new ArrayList<>();
    outer2.path("events").forEach(e -> {
      types.add(e.path("type").asText());
      assertThat(e.path("path").asText()).matches("outer(\\[2]\\..*)?");
    });
    assertThat(types).contains("loop.started", "loop.completed").filteredOn("loop.iteration"::equals).hasSize(5);
    JsonNode inner = h.get("/api/runs/" + nested + "/loops/outer%5B2%5D.inner/passes/3").json();
    assertThat(inner.path("executions").get(0).path("path").asText()).isEqualTo("outer[2].inner[3].work");
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "-1", "x", "01", "99999999999"})
  void aPassThatIsNoPassNumberIsRefused(String pass) {
    ServerHarness.Response r = h.get("/api/runs/" + thousand + "/loops/count_loop/passes/" + pass);
    assertThat(r.status()).as(r.toString()).isEqualTo(400);
  }

  @Test
  void aWindowedReplaySendsOnlyEachLoopsRecentPasses() throws Exception {
    try (SseClient sse = SseClient.open(h, "/api/runs/" + thousand + "/events?recent_passes=5", null)) {
      sse.awaitEnd(Duration.ofSeconds(30));
      Set<Integer> iterations = new TreeSet<>();
      Set<String> nodePaths = new TreeSet<>();
      for (SseClient.Frame f : sse.frames) {
        JsonNode e = read(f.data());
        if (e.path("type").asText().equals("loop.iteration")) {
          iterations.add(e.path("iteration").asInt());
        } else if (e.path("path").asText().startsWith("count_loop[")) {
          nodePaths.add(e.path("path").asText());
        }
      }
      assertThat(iterations).as("the five last passes and the check that ended the loop")
          .containsExactly(996, 997, 998, 999, 1000, 1001);
      assertThat(nodePaths).containsExactly("count_loop[1000].increment", "count_loop[996].increment",
          "count_loop[997].increment", "count_loop[998].increment", "count_loop[999].increment");
      assertThat(sse.frames.getFirst().event()).isEqualTo("run.started");
      assertThat(sse.frames.getLast().event()).isEqualTo("run.finished");
    }
    JsonNode rows = h.get("/api/runs/" + nested + "/executions?recent_passes=2").json();
    List<String> paths = new ArrayList<>();
    rows.forEach(r -> paths.add(r.path("path").asText()));
    assertThat(paths).contains("outer", "outer[2].inner", "outer[3].inner[3].work", "outer[3].inner[4].work")
        .doesNotContain("outer[1].inner", "outer[3].inner[2].work", "outer[2].inner[2].work");
  }

  @Test
  void aResumedStreamIsNeverWindowed() throws InterruptedException {
    try (SseClient sse = SseClient.open(h, "/api/runs/" + thousand + "/events?recent_passes=1", "10")) {
      sse.awaitEnd(Duration.ofSeconds(30));
      assertThat(sse.frames.getFirst().id()).isEqualTo(11L);
      long ids = sse.frames.stream().filter(f -> f.id() != null).count();
      assertThat(sse.frames.getLast().id() - 10).isEqualTo(ids);
    }
  }

  private static JsonNode read(String json) throws IOException {
    return ServerHarness.JSON.readTree(json);
  }
}
