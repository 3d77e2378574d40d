package dev.loopflow.observability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.testkit.PrometheusText;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Prometheus page after runs: each metric under its name and type, with the values the runs produced. */
class MetricsTest {
  static final Path WORKFLOWS = Path.of("src", "test", "resources", "workflows");

  @TempDir
  Path dir;
  Observability obs;
  Loopflow engine;

  @BeforeEach
  void setUp() {
    obs = Observability.builder().meterRegistry(Observability.prometheusRegistry()).build();
    engine = Loopflow.create();
  }

  RunResult run(Path file) {
    Workflow wf = engine.load(file);
    return engine.run(wf, obs.instrument(wf, RunOptions.builder().option("llm.mock", true).workingDirectory(dir))
        .build());
  }

  PrometheusText scrape() {
    return new PrometheusText(obs.prometheusText());
  }

  @Test
  void aPipelineWithRestartsAndAValidationRetryShowsEachPipelineMetric() {
    RunResult r = run(WORKFLOWS.resolve("pipeline-restarts.yaml"));
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    PrometheusText s = scrape();
    String wf = "workflow=\"pipeline-restarts\"";

    assertThat(s.type("workflow_iterations_executed")).isEqualTo("gauge");
    assertThat(s.value("workflow_iterations_executed", wf)).isEqualTo(2);
    assertThat(s.type("workflow_restart_requests_total")).isEqualTo("counter");
    assertThat(s.value("workflow_restart_requests_total", wf)).isEqualTo(2);
    assertThat(s.type("workflow_restart_requests_rejected_total")).isEqualTo("counter");
    assertThat(s.value("workflow_restart_requests_rejected_total", wf)).isEqualTo(1);
    assertThat(s.type("workflow_restart_cooldown_rejections_total")).isEqualTo("counter");
    assertThat(s.value("workflow_restart_cooldown_rejections_total", wf)).isEqualTo(1);
    assertThat(s.type("workflow_validation_retries_total")).isEqualTo("counter");
    assertThat(s.value("workflow_validation_retries_total", wf)).isEqualTo(1);
    assertThat(s.type("workflow_validation_failures_total")).isEqualTo("counter");
    assertThat(s.value("workflow_validation_failures_total", wf)).isZero();
    assertThat(s.type("workflow_max_iterations_reached_total")).isEqualTo("counter");
    assertThat(s.value("workflow_max_iterations_reached_total", wf)).isZero();
    // discover ran in both iterations, report in both
    assertThat(s.type("workflow_stage_duration_seconds")).isEqualTo("histogram");
    assertThat(s.value("workflow_stage_duration_seconds_count", wf, "stage=\"discover\"")).isEqualTo(2);
    assertThat(s.value("workflow_stage_duration_seconds_count", wf, "stage=\"report\"")).isEqualTo(2);
    assertThat(s.type("workflow_stage_output_size_bytes")).isEqualTo("histogram");
    assertThat(s.value("workflow_stage_output_size_bytes_count", wf)).isEqualTo(4);
    String valid = "{\"inputs\": {}, \"outputs\": {\"tables\": [\"orders\"]}, \"evidence\": {}}";
    assertThat(s.value("workflow_stage_output_size_bytes_sum", wf)).isEqualTo(4 * valid.length());

    assertThat(s.value("loopflow_runs_total", wf, "status=\"completed\"")).isEqualTo(1);
    assertThat(s.value("loopflow_loop_iterations_total", wf, "kind=\"pipeline\"")).isEqualTo(2);
    // discover: 2 calls in iteration 1 (invalid, then valid) + 1; report: 2 per iteration (tool call, answer)
    assertThat(s.type("gen_ai_client_token_usage")).isEqualTo("histogram");
    assertThat(s.value("gen_ai_client_token_usage_count", "gen_ai_token_type=\"input\"",
        "gen_ai_provider_name=\"mock\"")).isEqualTo(7);
    assertThat(s.value("loopflow_llm_cost_usd_total", wf)).isZero();
  }

  @Test
  void aRestartRefusedAtTheIterationLimitCountsAsMaxIterationsReached() {
    RunResult r = run(WORKFLOWS.resolve("pipeline-max-iterations.yaml"));
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    PrometheusText s = scrape();
    String wf = "workflow=\"pipeline-max-iterations\"";
    assertThat(s.value("workflow_max_iterations_reached_total", wf)).isEqualTo(1);
    assertThat(s.value("workflow_restart_requests_rejected_total", wf)).isEqualTo(1);
    assertThat(s.value("workflow_restart_cooldown_rejections_total", wf)).isZero();
    assertThat(s.value("workflow_iterations_executed", wf)).isEqualTo(1);
  }

