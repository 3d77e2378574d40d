package dev.loopflow.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.LeaseLostException;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Group commit of journal writes: events ride with the completion after them, writes queued together share one
 * transaction, and still no caller returns before the transaction holding its write committed. Commits are counted,
 * not timed. The SQLite stores here commit completions directly ({@code synchronous=full}); the completion log that
 * a store in the default mode uses instead is covered by CompletionLogTest.
 */
class GroupCommitTest {
  private static final Instant T0 = Instant.parse("2026-11-24T10:00:00Z");

  @TempDir
  Path dir;

  private JdbcRunStore sqlite() {
    return (JdbcRunStore) JdbcStores.open("sqlite:" + dir.resolve("runs.db") + "?synchronous=full");
  }

  private static RunRecord run(String id) {
    return RunRecord.builder().runId(id).workflow("w").file("w.yaml").source("name: w\nnodes: []\n")
        .sourceHash("sha256:x").inputs(Map.of()).status(RunStatus.RUNNING).startedAt(T0).workingDirectory("/")
        .build();
  }

  private static NodeExecution execution(String id, String node) {
    return new NodeExecution(id, new NodePosition(List.of(new NodePosition.LoopFrame("loop", 2)), node), "script",
        NodeStatus.COMPLETED, 1, T0, T0, Map.of(), Map.of("output", node), null, null, null, Map.of("count", 1),
        null);
  }

  private static Event started(String id, long seq) {
    return new Event.NodeStarted(id, seq, T0, NodePosition.top("n" + seq), "script", 1);
  }

  @ParameterizedTest(name = "{0} events")
  @ValueSource(ints = {0, 1, 3, 50})
  void theEventsBeforeACompletionCommitWithItInOneTransaction(int events) {
    try (JdbcRunStore store = sqlite(); RunStore other = JdbcStores.open("sqlite:" + dir.resolve("runs.db") + "?synchronous=full")) {
      store.createRun(run("r1"));
      long before = store.commits();
      for (int i = 1; i <= events; i++) {
        store.appendEvent(started("r1", i));
      }
      store.recordNodeExecution(execution("r1", "done"));

      assertThat(store.commits() - before).isEqualTo(1);
      // Durable on return: another process reading the file sees the completion and every event before it.
      assertThat(other.nodeExecutions("r1")).extracting(e -> e.position().nodeId()).containsExactly("done");
      assertThat(other.events("r1")).extracting(Event::seq)
          .containsExactlyElementsOf(java.util.stream.LongStream.rangeClosed(1, events).boxed().toList());
    }
  }

  /** Holds the writer thread inside a transaction until {@code release} opens. */
  static Thread holdWriter(JdbcRunStore store, CountDownLatch release) throws InterruptedException {
    CountDownLatch held = new CountDownLatch(1);
    Thread t = Thread.ofPlatform().start(() -> store.write(c -> {
      held.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }));
    assertThat(held.await(30, TimeUnit.SECONDS)).isTrue();
    return t;
  }

