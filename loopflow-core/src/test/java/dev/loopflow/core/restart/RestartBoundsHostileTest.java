package dev.loopflow.core.restart;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.RunStore;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A pipeline whose every stage asks to go back, under each bound: the run always ends within the bound, with the
 * bound's error code, and every request is answered.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RestartBoundsHostileTest {
  private final RunStore store = RunStore.inMemory();
  private HostileAgent agent;

  /** Every stage asks for a restart of the stage before it, and the last also of the first. */
  private static final Map<String, HostileAgent.Reply> RESTLESS = Map.of(
      "a", c -> {
        c.ctx().requestRestart("a", "myself", Map.of());
        return "a";
      },
      "b", c -> {
        c.ctx().requestRestart("a", "again", Map.of());
        return "b";
      },
      "c", c -> {
        c.ctx().requestRestart("b", "again", Map.of());
        c.ctx().requestRestart("a", "again", Map.of());
        return "c";
      });

  private static String pipeline(String policy, String top) {
    return """
        workflow_pattern:
          iterative:
            pipeline:
              stages:
                - {agent_id: a, prompt_template: "a"}
                - {agent_id: b, prompt_template: "b"}
                - {agent_id: c, prompt_template: "c"}
            %s
            restart_policy: {enabled: true, max_validation_retries: 0, cooldown_seconds: 0}
        %s
        """.formatted(policy, top);
  }

  private RunResult run(String yaml, Map<String, HostileAgent.Reply> replies) {
    agent = new HostileAgent(replies);
    Loopflow lf = Loopflow.builder().discover(false).handler(agent).store(store).build();
    Workflow wf = lf.parse(yaml, "bounds.yaml");
    return lf.run(wf, RunOptions.defaults());
  }

  private int executions() {
    return agent.calls("a") + agent.calls("b") + agent.calls("c");
  }

  private void everyRequestAnswered(RunResult r) {
    assertThat(store.commands(r.runId())).allSatisfy(c -> assertThat(c.response()).isNotNull());
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 7, 100})
  void restartsAtEveryStageEndAtMaxIterations(int max) {
    RunResult r = run(pipeline("max_iterations: " + max, ""), RESTLESS);
    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("max_iterations_exceeded");
    assertThat(r.pipeline()).containsEntry("iterations_executed", max);
    // each iteration runs a and b; the bound refuses b's request in the last one
    assertThat(agent.calls("a")).isEqualTo(max);
    assertThat(agent.calls("c")).isZero();
    everyRequestAnswered(r);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 100})
  void withOnExhaustedContinueTheRunCompletesAfterTheLastIteration(int max) {
    RunResult r = run(pipeline("max_iterations: " + max + "\n    on_exhausted: continue", ""), RESTLESS);
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.pipeline()).containsEntry("iterations_executed", max);
    assertThat(agent.calls("c")).isEqualTo(1);
    everyRequestAnswered(r);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 5, 50})
  void restartsAtEveryStageEndAtMaxSteps(int steps) {
    RunResult r = run(pipeline("max_iterations: 100", "limits: {max_steps: " + steps + "}"), RESTLESS);
    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("max_steps_exceeded");
    assertThat(executions()).isLessThanOrEqualTo(steps);
    everyRequestAnswered(r);
  }

  @Test
  void restartsAtEveryStageEndAtTheRunTimeout() {
    CountDownLatch never = new CountDownLatch(1);
    Map<String, HostileAgent.Reply> replies = Map.of(
        "a", RESTLESS.get("a"),
        "b", c -> {
          if (c.n() >= 20) {
            never.await(); // stuck from the 21st iteration on: only the run's timeout ends it
          }
          c.ctx().requestRestart("a", "again", Map.of());
          return "b";
        });
    RunResult r = run(pipeline("max_iterations: 100", "limits: {timeout: 1s}"), replies);
    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("timeout");
    assertThat(agent.calls("b")).isBetween(1, 21);
    assertThat(r.pipeline()).containsEntry("iterations_executed", agent.calls("a"));
  }

  @Test
  void aCooldownRefusesTheRepeatedRestartsAndTheRunCompletes() {
    RunResult r = run(pipeline("max_iterations: 100", "").replace("cooldown_seconds: 0", "cooldown_seconds: 3600"),
        RESTLESS);
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    // b restarts a once, c restarts b once; every later request for either is refused by its cooldown
    assertThat(r.pipeline()).containsEntry("iterations_executed", 3);
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> requests = (List<Map<String, Object>>) r.pipeline().get("restart_requests");
    assertThat(requests).anySatisfy(q -> assertThat(String.valueOf(q.get("error"))).contains(
        "restart_cooldown_not_elapsed"));
    everyRequestAnswered(r);
  }
}
