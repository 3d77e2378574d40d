package dev.loopflow.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.testkit.PostgresServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The engine on durable stores: journal size per pass, many runs on one SQLite file, exclusive resumes. */
class DurableRunTest {
  @TempDir
  Path dir;

  private static final String COUNTER = """
      name: counter
      input:
        n: {type: integer}
        count: {type: integer, default: 0}
      nodes:
        - name: count_loop
          type: while_loop
          max_iterations: 1000
          condition: "state.count < input.n"
          body:
            - name: increment
              run: |
                return { count = state.count + 1 }
      edges:
        - from: __start__
          to: count_loop
        - from: count_loop
          to: __end__
      """;

  private static Workflow counter(Loopflow engine) {
    return engine.parse(COUNTER, "counter.yaml");
  }

  private RunStore sqlite(String name) {
    return JdbcStores.open("sqlite:" + dir.resolve(name));
  }

  @Test
  void journalBytesPerIterationDoNotGrowWithTheNumberOfIterations() {
    try (RunStore store = sqlite("growth.db")) {
      Loopflow engine = Loopflow.builder().store(store).build();
      Workflow wf = counter(engine);
      RunResult small = engine.run(wf, Map.of("n", 50));
      RunResult large = engine.run(wf, Map.of("n", 500));
      assertThat(small.status()).isEqualTo(RunStatus.COMPLETED);
      assertThat(large.state()).containsEntry("count", 500L);
      JdbcRunStore jdbc = (JdbcRunStore) store;
      double perSmall = jdbc.journalBytes(small.runId()) / 50.0;
      double perLarge = jdbc.journalBytes(large.runId()) / 500.0;
      // Deltas: a pass writes its own rows only. Whole-state snapshots would make the large run's per-pass bytes
      // about ten times the small run's; digits of larger counters add a few bytes per pass, no more.
      assertThat(perLarge).isLessThan(perSmall * 1.15);
    }
  }

  @Test
  void fiftyConcurrentRunsFromSeveralEnginesShareOneSqliteFileWithoutBusyFailures() throws Exception {
    int engines = 5;
    int perEngine = 10;
    List<RunStore> stores = new ArrayList<>();
    ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
    try {
      List<Future<RunResult>> runs = new ArrayList<>();
      CountDownLatch go = new CountDownLatch(1);
      for (int e = 0; e < engines; e++) {
        // One store per engine: separate connections to one file, as separate processes would have.
        RunStore store = sqlite("shared.db");
        stores.add(store);
        Loopflow engine = Loopflow.builder().store(store).build();
        Workflow wf = counter(engine);
        for (int i = 0; i < perEngine; i++) {
          runs.add(pool.submit(() -> {
            go.await();
            return engine.run(wf, Map.of("n", 40));
          }));
        }
      }
      go.countDown();
      for (Future<RunResult> f : runs) {
        RunResult r = f.get();
        assertThat(r.status()).as("%s", r.error()).isEqualTo(RunStatus.COMPLETED);
        assertThat(r.state()).containsEntry("count", 40L);
      }
      try (RunStore reader = sqlite("shared.db")) {
        assertThat(reader.listRuns()).hasSize(engines * perEngine)
            .allSatisfy(r -> assertThat(r.status()).isEqualTo(RunStatus.COMPLETED));
        assertThat(reader.nodeExecutions(reader.listRuns().get(0).runId())).hasSize(41);
      }
    } finally {
      pool.shutdownNow();
      stores.forEach(RunStore::close);
    }
  }

  @Test
  void onSqliteOnlyOneOfTwoEnginesResumingARunExecutesIt() throws Exception {
    onlyOneResumes(sqlite("lease.db"), sqlite("lease.db"));
  }

  @Test
  void onPostgresqlOnlyOneOfTwoEnginesResumingARunExecutesIt() throws Exception {
    PostgresServer pg = PostgresServer.shared();
    pg.createDatabase("lease_test");
    String url = pg.jdbcUrl("lease_test");
    onlyOneResumes(JdbcStores.open(url), JdbcStores.open(url));
  }

