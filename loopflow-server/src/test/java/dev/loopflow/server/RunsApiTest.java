package dev.loopflow.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.secrets.Redactor;
import dev.loopflow.core.store.RunInfo;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.core.store.RunSummary;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Starting, listing, showing, resuming and cancelling runs over HTTP, checked against the store itself. */
class RunsApiTest {
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

  private static String start(Object body) {
    ServerHarness.Response r = h.post("/api/runs", body);
    assertThat(r.status()).as(r.toString()).isEqualTo(201);
    assertThat(r.json().path("status").asText()).isIn("running", "completed", "paused", "failed");
    return r.json().path("run_id").asText();
  }

  /** The value as JSON text read back, so numbers compare by value whatever Java type held them. */
  private static JsonNode tree(Object value) {
    try {
      return ServerHarness.JSON.readTree(ServerHarness.json(value));
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void sourceWithoutANameRuns_bugNamelessSourceWasAnInternalError() {
    String id = start(ServerHarness.map("source", "nodes:\n  - {id: a, type: transform, template: hi}\n"));
    JsonNode shown = h.awaitStatus(id, "completed");
    assertThat(shown.path("output").asText()).isEqualTo("hi");
    JsonNode listed = null;
    for (JsonNode r : h.get("/api/runs?limit=500").json()) {
      if (r.path("run_id").asText().equals(id)) {
        listed = r;
      }
    }
    assertThat(listed).as("listed").isNotNull();
    assertThat(listed.path("workflow").asText()).isEqualTo("workflow");
  }

  @Test
  void aStartedRunIsShownExactlyAsShowJsonPrintsIt() {
    String id = start(ServerHarness.map("source", Fixtures.QUICK));
    JsonNode shown = h.awaitStatus(id, "completed");
    assertThat(shown.path("output").asText()).isEqualTo("hello world");
    // What `loopflow show --json` prints: the engine's result object, masked with this environment.
    RunInfo info = Loopflow.builder().store(other).build().inspect(id).orElseThrow();
    Map<String, Object> expected = new LinkedHashMap<>(Redactor.ofEnvironment(System.getenv()).map(info.result()
        .toJson()));
    // Plus the record's times and duration, the ones the run list gives (one duration rule for both views).
    expected.put("started_at", info.record().startedAt().toString());
    expected.put("finished_at", info.record().finishedAt().toString());
    expected.put("duration_ms", RunSummary.durationMillis(info.record()));
    assertThat(shown).isEqualTo(tree(expected));
  }

  @Test
  void theListIsTheRunsJsonArray() {
    String a = start(ServerHarness.map("source", Fixtures.QUICK, "run_id", "list-a"));
    h.awaitStatus(a, "completed");
    JsonNode all = h.get("/api/runs").json();
    List<Map<String, Object>> expected = new ArrayList<>();
    for (RunSummary s : RunSummary.list(other, Set.of(), null, 50)) {
      expected.add(s.toJson());
    }
    assertThat(all).isEqualTo(tree(expected));
    JsonNode filtered = h.get("/api/runs?status=completed,paused&workflow=quic&limit=1").json();
    assertThat(filtered).hasSize(1);
    assertThat(filtered.get(0).path("workflow").asText()).isEqualTo("quick");
    assertThat(tree(RunSummary.list(other, Set.of(RunStatus.COMPLETED, RunStatus.PAUSED), "quic", 1).get(0).toJson()))
        .isEqualTo(filtered.get(0));
    assertThat(h.get("/api/runs?status=failed&workflow=quick").json()).isEmpty();
  }

  @Test
  void aRunWhoseEngineIsGoneIsListedAndShownInterrupted_bugItWasListedRunningForever() {
    java.time.Instant now = java.time.Instant.now();
    // Journaled running by an engine elsewhere whose lease ran out 45 seconds ago: nothing executes it.
    other.createRun(RunRecord.builder().runId("gone-1").workflow("gone").status(RunStatus.RUNNING).startedAt(now)
        .build());
    assertThat(other.tryLease("gone-1", "elsewhere/1/gone", now.minusSeconds(60), now.minusSeconds(45), null))
        .isTrue();

    JsonNode interrupted = h.get("/api/runs?status=interrupted").json();
    assertThat(interrupted).hasSize(1);
    assertThat(interrupted.get(0).path("run_id").asText()).isEqualTo("gone-1");
    assertThat(interrupted.get(0).path("status").asText()).isEqualTo("interrupted");
    assertThat(interrupted.get(0).path("resumable").asBoolean()).isTrue();
    assertThat(h.get("/api/runs?status=running").json().toString()).doesNotContain("gone-1");
    assertThat(h.get("/api/runs/gone-1").json().path("status").asText()).isEqualTo("interrupted");
    assertThat(other.findRun("gone-1").orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
  }

  @ParameterizedTest
  @ValueSource(strings = {"status=done", "status=running,nope", "limit=0", "limit=-1", "limit=abc", "limit=1001",
      "limit=99999999999"})
  void badListParametersAreNamed(String query) {
    ServerHarness.Response r = h.get("/api/runs?" + query);
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.json().path("error").path("field").asText()).isEqualTo(query.substring(0, query.indexOf('=')));
  }

  @Test
  void aNamedWorkflowRunsInTheWorkflowsDirectoryAndAnInlineOneInTheServers() {
    h.workflow("where", Fixtures.PWD);
    String named = start(ServerHarness.map("workflow", "where"));
    String inline = start(ServerHarness.map("source", Fixtures.PWD));
    assertThat(h.awaitStatus(named, "completed").path("output").asText()).isEqualTo(h.workflows.toString());
    assertThat(h.awaitStatus(inline, "completed").path("output").asText())
        .isEqualTo(Path.of("").toAbsolutePath().toString());
    RunRecord rec = other.findRun(named).orElseThrow();
    assertThat(rec.file()).isEqualTo(h.workflows.resolve("where.yaml").toString());
    assertThat(other.findRun(inline).orElseThrow().file()).isNull();
  }

  @Test
  void inputsAreConvertedByTheEnginesRules() {
    String id = start(ServerHarness.map("source", Fixtures.TYPED, "inputs", ServerHarness.map("topic", "loops",
        "rounds", "3", "strict", "yes")));
    assertThat(h.awaitStatus(id, "completed").path("output").asText()).startsWith("loops:4:");
  }

  @Test
  void aRejectedStartStartsAndWritesNothing() {
    int before = h.get("/api/runs").json().size();
    ServerHarness.Response missing = h.post("/api/runs", ServerHarness.map("source", Fixtures.TYPED));
    assertThat(missing.status()).isEqualTo(400);
    assertThat(missing.code()).isEqualTo("bad_request");
    assertThat(missing.json().path("error").path("input").asText()).isEqualTo("topic");
    assertThat(missing.json().path("error").path("message").asText()).contains("missing input 'topic'");
    ServerHarness.Response unknown = h.post("/api/runs", ServerHarness.map("source", Fixtures.TYPED, "inputs",
        ServerHarness.map("topic", "x", "topik", "y")));
    assertThat(unknown.status()).isEqualTo(400);
    assertThat(unknown.json().path("error").path("message").asText()).contains("topik");
    ServerHarness.Response wrongType = h.post("/api/runs", ServerHarness.map("source", Fixtures.TYPED, "inputs",
        ServerHarness.map("topic", "x", "rounds", "many")));
    assertThat(wrongType.status()).isEqualTo(400);
    assertThat(wrongType.json().path("error").path("message").asText()).contains("rounds");
    ServerHarness.Response invalid = h.post("/api/runs", ServerHarness.map("source", "name: x\nnodes:\n  - {id: a, "
        + "type: shel}\n  - {id: b, type: transform}\n"));
    assertThat(invalid.status()).isEqualTo(400);
    assertThat(invalid.code()).isEqualTo("workflow_invalid");
    JsonNode problems = invalid.json().path("error").path("problems");
    assertThat(problems.size()).isGreaterThanOrEqualTo(2);
    for (JsonNode p : problems) {
      assertThat(p.path("line").asInt()).isPositive();
      assertThat(p.path("col").asInt()).isPositive();
      assertThat(p.has("path")).isTrue();
      assertThat(p.path("message").asText()).isNotBlank();
    }
    assertThat(h.post("/api/runs", ServerHarness.map("source", Fixtures.QUICK, "workflow", "quick")).status())
        .isEqualTo(400);
    assertThat(h.post("/api/runs", ServerHarness.map("inputs", Map.of())).status()).isEqualTo(400);
    assertThat(h.post("/api/runs", ServerHarness.map("workflow", "no-such-workflow")).code())
        .isEqualTo("workflow_not_found");
    assertThat(h.get("/api/runs").json().size()).isEqualTo(before);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "a b", "../x", "a/b", "x\u0000", "\u00e9t\u00e9", "run\n1", "x;rm -rf",
      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"})
  void aRunIdTheCommandLineWouldRefuseIsRefused(String runId) {
    ServerHarness.Response r = h.post("/api/runs", ServerHarness.map("source", Fixtures.QUICK, "run_id", runId));
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.json().path("error").path("field").asText()).isEqualTo("run_id");
  }

  @Test
  void aRunIdInUseIs409AndConcurrentStartsOfOneIdStartOneRun() throws Exception {
    start(ServerHarness.map("source", Fixtures.QUICK, "run_id", "taken"));
    ServerHarness.Response again = h.post("/api/runs", ServerHarness.map("source", Fixtures.QUICK, "run_id", "taken"));
    assertThat(again.status()).isEqualTo(409);
    assertThat(again.code()).isEqualTo("conflict");
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Integer>> statuses = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        statuses.add(pool.submit(() -> h.post("/api/runs", ServerHarness.map("source", Fixtures.QUICK, "run_id",
            "raced")).status()));
      }
      List<Integer> got = new ArrayList<>();
      for (Future<Integer> f : statuses) {
        got.add(f.get());
      }
      assertThat(got).containsOnly(201, 409);
      assertThat(got.stream().filter(s -> s == 201)).hasSize(1);
    } finally {
      pool.shutdown();
    }
    assertThat(h.awaitStatus("raced", "completed").path("output").asText()).isEqualTo("hello world");
  }

