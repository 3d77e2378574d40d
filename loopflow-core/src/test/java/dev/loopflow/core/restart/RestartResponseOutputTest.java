package dev.loopflow.core.restart;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.run.RestartRequest;
import dev.loopflow.core.run.RestartResponse;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.RunStore;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A restart's response carries the output of the stage the run went back to, once that stage has run again; a
 * refused request has none.
 */
class RestartResponseOutputTest {
  private final RunStore store = RunStore.inMemory();

  private static final String ABC = """
      workflow_pattern:
        iterative:
          pipeline:
            stages:
              - {agent_id: a, prompt_template: "a"}
              - {agent_id: b, prompt_template: "b"}
              - {agent_id: c, prompt_template: "c"}
          max_iterations: 3
          restart_policy: {enabled: true, max_validation_retries: 0}
      """;

  @Test
  void anAcceptedRestartsResponseCarriesTheRestartedStagesOutput_bugOutputWasAlwaysNull() {
    AtomicReference<Long> accepted = new AtomicReference<>();
    AtomicReference<Long> refused = new AtomicReference<>();
    AtomicReference<Loopflow> lf = new AtomicReference<>();
    HostileAgent agent = new HostileAgent(Map.of(
        "a", c -> "{\"draft\": " + (c.n() + 1) + "}",
        "c", c -> {
          if (c.n() == 0) {
            accepted.set(lf.get().requestRestart(c.ctx().runId(), new RestartRequest(null, "a", "again", Map.of(),
                0, 0)));
            refused.set(lf.get().requestRestart(c.ctx().runId(), new RestartRequest(null, "nope", "bad target",
                Map.of(), 0, 0)));
          }
          return "{\"done\": true}";
        }));
    lf.set(Loopflow.builder().discover(false).handler(agent).store(store).build());
    RunResult r = lf.get().run(lf.get().parse(ABC, "abc.yaml"), RunOptions.defaults());
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(agent.calls("a")).isEqualTo(2);

    RestartResponse yes = lf.get().restartResponse(r.runId(), accepted.get()).orElseThrow();
    assertThat(yes.success()).isTrue();
    assertThat(yes.iteration()).isEqualTo(2);
    assertThat(yes.output()).isEqualTo("{\"draft\": 2}");
    assertThat(yes.toMap()).containsEntry("output", "{\"draft\": 2}");

    RestartResponse no = lf.get().restartResponse(r.runId(), refused.get()).orElseThrow();
    assertThat(no.success()).isFalse();
    assertThat(no.output()).isNull();
  }
}