  static void awaitQueued(JdbcRunStore store, int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (store.queuedWrites() < n) {
      assertThat(System.nanoTime()).as("writes queued").isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  @Test
  void completionsQueuedTogetherShareOneCommitAndEachReturnsOnlyOnceDurable() throws Exception {
    int writers = 8;
    try (JdbcRunStore store = sqlite(); RunStore other = JdbcStores.open("sqlite:" + dir.resolve("runs.db") + "?synchronous=full")) {
      for (int i = 0; i < writers; i++) {
        store.createRun(run("r" + i));
      }
      long before = store.commits();
      CountDownLatch release = new CountDownLatch(1);
      Thread holder = holdWriter(store, release);
      Map<String, Boolean> durableOnReturn = new ConcurrentHashMap<>();
      List<Thread> threads = new ArrayList<>();
      for (int i = 0; i < writers; i++) {
        String id = "r" + i;
        threads.add(Thread.ofPlatform().start(() -> {
          store.appendEvent(started(id, 1));
          store.recordNodeExecution(execution(id, "n"));
          durableOnReturn.put(id, other.nodeExecutions(id).size() == 1 && other.events(id).size() == 1);
        }));
      }
      awaitQueued(store, writers);
      assertThat(durableOnReturn).isEmpty();
      release.countDown();
      holder.join();
      for (Thread t : threads) {
        t.join();
      }

      assertThat(store.commits() - before).as("the held transaction, then one for all queued writes").isEqualTo(2);
      assertThat(durableOnReturn).hasSize(writers).doesNotContainValue(false);
    }
  }

  @Test
  void aFailingWriteInABatchFailsAloneAndTheOthersCommit() throws Exception {
    try (JdbcRunStore store = sqlite()) {
      store.createRun(run("kept"));
      CountDownLatch release = new CountDownLatch(1);
      Thread holder = holdWriter(store, release);
      Map<String, Object> outcome = new ConcurrentHashMap<>();
      List<Thread> threads = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        String node = "n" + i;
        threads.add(Thread.ofPlatform().start(() -> {
          store.recordNodeExecution(execution("kept", node));
          outcome.put(node, "ok");
        }));
      }
      threads.add(Thread.ofPlatform().start(() -> {
        try {
          store.updateRun(run("missing"));
          outcome.put("missing", "ok");
        } catch (LoopflowException e) {
          outcome.put("missing", e);
        }
      }));
      awaitQueued(store, 5);
      release.countDown();
      holder.join();
      for (Thread t : threads) {
        t.join();
      }

      assertThat(outcome).containsEntry("n0", "ok").containsEntry("n1", "ok").containsEntry("n2", "ok")
          .containsEntry("n3", "ok");
      assertThat(outcome.get("missing")).isInstanceOf(LoopflowException.class);
      assertThat(store.nodeExecutions("kept")).hasSize(4);
    }
  }

  @Test
  void nodeCompletionStatementsArePreparedOnceAndReused() {
    try (JdbcRunStore store = sqlite()) {
      store.createRun(run("r1"));
      for (int i = 0; i < 40; i++) {
        store.appendEvent(started("r1", i + 1));
        store.recordNodeExecution(execution("r1", "n" + i));
      }
      // One INSERT of executions and one of events, however many completions.
      assertThat(store.preparedStatements()).isEqualTo(2);
      assertThat(store.nodeExecutions("r1")).hasSize(40);
      assertThat(store.events("r1")).hasSize(40);
    }
  }

  /** On PostgreSQL a batch checks the lease of every run in it; a fenced run's writes fail and write nothing. */
  @Test
  void aFencedRunInABatchWritesNothingWhileTheOthersCommit() throws Exception {
    String db = PostgresDatabases.create("groupcommit", "");
    try (JdbcRunStore a = (JdbcRunStore) JdbcStores.open(PostgresDatabases.url(db));
        RunStore b = JdbcStores.open(PostgresDatabases.url(db))) {
      a.createRun(run("lost"));
      a.createRun(run("kept"));
      assertThat(a.tryLease("lost", "A", T0, T0.plusSeconds(15), null)).isTrue();
      assertThat(a.tryLease("kept", "A", T0, T0.plusSeconds(15), null)).isTrue();
      assertThat(b.tryLease("lost", "B", T0.plusSeconds(60), T0.plusSeconds(75), null)).isTrue();

      CountDownLatch release = new CountDownLatch(1);
      Thread holder = holdWriter(a, release);
      Map<String, Object> outcome = new ConcurrentHashMap<>();
      List<Thread> threads = new ArrayList<>();
      for (String id : List.of("lost", "kept")) {
        threads.add(Thread.ofPlatform().start(() -> {
          a.appendEvent(started(id, 1));
          try {
            a.recordNodeExecution(execution(id, "n"));
            outcome.put(id, "ok");
          } catch (LeaseLostException e) {
            outcome.put(id, e);
          }
        }));
      }
      awaitQueued(a, 2);
      release.countDown();
      holder.join();
      for (Thread t : threads) {
        t.join();
      }

      assertThat(outcome.get("lost")).isInstanceOf(LeaseLostException.class);
      assertThat(outcome).containsEntry("kept", "ok");
      assertThat(b.nodeExecutions("lost")).isEmpty();
      assertThat(b.events("lost")).isEmpty();
      assertThat(b.nodeExecutions("kept")).hasSize(1);
      assertThat(b.events("kept")).hasSize(1);
    } finally {
      PostgresDatabases.drop(db);
    }
  }
}
