package dev.loopflow.store.jdbc.workers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.run.ResumeInput;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A queued resume carries the form's values to the worker, exactly as given (the engine checks them there). */
class RunTaskValuesTest {
  @Test
  void theValuesOfAnAnswerSurviveTheTaskData() {
    ResumeInput given = ResumeInput.approve("ok").withValues(Map.of("version", "1.2", "replicas", 3,
        "notify", true, "ratio", 0.5));
    ResumeInput read = RunTasks.answer(RunTasks.data(given));
    assertThat(read).isEqualTo(given);
    assertThat(RunTasks.answer(RunTasks.data(ResumeInput.text("more")))).isEqualTo(ResumeInput.text("more"));
  }

  @Test
  void valuesThatAreNotAnObjectAreDropped() {
    for (String data : List.of("{\"answer\":{\"decision\":\"approved\",\"values\":[1]}}",
        "{\"answer\":{\"decision\":\"approved\",\"values\":\"x\"}}")) {
      assertThat(RunTasks.answer(data).values()).isNull();
    }
  }
}
