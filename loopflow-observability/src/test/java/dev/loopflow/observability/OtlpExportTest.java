package dev.loopflow.observability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.observability.internal.Tracing;
import dev.loopflow.testkit.OtlpReceiver;
import dev.loopflow.testkit.PrometheusText;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Spans sent over OTLP/HTTP to a collector on 127.0.0.1, configured only by OTEL_* variables. */
class OtlpExportTest {
  static final Path EXAMPLES = Path.of("..", "examples");

  @Test
  void aPipelinesSpansReachAnOtlpHttpCollectorUnderTheirNames() {
    try (OtlpReceiver otlp = OtlpReceiver.start()) {
      Map<String, String> env = Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", otlp.endpoint(),
          "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf", "OTEL_SERVICE_NAME", "loopflow-test");
      Observability obs = Observability.fromEnvironment(env, Observability.prometheusRegistry());
      assertThat(obs.tracing()).isTrue();
      Loopflow engine = Loopflow.create();
      Workflow wf = engine.load(EXAMPLES.resolve("pipeline-restart-tool.yaml"));
      var r = engine.run(wf, obs.instrument(wf, RunOptions.builder().option("llm.mock", true)).build());
      assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
      obs.close(Duration.ofSeconds(10)); // flushes the batch

      assertThat(otlp.requests()).isNotEmpty().allSatisfy(q -> {
        assertThat(q.method()).isEqualTo("POST");
        assertThat(q.path()).isEqualTo("/v1/traces");
        assertThat(q.contentType()).isEqualTo("application/x-protobuf");
      });
      assertThat(otlp.utf8()).contains("workflow.iterative.execute", "workflow.stage.execute", "workflow.restart",
          "loopflow.loop.pass", "chat auto", "execute_tool request_restart", "gen_ai.provider.name",
          "loopflow-test", "no event table was found", r.runId());
      assertThat(new PrometheusText(obs.prometheusText()).value("loopflow_otel_spans_dropped_total")).isZero();
    }
  }

  @Test
  void anUnreachableCollectorNeitherFailsTheRunNorHidesTheLoss() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    Map<String, String> env = Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + port,
        "OTEL_EXPORTER_OTLP_TIMEOUT", "500");
    Observability obs = Observability.fromEnvironment(env, Observability.prometheusRegistry());
    Loopflow engine = Loopflow.create();
    Workflow wf = engine.load(EXAMPLES.resolve("loop-while-counter.yaml"));
    var r = engine.run(wf, obs.instrument(wf, RunOptions.builder()).build());
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    obs.close(Duration.ofSeconds(10));
    assertThat(new PrometheusText(obs.prometheusText()).value("loopflow_otel_spans_dropped_total",
        "reason=\"export_failed\"")).isGreaterThan(0);
  }

  @Test
  void aFullQueueDropsSpansAndCountsThem() {
    try (OtlpReceiver otlp = OtlpReceiver.start()) {
      Map<String, String> env = Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", otlp.endpoint(),
          "OTEL_BSP_MAX_QUEUE_SIZE", "2", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "1", "OTEL_BSP_SCHEDULE_DELAY", "60000");
      Observability obs = Observability.fromEnvironment(env, Observability.prometheusRegistry());
      Loopflow engine = Loopflow.create();
      Workflow wf = engine.load(EXAMPLES.resolve("loop-while-counter.yaml"));
      var r = engine.run(wf, obs.instrument(wf, RunOptions.builder()).build());
      assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
      assertThat(new PrometheusText(obs.prometheusText()).value("loopflow_otel_spans_dropped_total",
          "reason=\"queue_full\"")).isGreaterThan(0);
      obs.close(Duration.ofSeconds(10));
    }
  }

  static java.util.stream.Stream<Object[]> environments() {
    return java.util.stream.Stream.of(
        new Object[] {Map.of(), false},
        new Object[] {Map.of("OTEL_SERVICE_NAME", "x"), false},
        new Object[] {Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"), true},
        new Object[] {Map.of("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://127.0.0.1:4318/v1/traces"), true},
        new Object[] {Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "   "), false},
        new Object[] {Map.of("OTEL_TRACES_EXPORTER", "otlp"), true},
        new Object[] {Map.of("OTEL_TRACES_EXPORTER", "none", "OTEL_EXPORTER_OTLP_ENDPOINT", "http://x:1"), false},
        new Object[] {Map.of("OTEL_TRACES_EXPORTER", "NONE"), false},
        new Object[] {Map.of("OTEL_SDK_DISABLED", "true", "OTEL_EXPORTER_OTLP_ENDPOINT", "http://x:1"), false},
        new Object[] {Map.of("OTEL_SDK_DISABLED", "false", "OTEL_EXPORTER_OTLP_ENDPOINT", "http://x:1"), true});
  }

  @ParameterizedTest
  @MethodSource("environments")
  void tracingIsOnOnlyWhenTheVariablesAskForIt(Map<String, String> env, boolean on) {
    assertThat(Tracing.requested(env)).isEqualTo(on);
    Observability obs = Observability.fromEnvironment(env, null);
    try {
      assertThat(obs.tracing()).isEqualTo(on);
    } finally {
      obs.close(Duration.ofSeconds(1));
    }
  }

  static java.util.stream.Stream<Map<String, String>> invalid() {
    return java.util.stream.Stream.of(
        Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL", "carrier-pigeon"),
        Map.of("OTEL_TRACES_EXPORTER", "no-such-exporter"),
        Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "not a url"),
        Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "ftp://127.0.0.1:1"));
  }

  @ParameterizedTest
  @MethodSource("invalid")
  void invalidVariablesAreRefusedWithTheirReasonNotIgnored(Map<String, String> env) {
    assertThatThrownBy(() -> Observability.fromEnvironment(new HashMap<>(env), null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("OpenTelemetry settings (OTEL_*) are invalid");
  }
}