  @ParameterizedTest
  @ValueSource(strings = {"/api/runs/nope", "/api/runs/nope/executions", "/api/runs/nope/events",
      "/api/runs/nope/graph", "/api/runs/" + "%20", "/api/runs/%E2%80%AE", "/api/runs/a%0Ab"})
  void anUnknownRunIs404(String path) {
    ServerHarness.Response r = h.get(path);
    assertThat(r.status()).as(r.toString()).isEqualTo(404);
    assertThat(r.code()).isEqualTo("run_not_found");
  }

  @Test
  void actionsOnAnUnknownRunAre404() {
    assertThat(h.post("/api/runs/nope/resume", Map.of()).code()).isEqualTo("run_not_found");
    assertThat(h.post("/api/runs/nope/cancel", Map.of()).code()).isEqualTo("run_not_found");
    assertThat(h.post("/api/runs/nope/signal", ServerHarness.map("type", "restart", "target_stage_id", "a"))
        .code()).isEqualTo("run_not_found");
    assertThat(h.get("/api/runs/" + "x".repeat(3000)).status()).isEqualTo(404);
  }

  @Test
  void aRunningRunIsShownAsRunningWithWhatItHasDone() {
    Path gate = tmp.resolve("gate-running");
    String id = start(ServerHarness.map("source", Fixtures.GATED, "inputs", ServerHarness.map("gate",
        gate.toString())));
    JsonNode running = h.awaitStatus(id, "running");
    assertThat(running.path("nodes").path("last").path("status").asText()).isEqualTo("not_run");
    awaitExecution(id, "first");
    assertThat(h.get("/api/runs?status=running").json().toString()).contains(id);
    Fixtures.release(gate);
    assertThat(h.awaitStatus(id, "completed").path("output").asText()).isEqualTo("released done");
  }

