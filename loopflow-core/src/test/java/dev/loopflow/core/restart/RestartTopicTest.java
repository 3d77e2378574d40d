package dev.loopflow.core.restart;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.event.Events;
import dev.loopflow.core.run.RestartRequest;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.RunStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** {@code restart_topic} names what restart requests are published under: every restart event carries it. */
class RestartTopicTest {
  private final RunStore store = RunStore.inMemory();

  private static String abc(String topic) {
    return """
        workflow_pattern:
          iterative:
            pipeline:
              stages:
                - {agent_id: a, prompt_template: "a"}
                - {agent_id: b, prompt_template: "b"}
            max_iterations: 3
            restart_policy: {enabled: true, max_validation_retries: 0}
            TOPIC
        """.replace("TOPIC", topic == null ? "" : "restart_topic: " + topic);
  }

  private List<Event> run(String yaml) {
    List<Event> events = Collections.synchronizedList(new ArrayList<>());
    AtomicReference<Loopflow> lf = new AtomicReference<>();
    HostileAgent agent = new HostileAgent(Map.of("b", c -> {
      if (c.n() == 0) {
        lf.get().requestRestart(c.ctx().runId(), new RestartRequest(null, "a", "again", Map.of(), 0, 0));
        lf.get().requestRestart(c.ctx().runId(), new RestartRequest(null, "nope", "bad", Map.of(), 0, 0));
      }
      return "{\"ok\": true}";
    }));
    lf.set(Loopflow.builder().discover(false).handler(agent).store(store).build());
    RunResult r = lf.get().run(lf.get().parse(yaml, "t.yaml"), RunOptions.builder().listener(events::add).build());
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    return events;
  }

  private static List<Map<String, Object>> restartEvents(List<Event> events) {
    return events.stream().map(Events::toMap).filter(m -> String.valueOf(m.get("type")).startsWith("restart."))
        .toList();
  }

  @Test
  void everyRestartEventCarriesThePolicysTopic_bugRestartTopicWasValidatedButHadNoEffect() {
    List<Map<String, Object>> restart = restartEvents(run(abc("npath-discovery.restart")));
    assertThat(restart).extracting(m -> m.get("type"))
        .contains("restart.requested", "restart.accepted", "restart.rejected");
    assertThat(restart).allSatisfy(m -> assertThat(m).containsEntry("topic", "npath-discovery.restart"));
  }

  @Test
  void withoutARestartTopicEventsCarryTheDefault() {
    assertThat(restartEvents(run(abc(null)))).isNotEmpty()
        .allSatisfy(m -> assertThat(m).containsEntry("topic", "workflow.restart"));
  }
}
