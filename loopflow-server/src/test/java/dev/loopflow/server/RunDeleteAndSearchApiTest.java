package dev.loopflow.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code DELETE /api/runs/{id}} and the run list's search parameters ({@code id}, {@code q}, {@code workflow},
 * {@code status}, {@code offset}, {@code limit}), checked against the store itself.
 */
class RunDeleteAndSearchApiTest {
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
      """;

  @BeforeAll
  static void start() {
    h = new ServerHarness(tmp.resolve("home"));
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  private static String start(Object body) {
    ServerHarness.Response r = h.post("/api/runs", body);
    assertThat(r.status()).as(r.toString()).isEqualTo(201);
    return r.json().path("run_id").asText();
  }

  private static ServerHarness.Response delete(String id) {
    return h.send(h.request("/api/runs/" + id).DELETE().build());
  }

  private static List<String> ids(String query) {
    ServerHarness.Response r = h.get("/api/runs?" + query);
    assertThat(r.status()).as(r.toString()).isEqualTo(200);
    List<String> out = new ArrayList<>();
    r.json().forEach(x -> out.add(x.path("run_id").asText()));
    return out;
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  @Test
  void aFinishedRunIsDeletedWithItsJournalAndAnotherRunStays() {
    String gone = start(ServerHarness.map("source", Fixtures.QUICK, "run_id", "del-gone"));
    String kept = start(ServerHarness.map("source", Fixtures.QUICK, "run_id", "del-kept"));
    h.awaitStatus(gone, "completed");
    h.awaitStatus(kept, "completed");

    ServerHarness.Response r = delete(gone);
    assertThat(r.status()).as(r.toString()).isEqualTo(200);
    assertThat(r.json().path("deleted").asBoolean()).isTrue();
    assertThat(h.get("/api/runs/" + gone).code()).isEqualTo("run_not_found");
    assertThat(h.otherStore().findRun(gone)).isEmpty();
    assertThat(h.otherStore().nodeExecutions(gone)).isEmpty();
    assertThat(h.otherStore().events(gone)).isEmpty();
    assertThat(ids("limit=1000")).doesNotContain(gone).contains(kept);
    assertThat(h.otherStore().nodeExecutions(kept)).isNotEmpty();

    ServerHarness.Response again = delete(gone);
    assertThat(again.status()).isEqualTo(404);
    assertThat(again.code()).isEqualTo("run_not_found");
  }

  @Test
  void aRunThatIsExecutingIsRefusedByCode() {
    Path gate = tmp.resolve("gate-delete");
    String id = start(ServerHarness.map("source", Fixtures.GATED, "inputs", ServerHarness.map("gate",
        gate.toString())));
    ServerHarness.Response r = delete(id);
    assertThat(r.status()).as(r.toString()).isEqualTo(409);
    assertThat(r.code()).isEqualTo("run_busy");
    assertThat(h.otherStore().findRun(id)).isPresent();
    Fixtures.release(gate);
    h.awaitStatus(id, "completed");
    assertThat(delete(id).status()).isEqualTo(200);
  }

  @Test
  void anOriginWhoseForksReuseItsExecutionsIsRefusedNamingThem() {
    String origin = start(ServerHarness.map("source", COUNTER));
    h.awaitStatus(origin, "completed");
    ServerHarness.Response f = h.post("/api/runs/" + origin + "/fork", ServerHarness.map("at", "count_loop:3"));
    assertThat(f.status()).as(f.toString()).isEqualTo(201);
    String fork = f.json().path("run_id").asText();
    h.awaitStatus(fork, "completed");

    ServerHarness.Response r = delete(origin);
    assertThat(r.status()).as(r.toString()).isEqualTo(409);
    assertThat(r.code()).isEqualTo("run_has_forks");
    assertThat(r.json().path("error").path("message").asText()).contains(fork);
    assertThat(h.get("/api/runs/" + fork + "/executions").json().get(0).path("reused_from").asText())
        .isEqualTo(origin);

    assertThat(delete(fork).status()).isEqualTo(200);
    assertThat(delete(origin).status()).isEqualTo(200);
  }

  @Test
  void theListIsSearchedByIdPrefixTextWorkflowAndStatusAPageAtATime() {
    for (int i = 0; i < 5; i++) {
      h.awaitStatus(start(ServerHarness.map("source", Fixtures.QUICK, "run_id", "srch-q-" + i)), "completed");
    }
    String paused = start(ServerHarness.map("source", Fixtures.APPROVAL, "run_id", "srch-a-0"));
    h.awaitStatus(paused, "paused");

    assertThat(ids("id=srch-q-&limit=1000")).containsExactlyInAnyOrder("srch-q-0", "srch-q-1", "srch-q-2",
        "srch-q-3", "srch-q-4");
    assertThat(ids("id=srch-&status=paused")).containsExactly("srch-a-0");
    assertThat(ids("id=srch-&workflow=approve")).containsExactly("srch-a-0");
    // Text: case-insensitive, as text (a pattern character matches only itself), in id, workflow and more.
    assertThat(ids("q=" + enc("SRCH-A"))).containsExactly("srch-a-0");
    assertThat(ids("id=srch-&q=" + enc("approve-ME"))).containsExactly("srch-a-0");
    assertThat(ids("q=" + enc("srch-%"))).isEmpty();
    assertThat(ids("q=" + enc(".*"))).isEmpty();
    // Pages: most recent first, the same order whatever the page.
    List<String> all = ids("id=srch-q-&limit=1000");
    List<String> paged = new ArrayList<>();
    for (int offset = 0; offset < 6; offset += 2) {
      paged.addAll(ids("id=srch-q-&limit=2&offset=" + offset));
    }
    assertThat(paged).isEqualTo(all);

    ServerHarness.Response tooLong = h.get("/api/runs?q=" + "x".repeat(201));
    assertThat(tooLong.status()).isEqualTo(400);
    assertThat(tooLong.json().path("error").path("field").asText()).isEqualTo("q");
    assertThat(h.get("/api/runs?offset=-1").status()).isEqualTo(400);
  }

  @Test
  void theRunAndTheListShowOneDuration() {
    String id = start(ServerHarness.map("source", Fixtures.QUICK, "run_id", "dur-1"));
    h.awaitStatus(id, "completed");
    JsonNode shown = h.get("/api/runs/" + id).json();
    JsonNode row = h.get("/api/runs?id=dur-1").json().get(0);
    assertThat(shown.path("duration_ms").isNumber()).isTrue();
    assertThat(shown.path("duration_ms")).isEqualTo(row.path("duration_ms"));
    assertThat(shown.path("started_at")).isEqualTo(row.path("started_at"));
    assertThat(shown.path("finished_at")).isEqualTo(row.path("finished_at"));
  }
}
