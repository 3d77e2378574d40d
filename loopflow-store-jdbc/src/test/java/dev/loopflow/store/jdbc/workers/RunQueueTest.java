package dev.loopflow.store.jdbc.workers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.store.jdbc.JdbcStores;
import dev.loopflow.testkit.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Queueing a run on a PostgreSQL store: journaled and queued, or, when the queue refuses it, journaled as failed. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class RunQueueTest {
  private static final String WORKFLOW = """
      name: queued
      nodes:
        - id: a
          run: |
            return { done = true }
      """;

  private String url;
  private RunStore store;
  private Loopflow engine;
  private Workflow wf;

  @BeforeEach
  void open() {
    url = PostgresServer.shared().createDatabase("queue_" + Long.toHexString(ThreadLocalRandom.current().nextLong()
        >>> 32));
    store = JdbcStores.open(url);
    engine = Loopflow.builder().store(store).build();
    wf = engine.parse(WORKFLOW, "queued.yaml");
  }

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void aQueuedRunIsRunningWithItsQueueRow() throws Exception {
    RunQueue queue = RunQueue.of(engine);
    RunResult r = queue.enqueue(wf, RunOptions.builder().build());
    assertThat(r.status()).isEqualTo(RunStatus.RUNNING);
    assertThat(queue.isQueued(r.runId())).isTrue();
    assertThat(store.events(r.runId())).extracting(Event::type).containsExactly("run.started");
  }

  @Test
  void aRunWhoseQueueRowCannotBeAddedEndsFailedWithTheDatabasesReason_bugLeftRunning() throws Exception {
    RunQueue queue = RunQueue.of(engine);
    try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
      st.execute("ALTER TABLE lf_scheduled_tasks RENAME TO lf_scheduled_tasks_gone");
    }
    RunResult r = queue.enqueue(wf, RunOptions.builder().build());
    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().errorCode()).isEqualTo(ErrorCode.STORE_UNAVAILABLE);
    assertThat(r.error().message()).startsWith("cannot add run '" + r.runId() + "' to the queue in postgresql://")
        .contains("lf_scheduled_tasks").doesNotContain("\n");
    var rec = store.findRun(r.runId()).orElseThrow();
    assertThat(rec.status()).isEqualTo(RunStatus.FAILED);
    assertThat(rec.error().message()).isEqualTo(r.error().message());
    assertThat(store.events(r.runId())).extracting(Event::type).containsExactly("run.started", "run.finished");
    assertThat(store.lease(r.runId())).isEmpty();
  }
}
