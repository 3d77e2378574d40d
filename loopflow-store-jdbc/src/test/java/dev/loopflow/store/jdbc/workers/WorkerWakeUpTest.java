package dev.loopflow.store.jdbc.workers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.store.jdbc.JdbcStores;
import dev.loopflow.testkit.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An idle worker takes a queued run when the run is announced, not at its next poll: the workers here poll once an
 * hour, so a run they take within the test's time was taken on its announcement.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class WorkerWakeUpTest {
  private static final String WORKFLOW = """
      name: announced
      nodes:
        - id: a
          run: |
            return { done = true }
      """;
  private static final Duration HOUR = Duration.ofHours(1);

  private String url;
  private RunStore store;
  private Loopflow engine;
  private Workflow wf;
  private Worker worker;

  @BeforeEach
  void open() {
    url = PostgresServer.shared().createDatabase("wake_" + Long.toHexString(ThreadLocalRandom.current().nextLong()
        >>> 32));
    store = JdbcStores.open(url);
    engine = Loopflow.builder().store(store).build();
    wf = engine.parse(WORKFLOW, "announced.yaml");
  }

  @AfterEach
  void close() {
    if (worker != null) {
      worker.close();
    }
    store.close();
  }

  private Worker startWorker(RunStore own) {
    Loopflow e = Loopflow.builder().store(own).build();
    return Worker.start(e, WorkerSettings.defaults("w").withPolling(HOUR), rec -> RunOptions.builder().build(),
        line -> { });
  }

  private void awaitCompleted(String runId) throws InterruptedException {
    while (store.findRun(runId).orElseThrow().status() == RunStatus.RUNNING) {
      Thread.sleep(20);
    }
    assertThat(store.findRun(runId).orElseThrow().status()).isEqualTo(RunStatus.COMPLETED);
  }

  @Test
  void anIdleWorkerTakesARunQueuedAfterItStartedWithoutWaitingForItsPoll() throws Exception {
    worker = startWorker(store);
    Thread.sleep(200); // its first poll is over: only an announcement can bring the next run
    RunResult queued = RunQueue.of(engine).enqueue(wf, RunOptions.builder().build());
    awaitCompleted(queued.runId());
    RunResult second = RunQueue.of(engine).enqueue(wf, RunOptions.builder().build());
    awaitCompleted(second.runId());
  }

  @Test
  void aWorkerWhoseListenerConnectionWasCutListensAgainAndTakesTheNextRun() throws Exception {
    worker = startWorker(store);
    int cut = 0;
    while (cut == 0) {
      cut = terminate("loopflow queue listener");
      Thread.sleep(20);
    }
    RunResult queued = RunQueue.of(engine).enqueue(wf, RunOptions.builder().build());
    awaitCompleted(queued.runId());
  }

  @Test
  void aRunAnnouncedToAnotherProcessesStoreIsTakenToo() throws Exception {
    try (RunStore workerStore = JdbcStores.open(url)) {
      worker = startWorker(workerStore);
      Thread.sleep(200);
      RunResult queued = RunQueue.of(engine).enqueue(wf, RunOptions.builder().build());
      awaitCompleted(queued.runId());
      worker.close();
      worker = null;
    }
  }

  /** Ends the server processes of this database's connections named {@code application}; how many it ended. */
  private int terminate(String application) throws SQLException {
    try (Connection c = DriverManager.getConnection(url); PreparedStatement ps = c.prepareStatement(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = ? "
            + "AND datname = current_database()")) {
      ps.setString(1, application);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }
}