  @Test
  void executionsCarryPathsLoopsAndUsage() {
    Path gate = tmp.resolve("gate-exec");
    Fixtures.release(gate);
    String id = start(ServerHarness.map("source", Fixtures.LOOPING, "inputs", ServerHarness.map("gate",
        gate.toString())));
    h.awaitStatus(id, "completed");
    JsonNode ex = h.get("/api/runs/" + id + "/executions").json();
    List<String> paths = new ArrayList<>();
    ex.forEach(e -> paths.add(e.path("path").asText()));
    assertThat(paths).contains("wait", "passes[1].step", "passes[5].step", "passes");
    JsonNode step2 = null;
    for (JsonNode e : ex) {
      if (e.path("path").asText().equals("passes[2].step")) {
        step2 = e;
      }
    }
    assertThat(step2).isNotNull();
    assertThat(step2.path("node").asText()).isEqualTo("step");
    assertThat(step2.path("loops")).hasSize(1);
    assertThat(step2.path("loops").get(0).path("loop").asText()).isEqualTo("passes");
    assertThat(step2.path("loops").get(0).path("iteration").asInt()).isEqualTo(2);
    assertThat(step2.path("kind").asText()).isEqualTo("shell");
    assertThat(step2.path("status").asText()).isEqualTo("completed");
    assertThat(step2.path("attempts").asInt()).isEqualTo(1);
    assertThat(step2.path("duration_ms").asLong()).isNotNegative();
    assertThat(step2.path("result").path("output").asText()).isEqualTo("pass");
    assertThat(step2.path("usage").path("llm_calls").asInt()).isZero();
    assertThat(step2.path("error").isNull()).isTrue();
    assertThat(ex.size()).isEqualTo(other.nodeExecutions(id).size());
    JsonNode graph = h.get("/api/runs/" + id + "/graph").json();
    assertThat(graph.path("workflow").asText()).isEqualTo("looping");
    assertThat(graph.path("containers").toString()).contains("passes");
  }

