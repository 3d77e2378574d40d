package dev.loopflow.cli;

import static dev.loopflow.cli.CliTest.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loopflow.cli.CliTest.Run;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.store.jdbc.JdbcStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A run's lifecycle as the commands report it: what {@code run --json} printed is what {@code show --json} prints,
 * a paused run says what it waits for, resume reports what it resumed and how it ended, rejections end the run,
 * cancel reasons and the mock provider travel with the run. Each command opens the SQLite store afresh, as a new
 * process would.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RunLifecycleCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;
  String store;

  @BeforeEach
  void store() {
    store = "sqlite:" + dir.resolve("runs.db");
  }

  private Path file(String name, String yaml) throws Exception {
    Path p = dir.resolve(name);
    Files.writeString(p, yaml);
    return p;
  }

  private static JsonNode json(Run r) throws Exception {
    return JSON.readTree(r.out());
  }

  /** Append keys, an output: key and a while_loop's threaded state, then what decides how the run ends. */
  private static final String PREFIX = """
      name: lifecycle
      input:
        count: {type: integer, default: 0}
      state:
        log: {merge: append}
      nodes:
        - id: a
          run: |
            return { log = {"a"} }
        - id: b
          depends_on: [a]
          run: |
            return { log = {"b"} }
        - id: greet
          depends_on: [b]
          bash: echo hi
          output: greeting
        - id: w
          type: while_loop
          depends_on: [greet]
          max_iterations: 5
          condition: "state.count < 2"
          body:
            - id: inc
              run: |
                return { count = state.count + 1, log = {"inc"} }
      """;

  static Stream<Arguments> endings() {
    return Stream.of(
        Arguments.of("completed", 0, """
              - id: last
                depends_on: [w]
                bash: echo done
                output: final
            """),
        Arguments.of("failed", 1, """
              - id: last
                depends_on: [w]
                bash: "echo broken >&2; exit 3"
            """),
        Arguments.of("paused", 3, """
              - id: last
                depends_on: [w]
                approval: "Ship {{ greet.output }}?"
            """),
        Arguments.of("cancelled", 1, """
              - id: last
                depends_on: [w]
                cancel: "enough for today"
            """),
        Arguments.of("paused", 3, """
              - id: g
                depends_on: [w]
                loop_group:
                  max_iterations: 3
                  nodes:
                    - id: check
                      approval: "Pass {{ loop.iteration }} fine?"
            """),
        Arguments.of("paused", 3, """
              - id: g
                depends_on: [w]
                loop_group:
                  max_iterations: 3
                  interactive: true
                  gate_message: "Pass {{ loop.iteration }} done; feedback?"
                  nodes:
                    - id: step
                      run: |
                        return { log = {"step"} }
            """));
  }

  @ParameterizedTest(name = "{0}: {2}")
  @MethodSource("endings")
  void showJsonPrintsExactlyWhatRunJsonPrinted_bugShowRebuiltStateWithPutAll(String status, int exit, String tail)
      throws Exception {
    Path wf = file("wf.yaml", PREFIX + tail);
    Run run = cli("run", wf.toString(), "--store", store, "--json", "--quiet");
    assertThat(run.status()).as(run.err()).isEqualTo(exit);
    JsonNode printed = json(run);
    assertThat(printed.get("status").asText()).isEqualTo(status);
    assertThat(printed.at("/state/log")).hasSizeGreaterThanOrEqualTo(4);
    assertThat(printed.at("/state/greeting").asText()).isEqualTo("hi");

    Run show = cli("show", printed.get("run_id").asText(), "--store", store, "--json");

    assertThat(show.status()).as(show.err()).isZero();
    assertThat(json(show)).isEqualTo(printed);
  }

  @Test
  void showJsonOfARunStillRunningMergesStateLikeTheEngine_bugShowRebuiltStateWithPutAll() throws Exception {
    Path marker = dir.resolve("release");
    String yaml = PREFIX + """
          - id: hold
            depends_on: [w]
            bash: "while [ ! -f %s ]; do sleep 0.05; done; echo released"
            output: held
        """.formatted(marker);
    try (RunStore journal = JdbcStores.open(store)) {
      Loopflow engine = Loopflow.builder().store(journal).build();
      RunHandle h = engine.start(engine.parse(yaml, dir.resolve("wf.yaml").toString()), RunOptions.builder().build());
      awaitExecutions(journal, h.runId(), 6); // a, b, greet, inc, inc, w

      JsonNode shown = json(cli("show", h.runId(), "--store", store, "--json"));

      assertThat(shown.get("status").asText()).isEqualTo("running");
      assertThat(shown.at("/state/log")).extracting(JsonNode::asText).containsExactly("a", "b", "inc", "inc");
      assertThat(shown.at("/state/greeting").asText()).isEqualTo("hi");
      assertThat(shown.at("/state/count").asInt()).isEqualTo(2);
      assertThat(shown.at("/nodes/greet/status").asText()).isEqualTo("completed");
      assertThat(shown.at("/nodes/hold/status").asText()).isEqualTo("not_run");
      Files.writeString(marker, "");
      RunResult done = h.await();
      assertThat(done.status()).isEqualTo(RunStatus.COMPLETED);
      assertThat(json(cli("show", h.runId(), "--store", store, "--json")).at("/state/held").asText())
          .isEqualTo("released");
    }
  }

  @Test
  void cancelReasonReachesARunExecutingInAnotherProcess_bugCancelReasonLost() throws Exception {
    Path marker = dir.resolve("never");
    String yaml = """
        name: long
        nodes:
          - id: hold
            bash: "while [ ! -f %s ]; do sleep 0.05; done"
        """.formatted(marker);
    try (RunStore journal = JdbcStores.open(store)) {
      Loopflow engine = Loopflow.builder().store(journal).build();
      RunHandle h = engine.start(engine.parse(yaml, "long.yaml"), RunOptions.builder().build());
      awaitEvent(journal, h.runId(), "node.started");

      Run c = cli("cancel", h.runId(), "--store", store, "--reason", "changed our minds", "--wait", "60");

      assertThat(c.status()).as(c.err()).isZero();
      assertThat(c.out()).contains(h.runId() + " cancelled");
      assertThat(h.await().error().message()).contains("changed our minds");
      JsonNode shown = json(cli("show", h.runId(), "--store", store, "--json"));
      assertThat(shown.get("status").asText()).isEqualTo("cancelled");
      assertThat(shown.at("/error/message").asText()).isEqualTo("run cancelled: changed our minds");
      assertThat(cli("show", h.runId(), "--store", store).out()).contains("changed our minds");
    }
  }

  private static final String DEPLOY = """
      name: deploy
      nodes:
        - id: build
          bash: echo built
        - id: ask
          depends_on: [build]
          approval: "Ship {{ build.output }}?"
        - id: ship
          depends_on: [ask]
          bash: echo shipped
      """;

  @Test
  void aPausedRunSaysWhatItWaitsForInRunAndShowJson_bugPausedJsonLacksWaiting() throws Exception {
    Path wf = file("deploy.yaml", DEPLOY);
    Run run = cli("run", wf.toString(), "--store", store, "--json", "--quiet");
    JsonNode waiting = json(run).get("waiting");
    assertThat(waiting.get("kind").asText()).isEqualTo("approval");
    assertThat(waiting.get("node").asText()).isEqualTo("ask");
    assertThat(waiting.get("path").asText()).isEqualTo("ask");
    assertThat(waiting.get("loop").isNull()).isTrue();
    assertThat(waiting.get("iteration").isNull()).isTrue();
    assertThat(waiting.get("message").asText()).isEqualTo("Ship built?");
    assertThat(json(cli("show", json(run).get("run_id").asText(), "--store", store, "--json")).get("waiting"))
        .isEqualTo(waiting);

    Path gate = file("gate.yaml", """
        name: gate
        nodes:
          - id: g
            loop_group:
              max_iterations: 3
              interactive: true
              gate_message: "Pass {{ loop.iteration }} done; feedback?"
              nodes:
                - id: step
                  bash: echo step
        """);
    JsonNode gw = json(cli("run", gate.toString(), "--store", store, "--json", "--quiet")).get("waiting");
    assertThat(gw.get("kind").asText()).isEqualTo("input");
    assertThat(gw.get("node").asText()).isEqualTo("g");
    assertThat(gw.get("path").asText()).isEqualTo("g[1].gate");
    assertThat(gw.get("loop").asText()).isEqualTo("g");
    assertThat(gw.get("iteration").asInt()).isEqualTo(1);
    assertThat(gw.get("message").asText()).isEqualTo("Pass 1 done; feedback?");

    Run done = cli("resume", json(run).get("run_id").asText(), "--store", store, "--approve", "--json", "--quiet");
    assertThat(json(done).has("waiting")).as("only a paused run waits").isFalse();
  }

  @Test
  void aRejectedApprovalEndsTheRunAndAnApprovalAskedAgainTakesItsAnswer_bugRejectedRunShowsPaused()
      throws Exception {
    Path wf = file("deploy.yaml", DEPLOY);
    String id = json(cli("run", wf.toString(), "--store", store, "--json", "--quiet")).get("run_id").asText();

    Run rejected = cli("resume", id, "--store", store, "--reject", "--comment", "not today", "--json", "--quiet");
    assertThat(rejected.status()).isEqualTo(1);
    assertThat(json(cli("show", id, "--store", store, "--json")).get("status").asText()).isEqualTo("failed");
    assertThat(cli("show", id, "--store", store).out()).contains("failed").doesNotContain("paused");

    // Resuming the failed run asks again; the question is journaled anew, so the run is shown and answered as
    // waiting for it.
    Run again = cli("resume", id, "--store", store, "--json", "--quiet");
    assertThat(again.status()).as(again.err()).isEqualTo(3);
    assertThat(json(again).at("/waiting/node").asText()).isEqualTo("ask");
    String tree = cli("show", id, "--store", store).out();
    assertThat(tree).contains("waits for an approval at ask").containsPattern("ask\\s+paused");
    Run second = cli("resume", id, "--store", store, "--reject", "--json", "--quiet");
    assertThat(second.status()).as(second.err()).isEqualTo(1);
    assertThat(json(cli("show", id, "--store", store, "--json")).get("status").asText()).isEqualTo("failed");
    assertThat(cli("resume", id, "--store", store, "--quiet").status()).isEqualTo(3);
    Run approved = cli("resume", id, "--store", store, "--approve", "--quiet");
    assertThat(approved.status()).as(approved.err()).isZero();
    assertThat(cli("show", id, "--store", store).out()).containsPattern("ask\\s+completed")
        .containsPattern("ship\\s+completed");

    Path cont = file("continue.yaml", DEPLOY.replace("approval: \"Ship {{ build.output }}?\"",
        "approval: \"Ship {{ build.output }}?\"\n    on_reject: continue"));
    String id2 = json(cli("run", cont.toString(), "--store", store, "--json", "--quiet")).get("run_id").asText();
    Run kept = cli("resume", id2, "--store", store, "--reject", "--json", "--quiet");
    assertThat(kept.status()).as(kept.err()).isZero();
    assertThat(json(cli("show", id2, "--store", store, "--json")).get("status").asText()).isEqualTo("completed");
  }

  @Test
  void resumeReportsRunResumedAndTheStatusItEndedWith_bugResumePrintsStarted() throws Exception {
    Path wf = file("deploy.yaml", DEPLOY);
    String id = json(cli("run", wf.toString(), "--store", store, "--json", "--quiet")).get("run_id").asText();

    Run r = cli("resume", id, "--store", store, "--approve", "--comment", "ok");

    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.err()).contains("run " + id + " resumed: deploy (was paused at ask, answer ")
        .doesNotContain(" started: ").contains("run completed");
    assertThat(r.out().strip()).isEqualTo("shipped");
    List<String> types = cli("events", id, "--store", store).out().lines()
        .map(l -> readQuietly(l).get("type").asText()).toList();
    assertThat(types).containsOnlyOnce("run.started").containsOnlyOnce("run.resumed");
    assertThat(types.get(types.size() - 1)).isEqualTo("run.finished");
  }

  @Test
  void aPauseIsAnnouncedOnceWithItsMessage_bugPauseMessagePrintedTwice() throws Exception {
    Path wf = file("deploy.yaml", DEPLOY);
    for (String[] mode : List.of(new String[] {}, new String[] {"--quiet"}, new String[] {"--json"},
        new String[] {"--json", "--quiet"})) {
      String[] args = Stream.concat(Stream.of("run", wf.toString(), "--store", store), Stream.of(mode))
          .toArray(String[]::new);
      Run r = cli(args);
      assertThat(r.status()).isEqualTo(3);
      assertThat(r.err().split("Ship built\\?", -1)).as("%s in %s", List.of(mode), r.err()).hasSize(2);
      assertThat(r.err()).contains("--approve | --reject");
    }
  }

  @Test
  void anAnswerThatDoesNotFitWhatTheRunWaitsForIsAUsageError() throws Exception {
    Path wf = file("deploy.yaml", DEPLOY);
    Run r = cli("run", wf.toString(), "--store", store, "--answer", "maybe", "--json", "--quiet");
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("--answer 'maybe'").contains("answer approve or reject");
    assertThat(json(r).get("status").asText()).isEqualTo("paused");
  }

  private static final String LLM_THEN_APPROVAL = """
      name: drafted
      defaults: {model: "openai:gpt-4o-mini"}
      nodes:
        - id: draft
          prompt: "Draft a tagline"
        - id: ask
          depends_on: [draft]
          approval: "Use {{ draft.output }}?"
        - id: polish
          depends_on: [ask]
          prompt: "Polish {{ draft.output }}"
      """;

  @Test
  void aRunStartedWithAMockScriptResumesWithItWithoutTheFlag_bugResumeCallsRealProvider() throws Exception {
    Path wf = file("drafted.yaml", LLM_THEN_APPROVAL);
    Path script = file("answers.yaml", """
        draft: ["Loops that end."]
        polish: ["Loops that always end."]
        """);
    Run first = cli("run", wf.toString(), "--store", store, "--mock-script", script.toString(), "--json", "--quiet");
    assertThat(first.status()).as(first.err()).isEqualTo(3);
    String id = json(first).get("run_id").asText();
    Files.delete(script); // the script is kept with the run, not read again from the file

    Run done = cli("resume", id, "--store", store, "--approve", "--json", "--quiet");

    assertThat(done.status()).as(done.err()).isZero();
    assertThat(done.err()).contains("started with the mock LLM provider; it resumes with it and the mock script");
    JsonNode r = json(done);
    assertThat(r.at("/nodes/polish/provider").asText()).isEqualTo("mock");
    assertThat(r.get("output").asText()).isEqualTo("Loops that always end.");
  }

  @Test
  void mockLlmTakesNoArgumentSoTheWorkflowFileIsNeverTakenForAScript_bugMockLlmSwallowedWorkflowFile()
      throws Exception {
    Path wf = file("mocked.yaml", """
        name: mocked
        defaults: {model: "openai:gpt-4o-mini"}
        nodes:
          - id: draft
            prompt: "Draft a tagline"
        mock:
          responses: ["From the workflow's mock block."]
        """);
    Run r = cli("run", "--mock-llm", wf.toString(), "--store", store, "--json", "--quiet");
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(json(r).get("output").asText()).isEqualTo("From the workflow's mock block.");

    Run missing = cli("run", wf.toString(), "--store", store, "--mock-script", dir.resolve("nope.json").toString());
    assertThat(missing.status()).isEqualTo(2);
    assertThat(missing.err()).contains("--mock-script").contains("no such file");
    Path notAScript = file("scalar.json", "42");
    Run bad = cli("run", wf.toString(), "--store", store, "--mock-script", notAScript.toString());
    assertThat(bad.status()).isEqualTo(2);
    assertThat(bad.err()).contains("must hold a list of responses or a map");
  }

  @Test
  void anEventsFileThatCannotBeWrittenIsReportedNotSilentlyTruncated_bugListenerFailureSilent() throws Exception {
    Path wf = file("deploy.yaml", DEPLOY.replace("approval: \"Ship {{ build.output }}?\"", "bash: echo asked"));
    Run r = cli("run", wf.toString(), "--store", store, "--quiet", "--events-jsonl", "/dev/full");
    // The run completed, but what the user asked for (the events file) is incomplete: exit 1, said in one line.
    assertThat(r.status()).as(r.err()).isEqualTo(1);
    assertThat(r.err()).contains("--events-jsonl /dev/full: writing failed").contains("loopflow events run_");
  }

  private static JsonNode readQuietly(String line) {
    try {
      return JSON.readTree(line);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Waits until the run journaled {@code n} node executions (the engine runs in this process, on its own threads). */
  private static void awaitExecutions(RunStore journal, String runId, int n) throws InterruptedException {
    while (journal.nodeExecutions(runId).size() < n) {
      Thread.sleep(20);
    }
  }

  private static void awaitEvent(RunStore journal, String runId, String type) throws InterruptedException {
    while (journal.events(runId).stream().noneMatch(e -> e.type().equals(type))) {
      Thread.sleep(20);
    }
  }
}