  /** Two engines with their own connections race to resume one paused run: exactly one wins, the other is told. */
  private void onlyOneResumes(RunStore a, RunStore b) throws Exception {
    String yaml = """
        name: gated
        nodes:
          - id: ask
            approval: "ship it?"
          - id: after
            depends_on: [ask]
            bash: sleep 1; echo shipped
        """;
    try (a; b) {
      Loopflow ea = Loopflow.builder().store(a).build();
      Loopflow eb = Loopflow.builder().store(b).build();
      Workflow wf = ea.parse(yaml, "gated.yaml");
      RunResult paused = ea.run(wf, Map.of());
      assertThat(paused.status()).isEqualTo(RunStatus.PAUSED);
      String id = paused.runId();
      CountDownLatch go = new CountDownLatch(1);
      ExecutorService pool = Executors.newFixedThreadPool(2);
      try {
        Future<Object> fa = pool.submit(() -> {
          go.await();
          return tryResume(ea, wf, id);
        });
        Future<Object> fb = pool.submit(() -> {
          go.await();
          return tryResume(eb, wf, id);
        });
        go.countDown();
        List<Object> outcomes = List.of(fa.get(), fb.get());
        assertThat(outcomes).filteredOn(o -> o instanceof RunHandle).hasSize(1);
        assertThat(outcomes).filteredOn(o -> o instanceof LoopflowException).singleElement()
            .satisfies(e -> assertThat(((LoopflowException) e).code()).isEqualTo(ErrorCode.RUN_BUSY));
        RunHandle winner = (RunHandle) outcomes.stream().filter(o -> o instanceof RunHandle).findFirst().orElseThrow();
        RunResult done = winner.await();
        assertThat(done.status()).isEqualTo(RunStatus.COMPLETED);
        assertThat(a.nodeExecutions(id)).filteredOn(e -> e.position().nodeId().equals("after")).hasSize(1);
        assertThat(a.lease(id)).as("released when the run ended").isEmpty();
        assertThatThrownBy(() -> eb.resume(wf, id, ResumeInput.approve(null), RunOptions.defaults(), false))
            .isInstanceOfSatisfying(LoopflowException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.RUN_NOT_RESUMABLE));
      } finally {
        pool.shutdownNow();
      }
    }
  }

  private static Object tryResume(Loopflow engine, Workflow wf, String id) {
    try {
      return engine.resume(wf, id, ResumeInput.approve("ok"), RunOptions.defaults(), false);
    } catch (LoopflowException e) {
      return e;
    }
  }

  @Test
  void credentialsNeverReachTheStoreFile() throws Exception {
    String secret = "sk-live-0123456789abcdef";
    Path file = dir.resolve("secrets.db");
    try (RunStore store = JdbcStores.open("sqlite:" + file)) {
      Loopflow engine = Loopflow.builder().store(store).build();
      Workflow wf = engine.parse("""
          name: leaky
          nodes:
            - id: echo
              bash: |
                echo "token is $MY_API_KEY"; echo "Authorization: Bearer $MY_API_KEY" >&2
          """, "leaky.yaml");
      RunResult r = engine.run(wf, RunOptions.builder().environment(Map.of("MY_API_KEY", secret, "PATH",
          System.getenv("PATH"))).build());
      assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
      assertThat(store.nodeExecutions(r.runId()).get(0).result().get("output")).isEqualTo("token is [redacted]");
    }
    for (Path p : List.of(file, Path.of(file + "-wal"))) {
      if (Files.exists(p)) {
        assertThat(new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1)).doesNotContain(secret);
      }
    }
  }

  @Test
  void aRunKeepsItsLeaseWhileRunningAndACancelFromAnotherEngineStopsIt() throws Exception {
    try (RunStore a = sqlite("cancel.db"); RunStore b = sqlite("cancel.db")) {
      Loopflow ea = Loopflow.builder().store(a).build();
      Loopflow eb = Loopflow.builder().store(b).build();
      Workflow wf = ea.parse("""
          name: slow
          nodes:
            - id: wait
              bash: sleep 600
          """, "slow.yaml"); // cancelled below: it only has to outlast a loaded machine's slowest check
      RunHandle h = ea.start(wf, RunOptions.defaults());
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos(); // a hang guard only
      while (b.findRun(h.runId()).isEmpty() || h.runningNodes().isEmpty()) {
        assertThat(System.nanoTime()).isLessThan(deadline);
        Thread.sleep(20);
      }
      assertThat(b.lease(h.runId())).isPresent();
      assertThatThrownBy(() -> eb.resume(wf, h.runId(), ResumeInput.none(), RunOptions.defaults(), false))
          .isInstanceOfSatisfying(LoopflowException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.RUN_BUSY));
      RunStatus after = eb.cancel(h.runId(), "stop it", Duration.ofSeconds(60));
      assertThat(after).isEqualTo(RunStatus.CANCELLED);
      assertThat(h.await().status()).isEqualTo(RunStatus.CANCELLED);
    }
  }
}
