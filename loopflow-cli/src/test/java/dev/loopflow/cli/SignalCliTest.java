package dev.loopflow.cli;

import static dev.loopflow.cli.CliTest.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.store.jdbc.JdbcStores;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code loopflow signal}: a restart request from another process reaches a running run through the store's command
 * bus, is decided under the run's restart policy, and both processes report the same decision.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SignalCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  /** b waits for the file `go` on the first iteration only, so the test can signal while it runs. */
  private static final String WAITING = """
      name: signalled
      restart_policy: {enabled: true, max_iterations: 3, restartable_stages: [a]}
      nodes:
        - {id: a, type: transform, template: "a ran in iteration {{ loop.iteration }}"}
        - id: b
          depends_on: [a]
          bash: |
            if [ "{{ loop.iteration }}" = 1 ]; then while [ ! -f go ]; do sleep 0.05; done; fi
            echo "b saw: {{ a.output }}"
      output: "{{ b.output }}"
      """;

  private Process start(List<String> args) throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> cmd = new ArrayList<>(List.of(java, "-cp", TestJvm.classPathOption(), "dev.loopflow.cli.Main"));
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
    pb.environment().put("LOOPFLOW_PLAIN_PROGRESS", "1");
    pb.environment().put("LOOPFLOW_HOME", dir.resolve("home").toString());
    return pb.start();
  }

  @Test
  void aRestartSignalledFromAnotherProcessRestartsTheRunningRun() throws Exception {
    Path wf = dir.resolve("wf.yaml");
    Files.writeString(wf, WAITING);
    String store = "sqlite:" + dir.resolve("runs.db");
    Process run = start(List.of("run", wf.toString(), "--store", store, "--run-id", "sig-1", "--json"));
    BufferedReader progress = new BufferedReader(new InputStreamReader(run.getErrorStream(), StandardCharsets.UTF_8));
    List<String> lines = new ArrayList<>();
    for (String line = progress.readLine(); line != null; line = progress.readLine()) {
      lines.add(line);
      if (line.contains("restart[1].b") && line.contains("started")) {
        break;
      }
    }
    assertThat(lines).as("progress").anyMatch(l -> l.contains("restart[1].b"));

    Process signal = start(List.of("signal", "sig-1", "restart", "--target", "a", "--reason", "new data arrived",
        "--store", store, "--json"));
    try (RunStore journal = JdbcStores.open(store)) {
      while (journal.commands("sig-1").isEmpty()) {
        Thread.sleep(20);
      }
    }
    Files.writeString(dir.resolve("go"), "");

    assertThat(signal.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String answer = new String(signal.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String signalErr = new String(signal.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(signal.exitValue()).as("stdout: %s stderr: %s", answer, signalErr).isZero();
    JsonNode response = JSON.readTree(answer);
    assertThat(response.get("success").asBoolean()).isTrue();
    assertThat(response.get("target_stage_id").asText()).isEqualTo("a");
    assertThat(response.get("iteration").asInt()).isEqualTo(2);
    assertThat(response.get("error").isNull()).isTrue();

    assertThat(run.waitFor(60, TimeUnit.SECONDS)).isTrue();
    JsonNode result = JSON.readTree(run.getInputStream().readAllBytes());
    assertThat(run.exitValue()).isZero();
    assertThat(result.get("output").asText()).isEqualTo("b saw: a ran in iteration 2");
    JsonNode p = result.get("pipeline");
    assertThat(p.get("iterations_executed").asInt()).isEqualTo(2);
    assertThat(p.at("/restart_requests/0/requester_stage_id").asText()).isEqualTo("external");
    assertThat(p.at("/restart_requests/0/reason").asText()).isEqualTo("new data arrived");
    assertThat(p.at("/restart_requests/0/success").asBoolean()).isTrue();

    CliTest.Run show = cli("show", "sig-1", "--store", store);
    assertThat(show.out()).contains("iteration 2").contains("external -> a: accepted, iteration 2 (new data arrived)");
  }

  @Test
  void aRejectedSignalExitsOneWithItsCodeAndAnEndedRunIsAUsageError() throws Exception {
    Path wf = dir.resolve("wf.yaml");
    Files.writeString(wf, WAITING);
    String store = "sqlite:" + dir.resolve("runs.db");
    Process run = start(List.of("run", wf.toString(), "--store", store, "--run-id", "sig-2", "--json"));
    try (RunStore journal = JdbcStores.open(store)) {
      while (journal.findRun("sig-2").isEmpty()) {
        Thread.sleep(20);
      }
    }
    // b is not restartable (restartable_stages: [a]): refused at once after the node that completes next.
    Process signal = start(List.of("signal", "sig-2", "restart", "--target", "b", "--store", store));
    try (RunStore journal = JdbcStores.open(store)) {
      while (journal.commands("sig-2").isEmpty()) {
        Thread.sleep(20);
      }
    }
    Files.writeString(dir.resolve("go"), "");
    assertThat(signal.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String out = new String(signal.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(signal.exitValue()).as(out).isEqualTo(1);
    assertThat(out).contains("rejected [");
    assertThat(run.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(run.exitValue()).isZero();

    CliTest.Run ended = cli("signal", "sig-2", "restart", "--target", "a", "--store", store);
    assertThat(ended.status()).isEqualTo(2);
    assertThat(ended.err()).contains("run 'sig-2' has ended (completed)");
    CliTest.Run unknown = cli("signal", "nope", "restart", "--target", "a", "--store", store);
    assertThat(unknown.status()).isEqualTo(2);
    assertThat(unknown.err()).contains("no run 'nope'");
    CliTest.Run badType = cli("signal", "sig-2", "pause", "--target", "a", "--store", store);
    assertThat(badType.status()).isEqualTo(2);
    assertThat(badType.err()).contains("unknown signal 'pause'");
  }
}
