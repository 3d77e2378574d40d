package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
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
 * {@code --events-jsonl} is written as the run goes: a reader following the file sees each event while the run is
 * still executing, and a CLI killed with SIGKILL leaves every event it had published, each on a whole line.
 */
@DisabledOnOs(OS.WINDOWS)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class EventsFileLiveTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Generous: only a guard against a hang, never a measure of speed. */
  private static final long HANG_GUARD_MS = 90_000;

  @TempDir
  Path dir;

  /** {@code first} completes; {@code waits} then runs until the test creates the file {@code go}. */
  private static final String WAITING = """
      name: live-events
      nodes:
        - {id: first, bash: "echo first done"}
        - id: waits
          depends_on: [first]
          bash: "while [ ! -f go ]; do sleep 0.05; done; echo released"
      output: "{{ waits.output }}"
      """;

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

  /** The file's complete lines, parsed; a line still being written (no newline yet) is left out. */
  private static List<JsonNode> lines(Path file) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    if (!Files.exists(file)) {
      return out;
    }
    String text = Files.readString(file, StandardCharsets.UTF_8);
    int end = text.lastIndexOf('\n');
    if (end < 0) {
      return out;
    }
    for (String l : text.substring(0, end).split("\n")) {
      out.add(JSON.readTree(l));
    }
    return out;
  }

  private static boolean has(List<JsonNode> events, String type, String node) {
    return events.stream().anyMatch(e -> e.path("type").asText().equals(type)
        && e.path("node").asText().equals(node));
  }

  /** Waits until the running node has started, as the events file tells it; the process must still be alive. */
  private List<JsonNode> awaitWaitsStarted(Process run, Path events) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HANG_GUARD_MS);
    List<JsonNode> seen = lines(events);
    while (!has(seen, "node.started", "waits")) {
      assertThat(run.isAlive()).as("the run ended before its events reached the file: %s",
          Files.readString(dir.resolve("stderr.txt"))).isTrue();
      assertThat(System.nanoTime()).as("the events file stayed without 'waits' started while the run waited: %s",
          seen).isLessThan(deadline);
      Thread.sleep(50);
      seen = lines(events);
    }
    return seen;
  }

  @Test
  void eventsReachTheFileWhileTheRunIsStillGoing_bugTheFileWasWrittenOnlyWhenTheRunEnded() throws Exception {
    Path wf = dir.resolve("wf.yaml");
    Files.writeString(wf, WAITING);
    Path events = dir.resolve("events.jsonl");
    Process run = start(List.of("run", wf.toString(), "--store", "sqlite:" + dir.resolve("runs.db"), "--json",
        "--events-jsonl", events.toString()));
    try {
      List<JsonNode> seen = awaitWaitsStarted(run, events);
      // The run is still waiting in 'waits': everything before it is already in the file, in order.
      assertThat(run.isAlive()).isTrue();
      assertThat(seen.getFirst().path("type").asText()).isEqualTo("run.started");
      assertThat(has(seen, "node.completed", "first")).isTrue();
      assertThat(has(seen, "node.completed", "waits")).isFalse();

      Files.writeString(dir.resolve("go"), "");
      assertThat(run.waitFor(HANG_GUARD_MS, TimeUnit.MILLISECONDS)).isTrue();
      assertThat(run.exitValue()).as(Files.readString(dir.resolve("stderr.txt"))).isZero();
      List<JsonNode> all = lines(events);
      assertThat(all.subList(0, seen.size())).isEqualTo(seen);
      assertThat(has(all, "node.completed", "waits")).isTrue();
      assertThat(all.getLast().path("type").asText()).isEqualTo("run.finished");
      assertThat(Files.readString(events)).endsWith("\n");
    } finally {
      run.destroyForcibly();
    }
  }

  @Test
  void aKilledRunLeavesEveryEventItPublished_bugKill9LeftAnEmptyEventsFile() throws Exception {
    Path wf = dir.resolve("wf.yaml");
    Files.writeString(wf, WAITING);
    Path events = dir.resolve("events.jsonl");
    Process run = start(List.of("run", wf.toString(), "--store", "sqlite:" + dir.resolve("runs.db"),
        "--run-id", "killed-1", "--events-jsonl", events.toString()));
    List<JsonNode> seen;
    try {
      seen = awaitWaitsStarted(run, events);
    } finally {
      run.destroyForcibly(); // SIGKILL: no shutdown hook, no close
    }
    assertThat(run.waitFor(HANG_GUARD_MS, TimeUnit.MILLISECONDS)).isTrue();

    String text = Files.readString(events, StandardCharsets.UTF_8);
    assertThat(text).endsWith("\n"); // whole lines only
    List<JsonNode> left = lines(events);
    assertThat(left).startsWith(seen.toArray(JsonNode[]::new));
    assertThat(left).allSatisfy(e -> assertThat(e.path("run_id").asText()).isEqualTo("killed-1"));
    assertThat(has(left, "node.completed", "first")).isTrue();
    assertThat(has(left, "node.started", "waits")).isTrue();
  }
}
