package dev.loopflow.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** POST /api/runs/{id}/signal: the run's own restart decisions, each with its status. */
class RestartSignalTest {
  @TempDir static Path tmp;
  static ServerHarness h;
  static RunStore other;

  @BeforeAll
  static void start() {
    h = new ServerHarness(tmp.resolve("home"));
    other = h.otherStore();
  }

  @AfterAll
  static void stop() {
    other.close();
    h.close();
  }

  private static CompletableFuture<HttpResponse<String>> signal(String runId, Map<String, Object> body) {
    return h.http.sendAsync(h.request("/api/runs/" + runId + "/signal").header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(ServerHarness.json(body))).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Sends a request and waits until the run's bus holds it, so requests are decided in the order sent. */
  private static CompletableFuture<HttpResponse<String>> queued(String runId, Map<String, Object> body) {
    int before = other.commands(runId).size();
    CompletableFuture<HttpResponse<String>> f = signal(runId, body);
    CrossProcessTest.awaitCommands(other, runId, before + 1);
    return f;
  }

  private static ServerHarness.Response answer(CompletableFuture<HttpResponse<String>> f) throws Exception {
    return new ServerHarness.Response(f.get());
  }

  private static Map<String, Object> restart(String target, String requester) {
    return requester == null ? ServerHarness.map("type", "restart", "target_stage_id", target, "reason", "why")
        : ServerHarness.map("type", "restart", "target_stage_id", target, "reason", "why", "requester_stage_id",
            requester);
  }

  @Test
  void eachDecisionHasItsStatus() throws Exception {
    Path gate = tmp.resolve("gate");
    String id = h.post("/api/runs", ServerHarness.map("source", Fixtures.RESTARTABLE, "inputs",
        ServerHarness.map("gate", gate.toString()))).json().path("run_id").asText();
    CrossProcessTest.awaitExecution(other, id, "implement");
    var unknownTarget = queued(id, restart("nope", "wait"));
    var notRestartable = queued(id, restart("plan", "wait"));
    var notAuthorized = queued(id, restart("implement", null));
    var accepted = queued(id, restart("implement", "wait"));
    Fixtures.release(Path.of(gate + "-1"));

    ServerHarness.Response r = answer(unknownTarget);
    assertThat(r.status()).as(r.toString()).isEqualTo(400);
    assertThat(r.json().path("success").asBoolean()).isFalse();
    assertThat(r.json().path("error").path("code").asText()).isEqualTo("restart_validation_failed");
    r = answer(notRestartable);
    assertThat(r.status()).as(r.toString()).isEqualTo(403);
    assertThat(r.json().path("error").path("code").asText()).isEqualTo("stage_not_restartable");
    r = answer(notAuthorized);
    assertThat(r.status()).as(r.toString()).isEqualTo(403);
    assertThat(r.json().path("error").path("code").asText()).isEqualTo("requester_not_authorized");
    r = answer(accepted);
    assertThat(r.status()).as(r.toString()).isEqualTo(200);
    assertThat(r.json().path("success").asBoolean()).isTrue();
    assertThat(r.json().path("error").isNull()).isTrue();
    assertThat(r.json().path("target_stage_id").asText()).isEqualTo("implement");
    assertThat(r.json().path("iteration").asInt()).isEqualTo(2);

    // Iteration 2 waits at its own gate; a second restart of implement within the hour is refused.
    awaitEvent(id, "node.started", "restart[2].wait");
    var cooldown = queued(id, restart("implement", "verify"));
    var pending = h.post("/api/runs/" + id + "/signal?wait=0", restart("implement", "verify"));
    assertThat(pending.status()).isEqualTo(202);
    assertThat(pending.json().path("pending").asBoolean()).isTrue();
    assertThat(pending.json().path("request_seq").asLong()).isPositive();
    Fixtures.release(Path.of(gate + "-2"));
    r = answer(cooldown);
    assertThat(r.status()).as(r.toString()).isEqualTo(429);
    assertThat(r.json().path("error").path("code").asText()).isEqualTo("restart_cooldown_not_elapsed");
    assertThat(r.json().path("error").path("message").asText()).contains("remaining");
    assertThat(h.awaitStatus(id, "completed").path("output").asText()).isEqualTo("implementation 2");
    assertThat(h.get("/api/runs/" + id).json().path("pipeline").path("restart_requests").size()).isEqualTo(6);
  }

  @Test
  void aRunWithoutARestartPolicyRefusesAtOnce() {
    Path gate = tmp.resolve("gate-no-policy");
    String id = h.post("/api/runs", ServerHarness.map("source", Fixtures.GATED, "inputs", ServerHarness.map("gate",
        gate.toString()))).json().path("run_id").asText();
    h.awaitStatus(id, "running");
    ServerHarness.Response r = h.post("/api/runs/" + id + "/signal", restart("first", null));
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.json().path("error").path("code").asText()).isEqualTo("restart_validation_failed");
    assertThat(r.json().path("error").path("message").asText()).contains("no restart_policy");
    Fixtures.release(gate);
    h.awaitStatus(id, "completed");
  }