  @Test
  void aStageThatNeverValidatesCountsOneValidationFailure() {
    RunResult r = run(WORKFLOWS.resolve("pipeline-invalid-output.yaml"));
    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    PrometheusText s = scrape();
    String wf = "workflow=\"pipeline-invalid-output\"";
    assertThat(s.value("workflow_validation_retries_total", wf)).isEqualTo(1);
    assertThat(s.value("workflow_validation_failures_total", wf)).isEqualTo(1);
    assertThat(s.value("workflow_stage_duration_seconds_count", wf, "status=\"failed\"")).isEqualTo(1);
    assertThat(s.value("loopflow_runs_total", wf, "status=\"failed\"")).isEqualTo(1);
  }

  @Test
  void aLoopWithRetriesCountsPassesAndEachAttemptsOutcome() throws Exception {
    RunResult r = run(WORKFLOWS.resolve("loop-with-retries.yaml"));
    assertThat(r.status()).as("%s", r.error()).isEqualTo(RunStatus.COMPLETED);
    assertThat(Files.exists(dir.resolve("marker-1"))).isTrue();
    PrometheusText s = scrape();
    String wf = "workflow=\"loop-with-retries\"";
    assertThat(s.value("loopflow_loop_iterations_total", wf, "kind=\"while_loop\"")).isEqualTo(2);
    assertThat(s.type("loopflow_node_duration_seconds")).isEqualTo("histogram");
    assertThat(s.value("loopflow_node_duration_seconds_count", wf, "kind=\"shell\"", "status=\"completed\""))
        .isEqualTo(2);
    assertThat(s.value("loopflow_runs_total", wf, "status=\"completed\"")).isEqualTo(1);
    // not a workflow with a restart policy: none of the pipeline series exist for it
    assertThat(s.values("workflow_restart_requests_total", wf)).isEmpty();
  }

  @Test
  void workflowNamesBeyondTheLimitAreReportedAsOther() {
    Observability small = Observability.builder().meterRegistry(Observability.prometheusRegistry())
        .maxLabelValues(3).build();
    for (int i = 0; i < 6; i++) {
      Workflow wf = engine.parse("name: wf-" + i + "\nnodes:\n  - id: a\n    type: transform\n    template: x\n",
          "wf.yaml");
      engine.run(wf, small.instrument(wf, RunOptions.builder()).build());
    }
    PrometheusText s = new PrometheusText(small.prometheusText());
    assertThat(s.value("loopflow_runs_total", "workflow=\"wf-0\"")).isEqualTo(1);
    assertThat(s.value("loopflow_runs_total", "workflow=\"wf-2\"")).isEqualTo(1);
    assertThat(s.values("loopflow_runs_total", "workflow=\"wf-3\"")).isEmpty();
    assertThat(s.value("loopflow_runs_total", "workflow=\"other\"")).isEqualTo(3);
  }

  static java.util.stream.Stream<String> hostileNames() {
    return java.util.stream.Stream.of("quote\\\"} evil_metric 1", "back\\\\slash", "brace}{", "x".repeat(101),
        "\u202e\u0000ctl", "# TYPE fake counter", "ünïcödé ✓", "{{ 7*7 }}");
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.MethodSource("hostileNames")
  void aHostileWorkflowNameCannotForgeASeriesOrALine(String name) {
    Workflow wf;
    try {
      wf = engine.parse("name: \"" + name + "\"\nnodes:\n  - id: a\n    type: transform\n    template: x\n",
          "hostile.yaml");
    } catch (dev.loopflow.core.error.WorkflowInvalidException e) {
      return; // a name the loader refuses never reaches a label
    }
    engine.run(wf, obs.instrument(wf, RunOptions.builder()).build());
    String text = obs.prometheusText();
    PrometheusText s = new PrometheusText(text);
    assertThat(s.value("loopflow_runs_total")).isEqualTo(1);
    assertThat(s.values("evil_metric")).isEmpty();
    assertThat(text.lines().filter(l -> l.startsWith("# TYPE fake"))).isEmpty();
    assertThat(text.lines().filter(l -> l.startsWith("loopflow_runs_total"))).hasSize(1);
  }

  @Test
  void noLabelCarriesARunIdOrAnInput() {
    Workflow wf = engine.load(WORKFLOWS.resolve("pipeline-restarts.yaml"));
    RunResult r = engine.run(wf, obs.instrument(wf, RunOptions.builder().option("llm.mock", true)
        .runId("run-secret-id-123")).build());
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    String text = obs.prometheusText();
    assertThat(text).doesNotContain("run-secret-id-123").doesNotContain("Find the tables");
  }
}
