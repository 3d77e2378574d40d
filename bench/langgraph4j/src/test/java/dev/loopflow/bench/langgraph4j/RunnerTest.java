package dev.loopflow.bench.langgraph4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.withinPercentage;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loopflow.testkit.FakeOpenAiServer;
import dev.loopflow.testkit.Reply;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each workload once, at a size that keeps the whole class to a few seconds, through the real command line. Only
 * behaviour is asserted (exit status, the lines' fields, the calls made, that runs overlap); the figures themselves
 * are the benchmark's business, so a loaded machine cannot fail these tests.
 */
class RunnerTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void w1_counts_to_n() throws Exception {
    List<JsonNode> lines = run(0, "W1", "--n", "10", "--warmup", "1", "--reps", "2");

    assertThat(lines).hasSize(3);
    assertRepetition(lines.get(0), "W1", 10, 0, 10);
    assertRepetition(lines.get(1), "W1", 10, 1, 10);
    assertSummary(lines.get(2), "W1", 10);
  }

  @Test
  void w2_appends_n_drafts() throws Exception {
    List<JsonNode> lines = run(0, "W2", "--n", "10", "--warmup", "0", "--reps", "1");

    assertRepetition(lines.get(0), "W2", 10, 0, 10);
    assertSummary(lines.get(1), "W2", 10);
  }

  @Test
  void w3_leaves_one_checkpoint_folder_per_repetition(@TempDir Path dir) throws Exception {
    List<JsonNode> lines = run(0, "W3", "--n", "10", "--warmup", "1", "--reps", "2", "--dir", dir.toString());

    assertRepetition(lines.get(0), "W3", 10, 0, 10);
    long bytes = lines.get(0).get("bytes").asLong();
    assertThat(bytes).isPositive();
    assertThat(lines.get(0).get("bytes_per_iter").asDouble()).isEqualTo(bytes / 10.0);
    assertThat(sizeOf(dir.resolve("rep-0"))).isEqualTo(bytes);
    try (Stream<Path> folders = Files.list(dir)) {
      assertThat(folders.map(folder -> folder.getFileName().toString()))
          .containsExactlyInAnyOrder("warmup-0", "rep-0", "rep-1");
    }
  }

  @Test
  void w4_makes_ten_calls_per_run_concurrently() throws Exception {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      // The first call of every run waits until all 20 runs have made theirs: runs that did not overlap would never
      // get there (the latch's bound answers 500 and the repetition fails). No clock is read, so load cannot fail it.
      int runs = 20;
      CountDownLatch firstCalls = new CountDownLatch(runs);
      AtomicInteger calls = new AtomicInteger();
      server.respondWith(request -> {
        if (calls.incrementAndGet() <= runs) {
          firstCalls.countDown();
          try {
            if (!firstCalls.await(30, TimeUnit.SECONDS)) {
              return Reply.serverError();
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
        return Reply.text("looks good").after(Duration.ofMillis(20));
      });

      List<JsonNode> lines =
          run(0, "W4", "--url", server.baseUrl(), "--runs", String.valueOf(runs), "--warmup", "0", "--reps", "1");

      assertRepetition(lines.get(0), "W4", 5, 0, 200);
      assertThat(server.requestCount()).isEqualTo(200);
      assertThat(server.lastRequest().model()).isEqualTo("bench");
    }
  }

  @Test
  void w4_fails_when_the_server_does() throws Exception {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.defaultReply(Reply.serverError());

      ByteArrayOutputStream stderr = new ByteArrayOutputStream();
      List<JsonNode> lines =
          run(Runner.EXIT_FAILED, stderr, "W4", "--url", server.baseUrl(), "--runs", "3", "--reps", "1");

      assertThat(lines).isEmpty();
      assertThat(stderr.toString(StandardCharsets.UTF_8)).contains("W4 n=5 failed").contains("api_error");
    }
  }

  @Test
  void w5_measures_one_distance_per_repetition() throws Exception {
    List<JsonNode> lines = run(0, "W5", "--n", "500", "--warmup", "0", "--reps", "2");

    assertRepetition(lines.get(0), "W5", 500, 0, 1);
    assertRepetition(lines.get(1), "W5", 500, 1, 1);
  }

  @Test
  void w6_runs_once_whatever_it_is_asked() throws Exception {
    List<JsonNode> lines = run(0, "W6", "--warmup", "3", "--reps", "5");

    assertThat(lines).hasSize(2);
    assertRepetition(lines.get(0), "W6", 3, 0, 3);
    assertSummary(lines.get(1), "W6", 3);
  }

  @Test
  void the_recursion_limit_fits_n_node_runs() throws Exception {
    var graph = CounterLoop.graph(10);

    assertThat(graph.compile(Graphs.compileConfig(10).build()).invoke(CounterLoop.input()))
        .hasValueSatisfying(last -> assertThat(last.count()).isEqualTo(10));
    // One node run short: LangGraph4j stops the loop instead of reaching N.
    assertThatThrownBy(() -> graph.compile(Graphs.compileConfig(9).build()).invoke(CounterLoop.input()))
        .hasStackTraceContaining("Maximum number of iterations");
  }

  @Test
  void a_wrong_final_state_fails_with_its_reason() {
    assertThatThrownBy(() -> Workload.check(false, "count is %d, expected %d", 9, 10))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("wrong final state: count is 9, expected 10");
  }

  @Test
  void bad_command_lines_are_usage_errors() throws Exception {
    assertThat(run(Runner.EXIT_USAGE, "W7")).isEmpty();
    assertThat(run(Runner.EXIT_USAGE, "W1", "--n", "0")).isEmpty();
    assertThat(run(Runner.EXIT_USAGE, "W3", "--n", "5")).isEmpty();
    assertThat(run(Runner.EXIT_USAGE, "W4")).isEmpty();
    assertThat(run(Runner.EXIT_USAGE, "W1", "--variant", "tuned")).isEmpty();
  }

  @Test
  void versions_come_from_the_class_path() {
    assertThat(Runner.versions())
        .containsEntry("langgraph4j-core", "1.8.17")
        .containsEntry("langchain4j", "1.19.0")
        .containsKey("java");
  }

  private static List<JsonNode> run(int expectedStatus, String... args) throws Exception {
    return run(expectedStatus, new ByteArrayOutputStream(), args);
  }

  private static List<JsonNode> run(int expectedStatus, ByteArrayOutputStream stderr, String... args)
      throws Exception {
    ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    int status;
    try (PrintStream out = new PrintStream(stdout, true, StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(stderr, true, StandardCharsets.UTF_8)) {
      status = Runner.run(args, out, err);
    }
    assertThat(status)
        .as("exit status of %s; stderr:%n%s", String.join(" ", args), stderr.toString(StandardCharsets.UTF_8))
        .isEqualTo(expectedStatus);
    List<JsonNode> lines = new ArrayList<>();
    for (String line : stdout.toString(StandardCharsets.UTF_8).split("\n")) {
      if (!line.isEmpty()) {
        lines.add(JSON.readTree(line));
      }
    }
    return lines;
  }

  private static void assertRepetition(JsonNode line, String workload, int n, int rep, long iterations) {
    assertThat(line.get("engine").asText()).isEqualTo("langgraph4j");
    assertThat(line.get("workload").asText()).isEqualTo(workload);
    assertThat(line.get("n").asInt()).isEqualTo(n);
    assertThat(line.get("rep").asInt()).isEqualTo(rep);
    assertThat(line.get("iterations").asLong()).isEqualTo(iterations);
    double wallMs = line.get("wall_ms").asDouble();
    assertThat(wallMs).isPositive();
    // Both fields are rounded on output, so they agree only to within that rounding.
    assertThat(line.get("us_per_iter").asDouble()).isCloseTo(wallMs * 1000 / iterations, withinPercentage(0.1));
  }

  private static void assertSummary(JsonNode line, String workload, int n) {
    assertThat(line.get("workload").asText()).isEqualTo(workload);
    assertThat(line.get("n").asInt()).isEqualTo(n);
    assertThat(line.get("summary").asBoolean()).isTrue();
    assertThat(line.get("peak_rss_kb").asLong()).isPositive();
    assertThat(line.get("versions").get("langgraph4j-core").asText()).isEqualTo("1.8.17");
  }

  private static long sizeOf(Path folder) throws Exception {
    try (Stream<Path> files = Files.walk(folder)) {
      return files.filter(Files::isRegularFile).mapToLong(file -> file.toFile().length()).sum();
    }
  }
}
