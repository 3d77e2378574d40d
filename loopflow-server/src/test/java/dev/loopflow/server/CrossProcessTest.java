package dev.loopflow.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.event.Events;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.secrets.Redactor;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.core.store.RunSummary;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs shared with another process on the same SQLite file, in both directions: the other process is a second engine
 * on a second store opened on the file, as a command line in another terminal would have.
 */
class CrossProcessTest {
  static final Duration WAIT = Duration.ofSeconds(30);
  @TempDir static Path tmp;
  static ServerHarness h;
  static RunStore otherStore;
  static Loopflow other;

  @BeforeAll
  static void start() {
    h = new ServerHarness(tmp.resolve("home"));
    otherStore = h.otherStore();
    other = Loopflow.builder().store(otherStore).build();
  }

  @AfterAll
  static void stop() {
    otherStore.close();
    h.close();
  }

  private static RunHandle startElsewhere(String source, Path gate) {
    RunOptions.Builder o = RunOptions.builder();
    if (gate != null) {
      o.input("gate", gate.toString());
    }
    return other.start(other.parse(source, null), o.build());
  }

  private static List<SseClient.Frame> journal(String runId) {
    Redactor redactor = Redactor.ofEnvironment(System.getenv());
    List<SseClient.Frame> out = new ArrayList<>();
    for (Event e : otherStore.events(runId)) {
      out.add(new SseClient.Frame(e.seq(), e.type(), Json.compact(Events.toMap(redactor.event(e)))));
    }
    return out;
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Runs another process executes, seen and acted on over HTTP

  @Test
  void aRunFromElsewhereIsListedAndShown() throws Exception {
    RunResult done = startElsewhere(Fixtures.QUICK, null).await();
    JsonNode list = h.get("/api/runs?workflow=quick").json();
    assertThat(list.toString()).contains(done.runId());
    JsonNode shown = h.get("/api/runs/" + done.runId()).json();
    assertThat(shown.path("status").asText()).isEqualTo("completed");
    assertThat(shown.path("output").asText()).isEqualTo("hello world");
  }

  @Test
  void aRunningRunFromElsewhereIsStreamedFromTheJournalUntilItFinishes() throws Exception {
    Path gate = tmp.resolve("gate-tail");
    RunHandle run = startElsewhere(Fixtures.LOOPING, gate);
    awaitStatusInStore(run.runId(), RunStatus.RUNNING);
    try (SseClient c = SseClient.open(h, "/api/runs/" + run.runId() + "/events", null)) {
      c.await(f -> "run.started".equals(f.event()), WAIT);
      assertThat(h.get("/api/runs/" + run.runId()).json().path("status").asText()).isEqualTo("running");
      Fixtures.release(gate);
      assertThat(run.await().status()).isEqualTo(RunStatus.COMPLETED);
      c.awaitEnd(WAIT);
      assertThat(c.frames).isEqualTo(journal(run.runId()));
      assertThat(c.frames.getLast().event()).isEqualTo("run.finished");
    }
  }

  @Test
  void aRunExecutingElsewhereIsCancelledOverHttp() throws Exception {
    Path gate = tmp.resolve("gate-cancel-elsewhere");
    RunHandle run = startElsewhere(Fixtures.GATED, gate);
    awaitStatusInStore(run.runId(), RunStatus.RUNNING);
    ServerHarness.Response r = h.post("/api/runs/" + run.runId() + "/cancel", ServerHarness.map("reason",
        "stopped from the browser"));
    assertThat(r.status()).as(r.toString()).isEqualTo(200);
    assertThat(r.json().path("status").asText()).isEqualTo("cancelled");
    RunResult result = run.await();
    assertThat(result.status()).isEqualTo(RunStatus.CANCELLED);
    assertThat(result.error().message()).contains("stopped from the browser");
  }

  @Test
  void aRunPausedElsewhereIsResumedOverHttp() throws Exception {
    RunResult paused = startElsewhere(Fixtures.APPROVAL, null).await();
    assertThat(paused.status()).isEqualTo(RunStatus.PAUSED);
    ServerHarness.Response r = h.post("/api/runs/" + paused.runId() + "/resume", ServerHarness.map("approve", true));
    assertThat(r.status()).as(r.toString()).isEqualTo(200);
    assertThat(h.awaitStatus(paused.runId(), "completed").path("output").asText()).isEqualTo("shipped built");
    assertThat(other.inspect(paused.runId()).orElseThrow().status()).isEqualTo(RunStatus.COMPLETED);
  }

  @Test
  void aRunExecutingElsewhereIsSignalledOverHttp() throws Exception {
    Path gate = tmp.resolve("gate-signal-elsewhere");
    RunHandle run = startElsewhere(Fixtures.RESTARTABLE, gate);
    awaitExecution(otherStore, run.runId(), "implement");
    CompletableFuture<HttpResponse<String>> answer = h.http.sendAsync(h.request("/api/runs/" + run.runId()
        + "/signal").header("Content-Type", "application/json").POST(java.net.http.HttpRequest.BodyPublishers
        .ofString(ServerHarness.json(ServerHarness.map("type", "restart", "target_stage_id", "implement",
            "reason", "tests fail", "requester_stage_id", "wait")))).build(), HttpResponse.BodyHandlers.ofString());
    awaitCommands(otherStore, run.runId(), 1);
    Fixtures.release(Path.of(gate + "-1"));
    ServerHarness.Response r = new ServerHarness.Response(answer.get());
    assertThat(r.status()).as(r.toString()).isEqualTo(200);
    assertThat(r.json().path("success").asBoolean()).isTrue();
    assertThat(r.json().path("iteration").asInt()).isEqualTo(2);
    Fixtures.release(Path.of(gate + "-2"));
    RunResult result = run.await();
    assertThat(result.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(result.output()).isEqualTo("implementation 2");
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Runs the server executes, seen and acted on by another process

  @Test
  void aRunStartedOverHttpIsListedAndShownElsewhere() {
    String id = h.post("/api/runs", ServerHarness.map("source", Fixtures.QUICK)).json().path("run_id").asText();
    h.awaitStatus(id, "completed");
    assertThat(RunSummary.list(otherStore, Set.of(RunStatus.COMPLETED), "quick", 100)).anyMatch(s -> s.record()
        .runId().equals(id));
    assertThat(other.inspect(id).orElseThrow().result().output()).isEqualTo("hello world");
  }

  @Test
  void aRunExecutingInTheServerIsCancelledFromElsewhere() {
    Path gate = tmp.resolve("gate-cancel-here");
    String id = h.post("/api/runs", ServerHarness.map("source", Fixtures.GATED, "inputs", ServerHarness.map("gate",
        gate.toString()))).json().path("run_id").asText();
    awaitExecution(otherStore, id, "first");
    RunStatus after = other.cancel(id, "cancelled from a terminal", WAIT);
    assertThat(after).isEqualTo(RunStatus.CANCELLED);
    JsonNode shown = h.awaitStatus(id, "cancelled");
    assertThat(shown.path("error").path("message").asText()).contains("cancelled from a terminal");
  }

  @Test
  void aRunPausedInTheServerIsResumedElsewhereAndItsStreamShowsIt() throws Exception {
    String id = h.post("/api/runs", ServerHarness.map("source", Fixtures.APPROVAL)).json().path("run_id").asText();
    h.awaitStatus(id, "paused");
    RunResult done = other.resume(id, ResumeInput.approve("from a terminal"), RunOptions.defaults()).await();
    assertThat(done.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(h.get("/api/runs/" + id).json().path("status").asText()).isEqualTo("completed");
    try (SseClient c = SseClient.open(h, "/api/runs/" + id + "/events", null)) {
      c.awaitEnd(WAIT);
      assertThat(c.frames).isEqualTo(journal(id));
      assertThat(c.frames.stream().map(SseClient.Frame::event).toList()).contains("run.paused", "run.resumed",
          "run.finished");
    }
  }

  static void awaitStatusInStore(String id, RunStatus status) {
    for (int i = 0; i < 600; i++) {
      if (otherStore.findRun(id).map(r -> r.status() == status).orElse(false)) {
        return;
      }
      Fixtures.sleep(Duration.ofMillis(50));
    }
    throw new AssertionError(id + " never " + status);
  }

  static void awaitExecution(RunStore store, String id, String node) {
    for (int i = 0; i < 600; i++) {
      if (store.nodeExecutions(id).stream().anyMatch(e -> e.position().nodeId().equals(node))) {
        return;
      }
      Fixtures.sleep(Duration.ofMillis(50));
    }
    throw new AssertionError("no execution of " + node + " in " + id);
  }

  static void awaitCommands(RunStore store, String id, int n) {
    for (int i = 0; i < 600; i++) {
      if (store.commands(id).size() >= n) {
        return;
      }
      Fixtures.sleep(Duration.ofMillis(20));
    }
    throw new AssertionError(id + " never had " + n + " commands: " + store.commands(id));
  }
}
