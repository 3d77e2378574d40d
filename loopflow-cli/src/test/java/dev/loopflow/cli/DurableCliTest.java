package dev.loopflow.cli;

import static dev.loopflow.cli.CliTest.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loopflow.cli.CliTest.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs journaled to a SQLite file and continued by later commands, each of which opens the store afresh as a new
 * process would: approvals, failed runs, changed workflow files, cancel, and the inspection commands.
 */
class DurableCliTest {
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
  void anApprovalPausesWithExitThreeAndAnApproveInALaterCommandFinishesTheRun() throws Exception {
    Path wf = file("deploy.yaml", DEPLOY);
    Run first = cli("run", wf.toString(), "--store", store, "--json", "--quiet");
    assertThat(first.status()).as(first.err()).isEqualTo(3);
    JsonNode paused = json(first);
    String id = paused.get("run_id").asText();
    assertThat(paused.get("status").asText()).isEqualTo("paused");
    assertThat(paused.at("/nodes/ask/status").asText()).isEqualTo("paused");
    assertThat(first.err()).contains("loopflow resume " + id + " --approve | --reject");

    Run noAnswer = cli("resume", id, "--store", store, "--quiet");
    assertThat(noAnswer.status()).isEqualTo(2);
    assertThat(noAnswer.err()).contains("waits for an approval at ask: Ship built?");

    Run done = cli("resume", id, "--store", store, "--approve", "--comment", "looks good", "--json", "--quiet");
    assertThat(done.status()).as(done.err()).isZero();
    JsonNode r = json(done);
    assertThat(r.at("/nodes/ask/decision").asText()).isEqualTo("approved");
    assertThat(r.at("/nodes/ask/comment").asText()).isEqualTo("looks good");
    assertThat(r.at("/nodes/ship/output").asText()).isEqualTo("shipped");

    Run again = cli("resume", id, "--store", store, "--approve");
    assertThat(again.status()).isEqualTo(2);
    assertThat(again.err()).contains("is completed");
  }

  @Test
  void aRejectionFailsTheApprovalNodeAndNothingAfterItRuns() throws Exception {
    Path wf = file("deploy.yaml", DEPLOY);
    String id = json(cli("run", wf.toString(), "--store", store, "--json", "--quiet")).get("run_id").asText();
    Run r = cli("resume", id, "--store", store, "--reject", "--comment", "not today", "--json", "--quiet");
    assertThat(r.status()).isEqualTo(1);
    JsonNode j = json(r);
    assertThat(j.at("/error/node").asText()).isEqualTo("ask");
    assertThat(j.at("/error/message").asText()).contains("rejected: not today");
    assertThat(j.at("/nodes/ship/status").asText()).isNotEqualTo("completed");
  }

  @Test
  void onRejectContinueLetsTheWorkflowBranchOnTheDecision() throws Exception {
    Path wf = file("branch.yaml", """
        name: branch
        nodes:
          - id: ask
            type: approval
            message: "Publish?"
            on_reject: continue
          - id: publish
            depends_on: [ask]
            when: "{{ ask.approved }}"
            bash: echo published
          - id: archive
            depends_on: [ask]
            when: "{{ not ask.approved }}"
            bash: echo archived
        """);
    String id = json(cli("run", wf.toString(), "--store", store, "--json", "--quiet")).get("run_id").asText();
    Run r = cli("resume", id, "--store", store, "--input", "reject", "--json", "--quiet");
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(json(r).at("/nodes/archive/output").asText()).isEqualTo("archived");
    assertThat(json(r).at("/nodes/publish/status").asText()).isEqualTo("skipped");
  }

