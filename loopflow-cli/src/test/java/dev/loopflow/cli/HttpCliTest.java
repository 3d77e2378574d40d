package dev.loopflow.cli;

import static dev.loopflow.cli.CliTest.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.loopflow.cli.CliTest.Run;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.store.jdbc.JdbcStores;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The http node from the command line: its result in run and show, the private-address switch, and validate. */
class HttpCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static HttpServer server;

  @TempDir
  Path dir;

  @BeforeAll
  static void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", ex -> {
      byte[] body = "{\"ok\": true}".getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", "application/json");
      ex.sendResponseHeaders(201, body.length);
      ex.getResponseBody().write(body);
      ex.close();
    });
    server.start();
  }

  @AfterAll
  static void stop() {
    server.stop(0);
  }

  private Path workflow() throws Exception {
    Path wf = dir.resolve("http.yaml");
    Files.writeString(wf, """
        name: http
        nodes:
          - id: h
            type: http
            url: "http://127.0.0.1:%d/things"
          - id: report
            type: transform
            template: "HTTP {{ h.status }}, node {{ h.node_status }}"
        """.formatted(server.getAddress().getPort()));
    return wf;
  }

  @Test
  void runAndShowReportTheHttpStatusCodeAsStatus_bugHttpStatusShadowedByNodeStatus() throws Exception {
    String store = "sqlite:" + dir.resolve("runs.db");
    Run run = cli("run", workflow().toString(), "--json", "--quiet", "--store", store, "--run-id", "run_http_1");
    assertThat(run.status()).as(run.err()).isZero();
    JsonNode json = JSON.readTree(run.out());

    assertThat(json.get("output").asText()).isEqualTo("HTTP 201, node completed");
    assertThat(json.at("/nodes/h/status").asInt()).isEqualTo(201);
    assertThat(json.at("/nodes/h/node_status").asText()).isEqualTo("completed");
    assertThat(json.at("/nodes/report/status").asText()).isEqualTo("completed");
    assertThat(json.at("/nodes/report").has("node_status")).isFalse();
    assertThat(JSON.readTree(cli("show", "run_http_1", "--store", store, "--json").out())).isEqualTo(json);

    // A run interrupted before it recorded its node reports is shown from its node executions: the same reports.
    try (RunStore s = JdbcStores.open(store)) {
      RunRecord rec = s.findRun("run_http_1").orElseThrow();
      s.updateRun(rec.toBuilder().status(dev.loopflow.core.run.RunStatus.RUNNING).finishedAt(null).output(null)
          .error(null).waiting(null).state(null).nodes(null).build());
      JsonNode rebuilt = JSON.valueToTree(dev.loopflow.core.Loopflow.builder().store(s).build().result("run_http_1")
          .orElseThrow().toJson());
      assertThat(rebuilt.get("nodes")).isEqualTo(json.get("nodes"));
    }
  }

  @Test
  void httpDenyPrivateRefusesALocalServer() throws Exception {
    Run r = cli("run", workflow().toString(), "--json", "--quiet", "--store", "memory", "--http-deny-private");

    assertThat(r.status()).isEqualTo(1);
    assertThat(JSON.readTree(r.out()).at("/error/message").asText())
        .contains("127.0.0.1 is a loopback address, and this run forbids requests to private addresses");
  }

  @ParameterizedTest
  @ValueSource(strings = {"1", "true", "TRUE", " 1 "})
  void theEnvironmentVariableTurnsTheRefusalOn(String value) {
    RunOptions.Builder opts = RunOptions.builder();
    assertThat(Support.httpPolicy(opts, false, Map.of(Support.HTTP_DENY_PRIVATE_ENV, value), new PrintWriter(
        new StringWriter()))).isTrue();
    assertThat(opts.build().options()).containsEntry(RunOptions.HTTP_DENY_PRIVATE, true);
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "false", ""})
  void theEnvironmentVariableCanSayOff(String value) {
    RunOptions.Builder opts = RunOptions.builder();
    assertThat(Support.httpPolicy(opts, false, Map.of(Support.HTTP_DENY_PRIVATE_ENV, value), new PrintWriter(
        new StringWriter()))).isTrue();
    assertThat(opts.build().options()).doesNotContainKey(RunOptions.HTTP_DENY_PRIVATE);
    assertThat(Support.httpPolicy(opts, true, Map.of(Support.HTTP_DENY_PRIVATE_ENV, value), new PrintWriter(
        new StringWriter()))).isTrue();
    assertThat(opts.build().options()).containsEntry(RunOptions.HTTP_DENY_PRIVATE, true);
  }

  @ParameterizedTest
  @ValueSource(strings = {"yes", "2", "on", "true!"})
  void anyOtherValueOfTheVariableIsAUsageError(String value) {
    StringWriter err = new StringWriter();
    assertThat(Support.httpPolicy(RunOptions.builder(), false, Map.of(Support.HTTP_DENY_PRIVATE_ENV, value),
        new PrintWriter(err, true))).isFalse();
    assertThat(err.toString()).isEqualTo("loopflow: LOOPFLOW_HTTP_DENY_PRIVATE must be 1, true, 0 or false, was '"
        + value + "'" + System.lineSeparator());
  }

  @Test
  void validateChecksMemoryBombTemplatesWithoutRunningThem_bugValidateRendersTemplates() throws Exception {
    Path wf = dir.resolve("bombs.yaml");
    Files.writeString(wf, """
        name: bombs
        nodes:
          - id: a
            type: transform
            template: "{{ 'x'.repeat(1500000000) }}"
          - id: b
            type: transform
            template: "{% set l = [1] %}{% for i in range(64) %}{% set l = l + l %}{% endfor %}{{ l|length }}"
            when: "'x'.repeat(2000000000) | length > 0"
          - id: c
            type: http
            url: "{{ range(1500000000)|join(',') }}"
        """);

    Run r = cli("validate", wf.toString());

    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).isEqualTo(wf + ": ok" + System.lineSeparator());
  }
}
