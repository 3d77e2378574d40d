package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.testkit.OtlpReceiver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `loopflow run` and `resume` export spans over OTLP when the OTEL_* variables ask for it, and only then. */
class TracingCliTest {
  @TempDir
  Path home;
  OtlpReceiver otlp;
  private String oldHome;
  private Map<String, String> oldEnv;

  @BeforeEach
  void setUp() {
    oldHome = System.getProperty("loopflow.home");
    System.setProperty("loopflow.home", home.toString());
    oldEnv = Support.environment;
    otlp = OtlpReceiver.start();
  }

  @AfterEach
  void tearDown() {
    System.setProperty("loopflow.home", oldHome);
    Support.environment = oldEnv;
    otlp.close();
  }

  void env(String... kv) {
    Map<String, String> env = new HashMap<>(System.getenv());
    env.keySet().removeIf(k -> k.startsWith("OTEL_"));
    for (int i = 0; i < kv.length; i += 2) {
      env.put(kv[i], kv[i + 1]);
    }
    Support.environment = Map.copyOf(env);
  }

  @Test
  void aRunSendsItsSpansToTheCollectorTheVariablesName() {
    env("OTEL_EXPORTER_OTLP_ENDPOINT", otlp.endpoint(), "OTEL_SERVICE_NAME", "cli-tracing-test");
    CliTest.Run r = CliTest.cli("run", "../examples/restart-graph.yaml", "--quiet");
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(otlp.requests()).isNotEmpty().allSatisfy(q -> assertThat(q.path()).isEqualTo("/v1/traces"));
    assertThat(otlp.utf8()).contains("invoke_workflow restart-graph", "workflow.restart", "loopflow.loop.pass",
        "cli-tracing-test");
  }

  @Test
  void withoutOtelVariablesNothingIsSent() {
    env();
    CliTest.Run r = CliTest.cli("run", "../examples/restart-graph.yaml", "--quiet");
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(otlp.requests()).isEmpty();
  }

  @Test
  void aPausedRunResumedByAnotherCommandIsTracedByBothUnderOneRunName() throws Exception {
    env("OTEL_EXPORTER_OTLP_ENDPOINT", otlp.endpoint());
    Path wf = Files.writeString(home.resolve("gate.yaml"), """
        name: gate
        nodes:
          - id: ask
            approval: "Ship it?"
          - id: ship
            type: transform
            template: shipped
        """);
    CliTest.Run paused = CliTest.cli("run", wf.toString(), "--json", "--quiet");
    assertThat(paused.status()).as(paused.err()).isEqualTo(3);
    String runId = new com.fasterxml.jackson.databind.ObjectMapper().readTree(paused.out()).path("run_id").asText();
    int firstRequests = otlp.requests().size();
    assertThat(firstRequests).isPositive();
    CliTest.Run done = CliTest.cli("resume", runId, "--approve", "--quiet");
    assertThat(done.status()).as(done.err()).isZero();
    assertThat(otlp.requests().size()).isGreaterThan(firstRequests);
    String text = otlp.utf8();
    assertThat(text.split("invoke_workflow gate", -1)).hasSize(3); // one run span per attempt
    assertThat(text).contains("loopflow.run.resumed_from");
  }

  @Test
  void invalidOtelVariablesAreAOneLineUsageError() {
    env("OTEL_EXPORTER_OTLP_ENDPOINT", otlp.endpoint(), "OTEL_EXPORTER_OTLP_PROTOCOL", "carrier-pigeon");
    CliTest.Run r = CliTest.cli("run", "../examples/restart-graph.yaml", "--quiet");
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err().strip()).startsWith("loopflow: OpenTelemetry settings (OTEL_*) are invalid:")
        .contains("carrier-pigeon").doesNotContain("\n").doesNotContain("Exception");
  }
}