  @Test
  void anUnansweredApprovalTakesItsDefaultDecisionOnceItsTimeoutHasPassed() throws Exception {
    Path wf = file("timed.yaml", """
        name: timed
        nodes:
          - id: ask
            approval: "Proceed?"
            timeout: 5s
            default: approve
          - id: go
            depends_on: [ask]
            bash: echo went
        """);
    // An approval's timeout is wall-clock time, journaled as a deadline so that it holds across processes: the test
    // has to let real time pass. The first command pauses right after journaling the question; 5 s leave a loaded
    // machine, which may stall a thread for a good fraction of a second, ample room to pause before the deadline.
    // The resume waits for the journaled deadline itself, not a guessed delay.
    Run first = cli("run", wf.toString(), "--store", store, "--json", "--quiet");
    assertThat(first.status()).isEqualTo(3);
    assertThat(first.err()).contains("unanswered by").contains("approve");
    String id = json(first).get("run_id").asText();
    Instant deadline = Instant.parse(json(first).at("/nodes/ask/deadline").asText());
    for (Instant now = Instant.now(); now.isBefore(deadline); now = Instant.now()) {
      Thread.sleep(Duration.between(now, deadline).toMillis() + 1);
    }
    Run r = cli("resume", id, "--store", store, "--json", "--quiet");
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(json(r).at("/nodes/ask/timed_out").asBoolean()).isTrue();
    assertThat(json(r).at("/nodes/go/output").asText()).isEqualTo("went");
  }

  @Test
  void aFailedRunResumesWithoutRepeatingCompletedNodes() throws Exception {
    Path marker = dir.resolve("ready");
    Path log = dir.resolve("log.txt");
    Path wf = file("flaky.yaml", """
        name: flaky
        nodes:
          - id: prepare
            bash: echo prepared >> %s; echo prepared
          - id: check
            depends_on: [prepare]
            bash: test -f %s && echo ok
        """.formatted(log, marker));
    Run failed = cli("run", wf.toString(), "--store", store, "--json", "--quiet");
    assertThat(failed.status()).isEqualTo(1);
    String id = json(failed).get("run_id").asText();
    assertThat(failed.err()).contains("loopflow resume " + id);
    Files.writeString(marker, "");
    Run r = cli("resume", id, "--store", store, "--json", "--quiet");
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(json(r).at("/nodes/check/output").asText()).isEqualTo("ok");
    assertThat(Files.readAllLines(log)).containsExactly("prepared");
  }

  @Test
  void resumeRefusesAChangedWorkflowFileUnlessToldWhichVersionToUse() throws Exception {
    Path wf = file("deploy.yaml", DEPLOY);
    String id = json(cli("run", wf.toString(), "--store", store, "--json", "--quiet")).get("run_id").asText();
    Files.writeString(wf, DEPLOY.replace("echo shipped", "echo shipped v2"));
    Run refused = cli("resume", id, "--store", store, "--approve", "--quiet");
    assertThat(refused.status()).isEqualTo(2);
    assertThat(refused.err()).contains("changed since run " + id).contains("--original").contains("--force");
    Run original = cli("resume", id, "--store", store, "--approve", "--original", "--json", "--quiet");
    assertThat(original.status()).as(original.err()).isZero();
    assertThat(json(original).at("/nodes/ship/output").asText()).isEqualTo("shipped");

    String id2 = json(cli("run", wf.toString(), "--store", store, "--json", "--quiet")).get("run_id").asText();
    Files.writeString(wf, DEPLOY.replace("echo shipped", "echo shipped v3"));
    Run forced = cli("resume", id2, "--store", store, "--approve", "--force", "--json", "--quiet");
    assertThat(forced.status()).as(forced.err()).isZero();
    assertThat(json(forced).at("/nodes/ship/output").asText()).isEqualTo("shipped v3");
  }

  @Test
  void aPausedRunIsCancelledFromAnotherCommandAndCannotBeResumed() throws Exception {
    Path wf = file("deploy.yaml", DEPLOY);
    String id = json(cli("run", wf.toString(), "--store", store, "--json", "--quiet")).get("run_id").asText();
    Run c = cli("cancel", id, "--store", store, "--reason", "changed our minds");
    assertThat(c.status()).as(c.err()).isZero();
    assertThat(c.out()).contains(id + " cancelled");
    Run shown = cli("show", id, "--store", store, "--json");
    assertThat(json(shown).get("status").asText()).isEqualTo("cancelled");
    assertThat(json(shown).at("/error/message").asText()).contains("changed our minds");
    assertThat(cli("resume", id, "--store", store, "--approve").status()).isEqualTo(2);
    Run events = cli("events", id, "--store", store);
    List<String> lines = events.out().lines().toList();
    assertThat(JSON.readTree(lines.get(lines.size() - 1)).get("type").asText()).isEqualTo("run.finished");
  }

