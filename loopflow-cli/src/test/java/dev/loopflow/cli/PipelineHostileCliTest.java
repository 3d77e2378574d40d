package dev.loopflow.cli;

import static dev.loopflow.cli.CliTest.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.NodeProgram;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.store.jdbc.JdbcStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the command line shows of hostile pipeline runs (run progress, show, signal, runs): node ids, reasons,
 * targets and names that hold terminal escapes or line breaks are shown escaped on one line, never passed to the
 * terminal; JSON output keeps them exactly. And the SQLite store under the same hostile requests and shared memory.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PipelineHostileCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SHAPED = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z";

  @TempDir
  Path dir;

  /** Control characters a terminal acts on (escape, bell, carriage return, C1 CSI, ...); \n separates lines. */
  private static void noTerminalControls(String label, String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c != '\n' && (Character.isISOControl(c) || c == '\u2028' || c == '\u2029')) {
        throw new AssertionError(label + " holds U+" + String.format("%04X", (int) c) + " at " + i + ": "
            + text.substring(Math.max(0, i - 40), Math.min(text.length(), i + 40)));
      }
    }
  }

  /** Text that would move the cursor, clear the screen, forge a line or hide text if printed raw. */
  static Stream<String> hostileTexts() {
    return Stream.of("\u001b[2J\u001b[H", "\u001b]0;title\u0007", "\u009b31m", "forged\nline", "back\rover",
        "\u0000nul", "tab\there", "\u2028sep", "\u0008\u0008bs", "\u007fdel");
  }

  private Path write(String name, String text) throws Exception {
    Path p = dir.resolve(name);
    Files.writeString(p, text);
    return p;
  }

  /** A YAML double-quoted scalar, with every character YAML does not allow raw in a file written as an escape. */
  private static String yamlQuoted(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c < 0x20 || c >= 0x7f && c <= 0x9f || c == '\u2028' || c == '\u2029' || c == '"' || c == '\\') {
        sb.append(String.format("\\u%04x", (int) c));
      } else {
        sb.append(c);
      }
    }
    return sb.append('"').toString();
  }

  @ParameterizedTest(name = "[{index}]")
  @MethodSource("hostileTexts")
  void hostileTextInARunIsShownEscapedByRunShowAndRuns_bugShowAndRunsPrintedTheWorkflowNameRaw(String evil)
      throws Exception {
    Path wf = write("wf.yaml", """
        name: %s
        workflow_pattern:
          iterative:
            pipeline:
              stages:
                - {agent_id: a, prompt_template: "a"}
                - {agent_id: b, prompt_template: "b {{previous}}"}
            max_iterations: 3
            restart_policy: {enabled: true, max_validation_retries: 0}
        """.formatted(yamlQuoted("wf" + evil)));
    Map<String, Object> restartAccepted = Map.of("target_stage_id", "a", "reason", "why " + evil + " " + SHAPED,
        "parameters", Map.of("p" + evil, "v" + evil));
    Map<String, Object> restartRefused = Map.of("target_stage_id", "a" + evil, "reason", evil);
    Path script = write("script.json", Json.compact(Map.of(
        "a", List.of("A " + evil),
        "b", List.of(Map.of("tool_calls", List.of(
            Map.of("name", "request_restart", "arguments", restartRefused),
            Map.of("name", "request_restart", "arguments", restartAccepted),
            Map.of("name", "no_such_tool" + evil, "arguments", Map.of()))), "B " + evil + " " + SHAPED, "done"))));
    String store = "sqlite:" + dir.resolve("runs.db");

    CliTest.Run run = cli("run", wf.toString(), "--store", store, "--mock-script", script.toString(), "--run-id",
        "h1");
    assertThat(run.status()).as(run.err()).isZero();
    noTerminalControls("run's stdout", run.out());
    noTerminalControls("run's progress", run.err());
    assertThat(run.err()).contains("requests a restart of").contains("restart refused [restart_validation_failed]");
    assertThat(run.out() + run.err()).doesNotContain(SHAPED);

    CliTest.Run show = cli("show", "h1", "--store", store);
    assertThat(show.status()).as(show.err()).isZero();
    noTerminalControls("show", show.out());
    assertThat(show.out()).contains("b -> a: accepted, iteration 2").contains("rejected [restart_validation_failed]")
        .doesNotContain(SHAPED);

    CliTest.Run runs = cli("runs", "--store", store);
    noTerminalControls("runs", runs.out() + runs.err());

    CliTest.Run json = cli("show", "h1", "--store", store, "--json");
    // the two calls of one reply run at the same time: either may be first on the bus
    List<JsonNode> requests = new ArrayList<>();
    JSON.readTree(json.out()).at("/pipeline/restart_requests").forEach(requests::add);
    assertThat(requests).hasSize(2);
    JsonNode refused = requests.stream().filter(q -> !q.get("success").asBoolean()).findFirst().orElseThrow();
    JsonNode accepted = requests.stream().filter(q -> q.get("success").asBoolean()).findFirst().orElseThrow();
    assertThat(refused.get("target_stage_id").asText()).isEqualTo("a" + evil);
    assertThat(accepted.get("reason").asText()).isEqualTo("why " + evil + " [redacted]");
    assertThat(json.out()).doesNotContain(SHAPED);
  }

  // -------------------------------------------------------------------------------------------------------------
  // loopflow signal

  /** A node that waits until the run's bus holds a command, so that a signal is decided when it completes. */
  private static final class WaitForSignal implements NodeHandler {
    private final RunStore store;

    WaitForSignal(RunStore store) {
      this.store = store;
    }

    @Override
    public NodeKindSpec spec() {
      return NodeKindSpec.of("wait_for_signal", null, List.of());
    }

    @Override
    public NodeProgram compile(NodeConfig cfg) {
      return ctx -> {
        while (store.commands(ctx.runId()).isEmpty()) {
          Thread.sleep(10);
        }
        return NodeOutcome.of("signalled");
      };
    }
  }

  private record Signalled(CliTest.Run signal, RunResult run) {}

  /** Runs a → wait on the SQLite store while {@code loopflow signal} sends {@code args}. */
  private Signalled signal(String runId, String... args) throws Exception {
    String store = "sqlite:" + dir.resolve("sig.db");
    RunStore journal = JdbcStores.open(store);
    try {
      Loopflow lf = Loopflow.builder().store(journal).handler(new WaitForSignal(journal)).build();
      var wf = lf.parse("""
          name: sig
          restart_policy: {enabled: true, max_iterations: 2}
          nodes:
            - {id: a, type: transform, template: "a{{ loop.iteration }}"}
            - {id: w, type: wait_for_signal, depends_on: [a]}
          """, "sig.yaml");
      CompletableFuture<RunResult> run = CompletableFuture.supplyAsync(() -> lf.run(wf, RunOptions.builder()
          .runId(runId).build()));
      while (journal.findRun(runId).isEmpty()) {
        Thread.sleep(10);
      }
      List<String> all = new ArrayList<>(List.of("signal", runId, "restart", "--store", store, "--wait", "60"));
      all.addAll(List.of(args));
      CliTest.Run signal = cli(all.toArray(String[]::new));
      return new Signalled(signal, run.get(60, TimeUnit.SECONDS));
    } finally {
      journal.close();
    }
  }

  @ParameterizedTest(name = "[{index}]")
  @MethodSource("hostileTexts")
  void aSignalWithAHostileTargetIsRefusedAndItsAnswerShownEscaped_bugSignalPrintedTheTargetRaw(String evil)
      throws Exception {
    Signalled s = signal("s1", "--target", "a" + evil, "--reason", evil, "--requester", evil);
    assertThat(s.signal().status()).as(s.signal().err()).isEqualTo(1);
    assertThat(s.signal().out()).contains("rejected [restart_validation_failed]");
    noTerminalControls("signal's answer", s.signal().out() + s.signal().err());
    assertThat(s.signal().out().strip().lines()).hasSize(1);
    assertThat(s.run().status()).isEqualTo(RunStatus.COMPLETED);
  }

  @Test
  void aSignalAnsweredAsJsonKeepsTheTargetExactly() throws Exception {
    String evil = "a\u001b[2J\nline";
    Signalled s = signal("s2", "--target", evil, "--json");
    assertThat(s.signal().status()).isEqualTo(1);
    JsonNode answer = JSON.readTree(s.signal().out());
    assertThat(answer.get("target_stage_id").asText()).isEqualTo(evil);
    assertThat(answer.at("/error/code").asText()).isEqualTo("restart_validation_failed");
  }

  @Test
  void aSignalWithTenThousandParametersIsBoundedAndAccepted() throws Exception {
    List<String> args = new ArrayList<>(List.of("--target", "a", "--reason", "r".repeat(100_000)));
    for (int i = 0; i < 10_000; i++) {
      args.add("--param");
      args.add("k" + i + "=" + "\u4e2d".repeat(1500));
    }
    Signalled s = signal("s3", args.toArray(String[]::new));
    assertThat(s.signal().status()).as(s.signal().err()).isZero();
    assertThat(s.signal().out()).contains("accepted: the run is now in iteration 2");
    assertThat(s.run().status()).isEqualTo(RunStatus.COMPLETED);
  }

  static Stream<String> hostileRunIds() {
    return Stream.of("\u001b[2J", "a\nb", "\u0000", "", " ", "x".repeat(300), "../../etc/passwd", "nope", "%", "_");
  }

  @ParameterizedTest(name = "[{index}]")
  @MethodSource("hostileRunIds")
  void aSignalForARunThatCannotExistIsAOneLineUsageError(String runId) throws Exception {
    String store = "sqlite:" + dir.resolve("none.db");
    CliTest.Run r = cli("signal", runId, "restart", "--target", "a", "--store", store);
    assertThat(r.status()).isEqualTo(2);
    noTerminalControls("signal's error", r.err());
    assertThat(r.err()).doesNotContain("Exception").doesNotContain("\tat ");
  }

  // -------------------------------------------------------------------------------------------------------------
  // Shared memory on SQLite through the agent's tools

  static Stream<Object[]> keys() {
    return Stream.of(
        new Object[] {"%", true}, new Object[] {"_", true}, new Object[] {"a%", true}, new Object[] {"\\", true},
        new Object[] {"' OR '1'='1", true}, new Object[] {"../x", true}, new Object[] {"\u001b[2J", true},
        new Object[] {"\uD83D\uDE00", true}, new Object[] {"k".repeat(512), true},
        new Object[] {"a\u0000", false}, new Object[] {"\ud800", false}, new Object[] {"\u4e2d".repeat(400), false},
        new Object[] {"k".repeat(513), false});
  }

  @ParameterizedTest(name = "[{index}]")
  @MethodSource("keys")
  void aHostileKeyOnSqliteIsStoredAsTextInItsScopeOrIsTheCallsError(String key, boolean works) throws Exception {
    try (RunStore store = JdbcStores.open("sqlite:" + dir.resolve("mem.db"))) {
      Loopflow lf = Loopflow.builder().store(store).build();
      List<Object> script = new ArrayList<>();
      for (Map<String, Object> args : List.<Map<String, Object>>of(
          Map.of("namespace", "global", "key", "a%b", "value", "decoy"),
          Map.of("namespace", "global", "key", key, "value", "v"),
          Map.of("namespace", "agent", "key", key, "value", "agent v"))) {
        script.add(Map.of("tool_calls", List.of(Map.of("name", "shared_memory_write", "arguments", args))));
      }
      script.add(Map.of("tool_calls", List.of(Map.of("name", "shared_memory_read", "arguments",
          Map.of("namespace", "global", "key", key)))));
      script.add("done");
      var wf = lf.parse("""
          name: mem
          nodes:
            - {id: m, type: agent, model: "mock:m", prompt: "p", max_turns: 10,
               tools: [shared_memory_write, shared_memory_read]}
          """, "mem.yaml");
      RunResult r = lf.run(wf, RunOptions.builder().option("llm.mock_script", Map.of("m", script)).build());

      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> calls = (List<Map<String, Object>>) r.nodes().get("m").get("tool_calls");
      if (works) {
        assertThat(calls.get(3)).containsEntry("result", "v");
        // a prefix is text, not a pattern: the decoy 'a%b' is listed under "a%" only when the key is a prefix of it
        assertThat(store.listMemory("", "GLOBAL", key)).extracting(e -> e.key())
            .allSatisfy(k -> assertThat(k).startsWith(key));
        assertThat(store.getMemory("agent/mem/m", "AGENT", key)).isPresent();
      } else {
        assertThat((String) calls.get(1).get("error")).startsWith("node_failed: shared memory: key ");
        assertThat((String) calls.get(3).get("error")).startsWith("node_failed: shared memory: key ");
        assertThat(store.listMemory("", "GLOBAL", "")).extracting(e -> e.key()).containsExactly("a%b");
      }
    }
  }

  @Test
  void aStageOutputAtTheValueLimitIsKeptWholeAndOneByteMoreFailsTheStageClearly() throws Exception {
    String yaml = """
        name: big
        workflow_pattern:
          iterative:
            pipeline:
              stages:
                - {agent_id: a, prompt_template: "a"}
                - {agent_id: b, prompt_template: "b {{previous}}"}
            restart_policy: {enabled: false, keep_shared_memory: true}
        """;
    int limit = 16 << 20;
    for (int size : new int[] {limit, limit + 1}) {
      try (RunStore store = JdbcStores.open("sqlite:" + dir.resolve("big" + size + ".db"))) {
        Loopflow lf = Loopflow.builder().store(store).build();
        String out = "x".repeat(size);
        RunResult r = lf.run(lf.parse(yaml, "big.yaml"), RunOptions.builder().option("llm.mock_script",
            Map.of("a", List.of(out), "b", List.of("B"))).build());
        if (size == limit) {
          assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
          var entry = store.getMemory(r.runId(), "WORKFLOW", "stage-1-output").orElseThrow();
          assertThat(entry.compressed()).isTrue();
          assertThat(entry.metadata()).containsEntry("full_size", Integer.toString(limit));
        } else {
          assertThat(r.status()).isEqualTo(RunStatus.FAILED);
          assertThat(r.error().code()).isEqualTo("node_failed");
          assertThat(r.error().message()).contains("shared memory: the value for 'stage-1-output' has " + size
              + " bytes; the limit is " + limit);
        }
      }
    }
  }

  @Test
  void aRestartRequestAtEveryLimitFitsTheSqliteCommandBus() throws Exception {
    try (RunStore store = JdbcStores.open("sqlite:" + dir.resolve("limits.db"))) {
      Loopflow lf = Loopflow.builder().store(store).build();
      Map<String, Object> params = new LinkedHashMap<>();
      for (int i = 0; i < 40; i++) {
        params.put("\u0001".repeat(250) + i, "\u0001".repeat(2000));
      }
      Map<String, Object> restart = Map.of("target_stage_id", "a", "reason", "\u0001".repeat(5000),
          "parameters", params);
      var wf = lf.parse("""
          name: lim
          workflow_pattern:
            iterative:
              pipeline:
                stages:
                  - {agent_id: a, prompt_template: "a"}
                  - {agent_id: b, prompt_template: "b"}
              restart_policy: {enabled: true, max_validation_retries: 0}
          """, "lim.yaml");
      RunResult r = lf.run(wf, RunOptions.builder().option("llm.mock_script", Map.of("b", List.of(
          Json.compact(Map.of("restart", restart)), "done"))).build());
      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.pipeline()).containsEntry("iterations_executed", 2);
      assertThat(store.commands(r.runId())).singleElement().satisfies(c -> assertThat(c.response()).isNotNull());
    }
  }
}
