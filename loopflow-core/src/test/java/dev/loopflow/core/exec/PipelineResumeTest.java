package dev.loopflow.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.restart.ScriptedAgent;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A pipeline whose journal write fails at any point (the store refusing it, as a full disk would; the run stops
 * there as a killed one does) resumes to the result of a run that was never interrupted: the same restarts, the
 * same pipeline summary, the same outputs, and completed stages are not run again.
 */
class PipelineResumeTest {
  private static final String V = ScriptedAgent.VALID;
  private static final String WORKFLOW = """
      workflow_pattern:
        iterative:
          pipeline:
            stages:
              - {agent_id: discover, prompt_template: "discover {{ loop.iteration }}"}
              - {agent_id: build, prompt_template: "build from {{previous}}"}
              - {agent_id: report, prompt_template: "report {{previous}}"}
          max_iterations: 4
          restart_policy: {enabled: true, preserve_outputs: false, restartable_stages: [discover]}
      """;
  private static final Map<String, List<String>> REPLIES = Map.of(
      "build@1", List.of("@restart discover events missing"),
      "build@2", List.of("{\"inputs\": {}, \"outputs\": {}, \"evidence\": {}, \"restart\": {\"target_stage_id\": "
          + "\"build\", \"reason\": \"forward\"}}"),
      "report@2", List.of("@restart discover once more"));

  private static RunResult uninterrupted() {
    FaultyStore store = new FaultyStore();
    Loopflow engine = Loopflow.builder().discover(false).handler(new ScriptedAgent(REPLIES)).store(store).build();
    return engine.run(engine.parse(WORKFLOW, "p.yaml"), RunOptions.builder().build());
  }

  static IntStream writes() {
    return IntStream.rangeClosed(1, 14);
  }

  @ParameterizedTest(name = "journal write {0} refused")
  @MethodSource("writes")
  void aPipelineStoppedAtAnyJournalWriteResumesToTheUninterruptedResult(int k) throws Exception {
    RunResult expected = uninterrupted();
    assertThat(expected.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(expected.pipeline()).containsEntry("iterations_executed", 3);

    FaultyStore store = new FaultyStore();
    store.failExecution = n -> n == k;
    ScriptedAgent agent = new ScriptedAgent(REPLIES);
    Loopflow engine = Loopflow.builder().discover(false).handler(agent).store(store).build();
    Workflow wf = engine.parse(WORKFLOW, "p.yaml");
    RunResult first = engine.run(wf, RunOptions.builder().build());
    if (store.refused.isEmpty()) {
      assertThat(first.pipeline()).isEqualTo(expected.pipeline());
      return;
    }
    assertThat(first.status()).isEqualTo(RunStatus.FAILED);
    store.heal();
    RunResult resumed = engine.resume(wf, first.runId(), ResumeInput.none(), RunOptions.builder().build(), false)
        .await();
    assertThat(resumed.status()).as("%s", resumed.error()).isEqualTo(RunStatus.COMPLETED);
    assertThat(resumed.pipeline()).isEqualTo(expected.pipeline());
    assertThat(resumed.output()).isEqualTo(expected.output());
    assertThat(resumed.nodes().keySet()).isEqualTo(expected.nodes().keySet());
    // Each stage ran once per iteration, plus at most the one execution whose journal write was refused.
    int total = agent.calls("discover") + agent.calls("build") + agent.calls("report");
    assertThat(total).isBetween(8, 9);
  }
}
