package dev.loopflow.cli;

import static dev.loopflow.cli.CliTest.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.store.jdbc.JdbcStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run whose CLI process was killed stays journaled {@code running}; {@code runs}, {@code show} and
 * {@code show --json} show it {@code interrupted} and resumable (its lease's holder is gone), without changing the
 * journal, and {@code resume} then continues it.
 */
@DisabledOnOs(OS.WINDOWS)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class InterruptedRunsCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Generous: only a guard against a hang, never a measure of speed. */
  private static final long HANG_GUARD_MS = 90_000;

  @TempDir
  Path dir;

  private Process start(List<String> args) throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> cmd = new ArrayList<>(List.of(java, "-cp", TestJvm.classPathOption(), "dev.loopflow.cli.Main"));
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile())
        .redirectOutput(dir.resolve("stdout.txt").toFile()).redirectError(dir.resolve("stderr.txt").toFile());
    pb.environment().put("LOOPFLOW_PLAIN_PROGRESS", "1");
    pb.environment().put("LOOPFLOW_HOME", dir.resolve("home").toString());
    pb.environment().remove("LOOPFLOW_STORE");
    return pb.start();
  }

  private static JsonNode row(String runsJson, String id) throws Exception {
    for (JsonNode r : JSON.readTree(runsJson)) {
      if (r.path("run_id").asText().equals(id)) {
        return r;
      }
    }
    throw new AssertionError("no row for " + id + " in " + runsJson);
  }

  @Test
  void aRunWhoseProcessWasKilledIsShownInterruptedAndResumable_bugItWasListedRunningForever() throws Exception {
    Path gate = dir.resolve("go");
    Path wf = dir.resolve("wf.yaml");
    Files.writeString(wf, """
        name: killed
        nodes:
          - {id: first, bash: "echo first done"}
          - id: waits
            depends_on: [first]
            bash: "while [ ! -f '%s' ]; do sleep 0.05; done; echo released"
        output: "{{ waits.output }}"
        """.formatted(gate));
    String store = "sqlite:" + dir.resolve("runs.db");
    Process run = start(List.of("run", wf.toString(), "--store", store, "--run-id", "k-1", "--quiet"));
    try (RunStore journal = JdbcStores.open(store)) {
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HANG_GUARD_MS);
      while (journal.nodeExecutions("k-1").stream().noneMatch(e -> e.position().nodeId().equals("first"))) {
        assertThat(run.isAlive()).as(Files.readString(dir.resolve("stderr.txt"))).isTrue();
        assertThat(System.nanoTime()).as("'first' never completed").isLessThan(deadline);
        Thread.sleep(50);
      }
      // While the process lives, the run is running.
      CliTest.Run live = cli("runs", "--store", store, "--json");
      assertThat(row(live.out(), "k-1").path("status").asText()).isEqualTo("running");
      assertThat(row(live.out(), "k-1").path("resumable").asBoolean()).isFalse();
    } finally {
      run.destroyForcibly(); // SIGKILL: nothing journals the run's end
    }
    assertThat(run.waitFor(HANG_GUARD_MS, TimeUnit.MILLISECONDS)).isTrue();

    CliTest.Run listed = cli("runs", "--store", store, "--json");
    assertThat(listed.status()).as(listed.err()).isZero();
    JsonNode row = row(listed.out(), "k-1");
    assertThat(row.path("status").asText()).isEqualTo("interrupted");
    assertThat(row.path("resumable").asBoolean()).isTrue();
    assertThat(cli("runs", "--store", store).out()).containsPattern("k-1 +killed +interrupted ");
    assertThat(cli("runs", "--store", store, "--status", "interrupted", "--json").out()).contains("\"k-1\"");
    assertThat(cli("runs", "--store", store, "--status", "running", "--json").out()).doesNotContain("\"k-1\"");

    CliTest.Run shown = cli("show", "k-1", "--store", store);
    assertThat(shown.out().lines().findFirst().orElseThrow()).contains("k-1  killed  interrupted  started");
    assertThat(shown.out()).contains("continue it with: loopflow resume k-1");
    assertThat(JSON.readTree(cli("show", "k-1", "--store", store, "--json").out()).path("status").asText())
        .isEqualTo("interrupted");
    try (RunStore journal = JdbcStores.open(store)) {
      assertThat(journal.findRun("k-1").orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
    }

    Files.writeString(gate, "");
    CliTest.Run resumed = cli("resume", "k-1", "--store", store, "--quiet", "--json");
    assertThat(resumed.status()).as(resumed.err()).isZero();
    assertThat(row(cli("runs", "--store", store, "--json").out(), "k-1").path("status").asText())
        .isEqualTo("completed");
  }
}
