package dev.loopflow.store.jdbc.workers;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.github.kagkarlsson.scheduler.serializer.Serializer;
import com.github.kagkarlsson.scheduler.task.ExecutionHandler;
import com.github.kagkarlsson.scheduler.task.helper.CustomTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import dev.loopflow.core.run.ResumeInput;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one db-scheduler task of the queue: {@code loopflow-run}, one instance per queued run, its instance id the run
 * id. Its data is a small JSON object: the answer to give the run when it is resumed (empty for a new run or a
 * crashed one). Everything else a worker needs (the workflow, inputs, options, working directory) is in the run's
 * journal, so nothing the journal masks is ever written to the queue.
 */
final class RunTasks {
  static final String TABLE = "lf_scheduled_tasks";
  static final String TASK = "loopflow-run";
  /**
   * The channel a queued run is announced on, once its queue row is committed, so that idle workers take it at
   * once instead of at their next poll.
   */
  static final String CHANNEL = "loopflow_run_queue";
  private static final ObjectMapper JSON = JsonMapper.builder().build();

  private RunTasks() {}

  /** The task as the queue and the workers both declare it; only workers give it a handler. */
  static CustomTask<String> task(ExecutionHandler<String> handler) {
    return Tasks.custom(TASK, String.class)
        .onDeadExecutionRevive()
        // A handler that throws (the store went away) is retried soon; the run's journal decides what is left.
        .onFailure(new com.github.kagkarlsson.scheduler.task.FailureHandler.OnFailureRetryLater<>(
            Duration.ofSeconds(5)))
        .execute(handler);
  }

  /**
   * Tells listening workers that a run may be waiting (its row committed before this is called). Best effort: a
   * notification that cannot be sent is only a missed shortcut, since workers also poll.
   */
  static void announce(DataSource queue) {
    try (Connection c = queue.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT pg_notify(?, '')")) {
      ps.setString(1, CHANNEL);
      ps.execute();
    } catch (SQLException | RuntimeException e) {
      // Workers find the run at their next poll.
    }
  }

  /** Task data as UTF-8 JSON text: never Java serialization, whose reading of stored bytes could run code. */
  static final Serializer TEXT = new Serializer() {
    @Override
    public byte[] serialize(Object data) {
      return data == null ? null : ((String) data).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public <T> T deserialize(Class<T> clazz, byte[] bytes) {
      return clazz.cast(bytes == null ? "" : new String(bytes, StandardCharsets.UTF_8));
    }
  };

  static String data(ResumeInput answer) {
    Map<String, Object> m = new LinkedHashMap<>();
    if (answer != null && !answer.isEmpty()) {
      Map<String, Object> a = new LinkedHashMap<>();
      a.put("text", answer.text());
      a.put("decision", answer.decision() == null ? null : answer.decision().json());
      a.put("comment", answer.comment());
      if (answer.values() != null) {
        a.put("values", answer.values());
      }
      m.put("answer", a);
    }
    try {
      return JSON.writeValueAsString(m);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The answer in task data; none for empty or unreadable data (a row edited by hand is treated as a plain run). */
  static ResumeInput answer(String data) {
    if (data == null || data.isBlank()) {
      return ResumeInput.none();
    }
    try {
      Object a = JSON.readValue(data, Map.class).get("answer");
      if (!(a instanceof Map<?, ?> m)) {
        return ResumeInput.none();
      }
      String text = m.get("text") instanceof String s ? s : null;
      String comment = m.get("comment") instanceof String s ? s : null;
      ResumeInput.Decision decision = m.get("decision") instanceof String s ? ResumeInput.Decision.parse(s) : null;
      // The form's values travel as given; the engine checks them against the form when the worker resumes.
      @SuppressWarnings("unchecked")
      Map<String, Object> values = m.get("values") instanceof Map<?, ?> v ? (Map<String, Object>) v : null;
      return new ResumeInput(text, decision, comment, values);
    } catch (IOException | RuntimeException e) {
      return ResumeInput.none();
    }
  }
}