  @Test
  void aRunThatIsNotExecutingIsAConflict() {
    String paused = h.post("/api/runs", ServerHarness.map("source", Fixtures.APPROVAL)).json().path("run_id").asText();
    h.awaitStatus(paused, "paused");
    ServerHarness.Response r = h.post("/api/runs/" + paused + "/signal", restart("build", null));
    assertThat(r.status()).isEqualTo(409);
    assertThat(r.code()).isEqualTo("conflict");
    assertThat(r.json().path("error").path("message").asText()).contains("paused");
    String done = h.post("/api/runs", ServerHarness.map("source", Fixtures.QUICK)).json().path("run_id").asText();
    h.awaitStatus(done, "completed");
    assertThat(h.post("/api/runs/" + done + "/signal", restart("a", null)).status()).isEqualTo(409);
    // Journaled as running, but no process holds it (its process died).
    other.createRun(RunRecord.builder().runId("orphan").workflow("w").status(RunStatus.RUNNING)
        .startedAt(Instant.now()).build());
    r = h.post("/api/runs/orphan/signal", restart("a", null));
    assertThat(r.status()).isEqualTo(409);
    assertThat(r.json().path("error").path("message").asText()).contains("not executing");
    assertThat(other.commands("orphan")).isEmpty();
  }

  @Test
  void aMalformedSignalIsABadRequest() {
    String id = h.post("/api/runs", ServerHarness.map("source", Fixtures.QUICK)).json().path("run_id").asText();
    assertThat(h.post("/api/runs/" + id + "/signal", ServerHarness.map("type", "pause", "target_stage_id", "a"))
        .json().path("error").path("field").asText()).isEqualTo("type");
    assertThat(h.post("/api/runs/" + id + "/signal", ServerHarness.map("type", "restart")).json().path("error")
        .path("field").asText()).isEqualTo("target_stage_id");
    assertThat(h.post("/api/runs/" + id + "/signal", ServerHarness.map("type", "restart", "target_stage_id", " "))
        .status()).isEqualTo(400);
    assertThat(h.post("/api/runs/" + id + "/signal", ServerHarness.map("type", "restart", "target_stage_id", "a",
        "parameters", ServerHarness.map("k", 1))).json().path("error").path("field").asText())
        .isEqualTo("parameters.k");
    assertThat(h.post("/api/runs/" + id + "/signal?wait=999", restart("a", null)).json().path("error")
        .path("field").asText()).isEqualTo("wait");
    assertThat(h.post("/api/runs/" + id + "/signal", ServerHarness.map("target_stage_id", "a")).json()
        .path("error").path("field").asText()).isEqualTo("type");
  }

  private static void awaitEvent(String id, String type, String path) {
    for (int i = 0; i < 600; i++) {
      if (other.events(id).stream().anyMatch(e -> e.type().equals(type) && dev.loopflow.core.event.Events.toMap(e)
          .get("path") instanceof String p && p.equals(path))) {
        return;
      }
      Fixtures.sleep(Duration.ofMillis(30));
    }
    throw new AssertionError("no " + type + " at " + path + " in " + id);
  }
}