  @Test
  void anApprovalIsAnsweredOverHttp() {
    String id = start(ServerHarness.map("source", Fixtures.APPROVAL));
    JsonNode paused = h.awaitStatus(id, "paused");
    assertThat(paused.path("waiting").path("kind").asText()).isEqualTo("approval");
    assertThat(paused.path("waiting").path("message").asText()).isEqualTo("Ship built?");
    ServerHarness.Response none = h.post("/api/runs/" + id + "/resume", Map.of());
    assertThat(none.status()).isEqualTo(400);
    assertThat(none.json().path("error").path("reason").asText()).isEqualTo("answer_required");
    assertThat(none.json().path("error").path("waiting").path("path").asText()).isEqualTo("ask");
    ServerHarness.Response text = h.post("/api/runs/" + id + "/resume", ServerHarness.map("input", "sure, why not"));
    assertThat(text.status()).isEqualTo(400);
    assertThat(text.json().path("error").path("reason").asText()).isEqualTo("wrong_answer");
    assertThat(h.post("/api/runs/" + id + "/resume", ServerHarness.map("comment", "x")).json().path("error")
        .path("field").asText()).isEqualTo("comment");
    assertThat(h.post("/api/runs/" + id + "/resume", ServerHarness.map("input", "x", "approve", true)).status())
        .isEqualTo(400);
    ServerHarness.Response ok = h.post("/api/runs/" + id + "/resume", ServerHarness.map("approve", true,
        "comment", "ship it"));
    assertThat(ok.status()).as(ok.toString()).isEqualTo(200);
    assertThat(h.awaitStatus(id, "completed").path("output").asText()).isEqualTo("shipped built");
    ServerHarness.Response done = h.post("/api/runs/" + id + "/resume", ServerHarness.map("approve", true));
    assertThat(done.status()).isEqualTo(409);
    assertThat(done.code()).isEqualTo("run_not_resumable");
  }

