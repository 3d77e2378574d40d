package dev.loopflow.core.restart;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.MemoryEntry;
import dev.loopflow.core.store.RunStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The WORKFLOW shared-memory namespace lives as long as its run can be resumed: a failed run keeps it (its resumed
 * stages read what the earlier ones stored, as the cut-output notice tells them to), and it goes when the run
 * completes or is cancelled.
 */
class ResumableMemoryTest {
  private static final String V = ScriptedAgent.VALID;
  private final RunStore store = RunStore.inMemory();

  private static final String TWO_STAGES = """
      workflow_pattern:
        iterative:
          pipeline:
            stages:
              - {agent_id: a, prompt_template: "do a"}
              - {agent_id: b, prompt_template: "build on {{previous}}"}
          restart_policy: {enabled: true, max_validation_retries: 1}
      """;

  @Test
  void aFailedRunKeepsItsWorkflowMemoryForItsResume_bugItWasWipedAndTheResumedStageReadAGoneKey() throws Exception {
    String big = "{\"inputs\": {}, \"outputs\": {\"x\": \"" + "y".repeat(10_000) + "\"}, \"evidence\": {}}";
    ScriptedAgent agent = new ScriptedAgent(Map.of("a", List.of(big), "b", List.of("nope", "nope", V)));
    Loopflow lf = Loopflow.builder().discover(false).handler(agent).store(store).build();
    Workflow wf = lf.parse(TWO_STAGES, "pipeline.yaml");

    RunResult failed = lf.run(wf, RunOptions.builder().build());
    assertThat(failed.status()).isEqualTo(RunStatus.FAILED);
    assertThat(failed.error().code()).isEqualTo("validation_retry_exhausted");
    assertThat(agent.promptsOf("b").get(0)).contains("key=\"stage-1-output\"");
    assertThat(store.getMemory(failed.runId(), "WORKFLOW", "stage-1-output"))
        .as("the key the resumed stage's prompt names").isPresent();

    RunResult resumed = lf.resume(wf, failed.runId(), ResumeInput.none(), RunOptions.builder().build(), false)
        .await(Duration.ofMinutes(1)).orElseThrow();
    assertThat(resumed.status()).as(String.valueOf(resumed.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(agent.calls("a")).as("a completed before and is not run again").isEqualTo(1);
    assertThat(agent.promptsOf("b").get(2)).contains("key=\"stage-1-output\"");
    assertThat(store.listMemory(failed.runId(), "WORKFLOW", "")).as("gone once the run completed").isEmpty();
  }

  @Test
  void cancellingAPausedRunDropsItsWorkflowMemory_bugItWasLeftBehind() throws Exception {
    Loopflow lf = Loopflow.builder().discover(false).store(store).build();
    Workflow wf = lf.parse("""
        restart_policy: {enabled: true}
        nodes:
          - {id: ask, approval: "go on?"}
        """, "paused.yaml");
    RunResult paused = lf.run(wf, RunOptions.builder().build());
    assertThat(paused.status()).isEqualTo(RunStatus.PAUSED);
    store.putMemory(new MemoryEntry(paused.runId(), "WORKFLOW", "note", "kept while paused"
        .getBytes(StandardCharsets.UTF_8), false, Map.of(), Instant.now()));

    assertThat(lf.cancel(paused.runId(), "no longer needed", Duration.ofSeconds(30))).isEqualTo(RunStatus.CANCELLED);

    assertThat(store.listMemory(paused.runId(), "WORKFLOW", "")).isEmpty();
  }

  @Test
  void cancellingAPausedRunKeepsWorkflowMemoryThePolicyKeeps() throws Exception {
    Loopflow lf = Loopflow.builder().discover(false).store(store).build();
    Workflow wf = lf.parse("""
        restart_policy: {enabled: true, keep_shared_memory: true}
        nodes:
          - {id: ask, approval: "go on?"}
        """, "paused.yaml");
    RunResult paused = lf.run(wf, RunOptions.builder().build());
    store.putMemory(new MemoryEntry(paused.runId(), "WORKFLOW", "note", "kept".getBytes(StandardCharsets.UTF_8),
        false, Map.of(), Instant.now()));

    assertThat(lf.cancel(paused.runId(), "no longer needed", Duration.ofSeconds(30))).isEqualTo(RunStatus.CANCELLED);

    assertThat(store.listMemory(paused.runId(), "WORKFLOW", "")).hasSize(1);
  }
}
