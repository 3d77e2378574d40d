package dev.loopflow.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.testkit.PrometheusText;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /metrics} of a real server, scraped over HTTP after pipelines with restarts (accepted, refused by the
 * cooldown and by the iteration limit), validation retries and failures, a graph with a restart policy and a loop
 * whose body is retried: each of the nine pipeline metrics with the value those runs produced.
 */
class MetricsEndpointTest {
  static final Path EXAMPLES = Path.of("..", "examples");
  static final Path WORKFLOWS = Path.of("src", "test", "resources", "metrics");

  @TempDir
  static Path home;
  static ServerHarness h;
  static PrometheusText page;

  @BeforeAll
  static void runEverything() {
    h = new ServerHarness(home);
    Map<String, String> expected = Map.of(
        "pipeline-restart-tool", "completed", "restart-graph", "completed", "pipeline-restarts", "completed",
        "pipeline-max-iterations", "completed", "pipeline-invalid-output", "failed", "loop-with-retries", "completed");
    expected.forEach((name, status) -> {
      Path file = name.startsWith("pipeline-restart-tool") || name.equals("restart-graph")
          ? EXAMPLES.resolve(name + ".yaml") : WORKFLOWS.resolve(name + ".yaml");
      h.workflow(name, read(file)); // a named workflow runs in the (temporary) workflows directory
      ServerHarness.Response r = h.post("/api/runs", ServerHarness.map("workflow", name));
      assertThat(r.status()).as("%s", r).isEqualTo(201);
      h.awaitStatus(r.json().path("run_id").asText(), status);
    });
    // The run's record can read "completed" a moment before its last event reaches the meters.
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    do {
      page = new PrometheusText(h.get("/metrics").body());
    } while (page.values("loopflow_runs_total").stream().mapToDouble(Double::doubleValue).sum() < expected.size()
        && System.nanoTime() < until);
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String wf(String name) {
    return "workflow=\"" + name + "\"";
  }

  @Test
  void theMetricsPageIsPrometheusTextAndNeedsTheToken() {
    ServerHarness.Response ok = h.get("/metrics");
    assertThat(ok.status()).isEqualTo(200);
    assertThat(ok.header("Content-Type")).startsWith("text/plain; version=0.0.4");
    ServerHarness.Response anonymous = h.send(HttpRequest.newBuilder(h.uri("/metrics")).GET().build());
    assertThat(anonymous.status()).isEqualTo(401);
    assertThat(anonymous.body()).doesNotContain("workflow_");
    ServerHarness.Response wrong = h.send(HttpRequest.newBuilder(h.uri("/metrics"))
        .header("Authorization", "Bearer not-the-token").GET().build());
    assertThat(wrong.status()).isEqualTo(401);
  }

  @Test
  void iterationsExecutedIsAGaugeOfEachWorkflowsLatestRun() {
    assertThat(page.type("workflow_iterations_executed")).isEqualTo("gauge");
    assertThat(page.value("workflow_iterations_executed", wf("pipeline-restart-tool"))).isEqualTo(2);
    assertThat(page.value("workflow_iterations_executed", wf("restart-graph"))).isEqualTo(2);
    assertThat(page.value("workflow_iterations_executed", wf("pipeline-restarts"))).isEqualTo(2);
    assertThat(page.value("workflow_iterations_executed", wf("pipeline-max-iterations"))).isEqualTo(1);
  }

  @Test
  void restartRequestsAndTheirRefusalsAreCounted() {
    assertThat(page.type("workflow_restart_requests_total")).isEqualTo("counter");
    assertThat(page.value("workflow_restart_requests_total", wf("pipeline-restart-tool"))).isEqualTo(1);
    assertThat(page.value("workflow_restart_requests_total", wf("restart-graph"))).isEqualTo(1);
    assertThat(page.value("workflow_restart_requests_total", wf("pipeline-restarts"))).isEqualTo(2);
    assertThat(page.value("workflow_restart_requests_total", wf("pipeline-max-iterations"))).isEqualTo(1);
    assertThat(page.value("workflow_restart_requests_total")).isEqualTo(5);

    assertThat(page.type("workflow_restart_requests_rejected_total")).isEqualTo("counter");
    assertThat(page.value("workflow_restart_requests_rejected_total", wf("pipeline-restarts"))).isEqualTo(1);
    assertThat(page.value("workflow_restart_requests_rejected_total", wf("pipeline-max-iterations"))).isEqualTo(1);
    assertThat(page.value("workflow_restart_requests_rejected_total")).isEqualTo(2);

    assertThat(page.type("workflow_restart_cooldown_rejections_total")).isEqualTo("counter");
    assertThat(page.value("workflow_restart_cooldown_rejections_total", wf("pipeline-restarts"))).isEqualTo(1);
    assertThat(page.value("workflow_restart_cooldown_rejections_total")).isEqualTo(1);

    assertThat(page.type("workflow_max_iterations_reached_total")).isEqualTo("counter");
    assertThat(page.value("workflow_max_iterations_reached_total", wf("pipeline-max-iterations"))).isEqualTo(1);
    assertThat(page.value("workflow_max_iterations_reached_total")).isEqualTo(1);
  }

  @Test
  void validationRetriesAndFinalFailuresAreCounted() {
    assertThat(page.type("workflow_validation_retries_total")).isEqualTo("counter");
    assertThat(page.value("workflow_validation_retries_total", wf("pipeline-restarts"))).isEqualTo(1);
    assertThat(page.value("workflow_validation_retries_total", wf("pipeline-invalid-output"))).isEqualTo(1);
    assertThat(page.value("workflow_validation_retries_total")).isEqualTo(2);
    assertThat(page.type("workflow_validation_failures_total")).isEqualTo("counter");
    assertThat(page.value("workflow_validation_failures_total", wf("pipeline-invalid-output"))).isEqualTo(1);
    assertThat(page.value("workflow_validation_failures_total")).isEqualTo(1);
  }

  @Test
  void stageDurationsAndOutputSizesAreHistogramsPerStage() {
    assertThat(page.type("workflow_stage_duration_seconds")).isEqualTo("histogram");
    // pipeline-restart-tool: discover and report ran in both iterations
    assertThat(page.value("workflow_stage_duration_seconds_count", wf("pipeline-restart-tool"),
        "stage=\"discover\"")).isEqualTo(2);
    assertThat(page.value("workflow_stage_duration_seconds_count", wf("pipeline-restart-tool"),
        "stage=\"report\"")).isEqualTo(2);
    // restart-graph: plan once, implement and verify twice
    assertThat(page.value("workflow_stage_duration_seconds_count", wf("restart-graph"))).isEqualTo(5);
    assertThat(page.value("workflow_stage_duration_seconds_count", wf("pipeline-invalid-output"),
        "status=\"failed\"")).isEqualTo(1);
    assertThat(page.type("workflow_stage_output_size_bytes")).isEqualTo("histogram");
    assertThat(page.value("workflow_stage_output_size_bytes_count", wf("pipeline-restart-tool"))).isEqualTo(4);
    // discover's outputs: "tables: orders" (14 bytes), then "tables: orders, checkout_events" (31)
    assertThat(page.value("workflow_stage_output_size_bytes_sum", wf("pipeline-restart-tool"), "stage=\"discover\""))
        .isEqualTo(14 + 31);
    assertThat(page.values("workflow_stage_output_size_bytes_bucket", wf("pipeline-restart-tool"),
        "stage=\"discover\"", "le=\"+Inf\"")).containsExactly(2.0);
  }

  @Test
  void runsLoopsNodesTokensAndCostsAreCounted() {
    assertThat(page.value("loopflow_runs_total", wf("pipeline-invalid-output"), "status=\"failed\"")).isEqualTo(1);
    assertThat(page.value("loopflow_runs_total", "status=\"completed\"")).isEqualTo(5);
    assertThat(page.value("loopflow_loop_iterations_total", wf("loop-with-retries"), "kind=\"while_loop\""))
        .isEqualTo(2);
    assertThat(page.value("loopflow_loop_iterations_total", wf("restart-graph"), "kind=\"restart\"")).isEqualTo(2);
    assertThat(page.value("loopflow_node_duration_seconds_count", wf("loop-with-retries"), "kind=\"shell\"",
        "status=\"completed\"")).isEqualTo(2);
    assertThat(page.type("gen_ai_client_token_usage")).isEqualTo("histogram");
    assertThat(page.value("gen_ai_client_token_usage_count", "gen_ai_token_type=\"output\"")).isPositive();
    assertThat(page.type("loopflow_llm_cost_usd_total")).isEqualTo("counter");
    // no label of any series carries a run id
    assertThat(page.text()).doesNotContain("run_");
  }
}