  @Test
  void aRunExecutingHereCannotBeResumedAgain() {
    Path gate = tmp.resolve("gate-busy");
    String id = start(ServerHarness.map("source", Fixtures.GATED, "inputs", ServerHarness.map("gate",
        gate.toString())));
    ServerHarness.Response r = h.post("/api/runs/" + id + "/resume", Map.of());
    assertThat(r.status()).isEqualTo(409);
    assertThat(r.code()).isEqualTo("run_busy");
    Fixtures.release(gate);
    h.awaitStatus(id, "completed");
  }

  @Test
  void cancelStopsARunExecutingHereAndAPausedOne() {
    Path gate = tmp.resolve("gate-cancel");
    String running = start(ServerHarness.map("source", Fixtures.GATED, "inputs", ServerHarness.map("gate",
        gate.toString())));
    awaitExecution(running, "first");
    ServerHarness.Response r = h.post("/api/runs/" + running + "/cancel", ServerHarness.map("reason", "enough"));
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.json().path("status").asText()).isEqualTo("cancelled");
    JsonNode shown = h.get("/api/runs/" + running).json();
    assertThat(shown.path("error").path("code").asText()).isEqualTo("cancelled");
    assertThat(shown.path("error").path("message").asText()).contains("enough");
    String paused = start(ServerHarness.map("source", Fixtures.APPROVAL));
    h.awaitStatus(paused, "paused");
    assertThat(h.post("/api/runs/" + paused + "/cancel", Map.of()).json().path("status").asText())
        .isEqualTo("cancelled");
    String done = start(ServerHarness.map("source", Fixtures.QUICK));
    h.awaitStatus(done, "completed");
    ServerHarness.Response again = h.post("/api/runs/" + done + "/cancel", Map.of());
    assertThat(again.status()).isEqualTo(200);
    assertThat(again.json().path("status").asText()).isEqualTo("completed");
  }

  @Test
  void stoppingTheServerCancelsTheRunsItExecutes() {
    Path gate = tmp.resolve("gate-stop");
    String id;
    try (ServerHarness second = new ServerHarness(tmp.resolve("second"))) {
      ServerHarness.Response r = second.post("/api/runs", ServerHarness.map("source", Fixtures.GATED, "inputs",
          ServerHarness.map("gate", gate.toString())));
      id = r.json().path("run_id").asText();
      second.awaitStatus(id, "running");
      awaitStarted(second, id, "wait");
      second.server.close();
      RunRecord rec = second.store.findRun(id).orElseThrow();
      assertThat(rec.status()).isEqualTo(RunStatus.CANCELLED);
      assertThat(rec.error().message()).contains("the server stopped").contains("wait");
    }
  }

  /** Waits for the node's {@code node.started} event, so that the node is the one executing when the test acts. */
  private static void awaitStarted(ServerHarness harness, String id, String node) {
    for (int i = 0; i < 600; i++) {
      if (harness.store.events(id).stream().anyMatch(e -> e instanceof dev.loopflow.core.event.Event.NodeStarted s
          && s.node().nodeId().equals(node))) {
        return;
      }
      Fixtures.sleep(java.time.Duration.ofMillis(50));
    }
    throw new AssertionError("no node.started for " + node + " in " + id);
  }

  private static void awaitExecution(String id, String node) {
    for (int i = 0; i < 600; i++) {
      if (other.nodeExecutions(id).stream().anyMatch(e -> e.position().nodeId().equals(node))) {
        return;
      }
      Fixtures.sleep(java.time.Duration.ofMillis(50));
    }
    throw new AssertionError("no execution of " + node + " in " + id);
  }
}