  @Test
  void aLoopWithoutAnOutputShowsNothingForIt_bugShowPrintedNull() throws Exception {
    Path wf = file("all-fail.yaml", """
        name: all-fail
        nodes:
          - id: refine
            loop_group:
              max_iterations: 2
              nodes:
                - id: check
                  allow_failure: true
                  run: |
                    error("rejected")
        """);
    Run run = cli("run", wf.toString(), "--store", store, "--quiet", "--run-id", "run_all_fail");
    assertThat(run.status()).as(run.err()).isZero();
    Run shown = cli("show", "run_all_fail", "--store", store);
    assertThat(shown.out()).contains("refine  completed").doesNotContain("null");
  }

  @Test
  void runsShowAndEventsReadAStoreReopenedByALaterCommand() throws Exception {
    Path wf = file("counter.yaml", """
        name: counter
        input:
          count: {type: integer, default: 0}
        nodes:
          - name: count_loop
            type: while_loop
            max_iterations: 5
            condition: "state.count < 3"
            body:
              - name: increment
                run: |
                  return { count = state.count + 1 }
        """);
    Run run = cli("run", wf.toString(), "--store", store, "--json", "--quiet", "--run-id", "run_counter_1");
    assertThat(run.status()).as(run.err()).isZero();

    Run list = cli("runs", "--store", store, "--json");
    JsonNode runs = JSON.readTree(list.out());
    assertThat(runs).hasSize(1);
    assertThat(runs.get(0).get("run_id").asText()).isEqualTo("run_counter_1");
    assertThat(runs.get(0).get("workflow").asText()).isEqualTo("counter");
    assertThat(runs.get(0).get("status").asText()).isEqualTo("completed");
    assertThat(runs.get(0).get("iterations").asInt()).isEqualTo(3);
    assertThat(runs.get(0).has("started_at")).isTrue();
    assertThat(cli("runs", "--store", store, "--status", "failed", "--json").out()).contains("[ ]");
    assertThat(cli("runs", "--store", store).out()).contains("run_counter_1").contains("completed");

    Run show = cli("show", "run_counter_1", "--store", store, "--json");
    assertThat(json(show)).isEqualTo(json(run));
    String tree = cli("show", "run_counter_1", "--store", store).out();
    assertThat(tree).contains("count_loop").contains("pass 1").contains("pass 3").contains("increment");

    Run events = cli("events", "run_counter_1", "--store", store, "--json");
    List<String> lines = events.out().lines().toList();
    assertThat(JSON.readTree(lines.get(0)).get("type").asText()).isEqualTo("run.started");
    // three passes, then the check that ended the loop
    assertThat(lines).filteredOn(l -> l.contains("\"loop.iteration\"")).hasSize(4);
    assertThat(lines).filteredOn(l -> l.contains("\"condition_result\":false")).hasSize(1);

    Run dup = cli("run", wf.toString(), "--store", store, "--run-id", "run_counter_1");
    assertThat(dup.status()).isEqualTo(2);
    assertThat(dup.err()).contains("already in the store");
  }

  @Test
  void anInteractiveLoopGatePausesAndLaterCommandsAnswerItWithoutRepeatingPasses() throws Exception {
    String example = "../examples/loop-group-interactive.yaml";
    Run first = cli("run", example, "--store", store, "--mock-llm", "--json", "--quiet");
    assertThat(first.status()).as(first.err()).isEqualTo(3);
    String id = json(first).get("run_id").asText();
    assertThat(first.err()).contains("loopflow resume " + id + " --input TEXT");
    assertThat(cli("resume", id, "--store", store, "--approve").status()).as("not an approval").isEqualTo(2);

    Run second = cli("resume", id, "--store", store, "--mock-llm", "--input", "make it shorter", "--json", "--quiet");
    assertThat(second.status()).as(second.err()).isEqualTo(3);
    Run done = cli("resume", id, "--store", store, "--mock-llm", "--input", "approve", "--json", "--quiet");
    assertThat(done.status()).as(done.err()).isZero();
    // The same answers given in one process: the result must not depend on where the run was continued.
    Run oneGo = cli("run", example, "--store", store, "--mock-llm", "--json", "--quiet", "--answer", "make it shorter",
        "--answer", "approve");
    assertThat(json(done).get("output")).isEqualTo(json(oneGo).get("output"));
    assertThat(json(done).at("/usage/llm_calls").asInt()).isEqualTo(json(oneGo).at("/usage/llm_calls").asInt());
  }
}
