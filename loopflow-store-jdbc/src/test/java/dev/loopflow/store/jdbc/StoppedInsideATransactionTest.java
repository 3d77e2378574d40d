package dev.loopflow.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.LeaseLostException;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunRecord;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A process stopped inside a write transaction (SIGSTOP, a long pause, a partition) on a PostgreSQL store. The
 * database ends its session once it has sat idle inside the transaction, so its row locks do not hold up the engine
 * that takes its run over; when the process continues, the write that was cut off fails with {@code lease_lost} if
 * the run's lease moved meanwhile, and is written again if it did not.
 *
 * <p>"Stopped" is a write whose work blocks on a latch after the lease-epoch check (which holds the run row FOR
 * SHARE); it shortens its own session's idle timeout with SET LOCAL so the test need not wait the store's 10 s.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class StoppedInsideATransactionTest {
  private static final Instant T0 = Instant.parse("2026-11-24T10:00:00Z");
  private String database;
  private JdbcRunStore a;
  private JdbcRunStore b;

  @BeforeEach
  void open() throws SQLException {
    database = PostgresDatabases.create("stopped", "");
    a = (JdbcRunStore) JdbcStores.open(PostgresDatabases.url(database));
    b = (JdbcRunStore) JdbcStores.open(PostgresDatabases.url(database));
  }

  @AfterEach
  void close() throws SQLException {
    a.close();
    b.close();
    PostgresDatabases.drop(database);
  }

  private String claimedRun() {
    String id = "run_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    a.createRun(RunRecord.builder().runId(id).workflow("w").file("w.yaml").source("name: w\nnodes: []\n")
        .sourceHash("sha256:x").inputs(Map.of()).status(RunStatus.RUNNING).startedAt(T0).workingDirectory("/")
        .build());
    assertThat(a.tryLease(id, "A", T0, T0.plusSeconds(15), null)).isTrue();
    return id;
  }

  /**
   * Starts a write of run {@code id} whose first attempt stops inside its transaction until {@code go}, after
   * lowering its session's idle-in-transaction timeout; every attempt then inserts one node execution.
   */
  private CompletableFuture<Void> stoppedWrite(String id, CountDownLatch stopped, CountDownLatch go,
      AtomicInteger attempts) {
    return CompletableFuture.runAsync(() -> a.write(id, c -> {
      if (attempts.incrementAndGet() == 1) {
        try (Statement st = c.createStatement()) {
          st.execute("SET LOCAL idle_in_transaction_session_timeout = '300ms'");
        }
        stopped.countDown();
        try {
          go.await();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      }
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO lf_node_executions (run_id, seq, path, node_id, "
          + "kind, status, attempts) VALUES (?, 1, 'after', 'after', 'shell', 'COMPLETED', 1)")) {
        ps.setString(1, id);
        ps.executeUpdate();
      }
    }), Thread.ofPlatform()::start);
  }

  /** Whether the database has ended the stopped session: none of this database's sessions is inside a transaction. */
  private boolean sessionEnded() {
    return b.read(c -> {
      try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM pg_stat_activity "
          + "WHERE datname = current_database() AND state LIKE 'idle in transaction%'")) {
        rs.next();
        return rs.getInt(1) == 0;
      }
    });
  }

  @Test
  void aWriterStoppedPastItsLeaseNeitherHoldsUpTheTakeoverNorWrites_bugTakerWaitedOnTheStoppedWorkersRowLock()
      throws Exception {
    String id = claimedRun();
    CountDownLatch stopped = new CountDownLatch(1);
    CountDownLatch go = new CountDownLatch(1);
    AtomicInteger attempts = new AtomicInteger();
    CompletableFuture<Void> write = stoppedWrite(id, stopped, go, attempts);
    assertThat(stopped.await(30, TimeUnit.SECONDS)).isTrue();
    // The claim waits on the stopped transaction's share lock only until the database ends that session.
    Instant later = T0.plusSeconds(60);
    CompletableFuture<Boolean> claim = CompletableFuture.supplyAsync(
        () -> b.tryLease(id, "B", later, later.plusSeconds(15), null), Thread.ofPlatform()::start);
    assertThat(claim.get(30, TimeUnit.SECONDS)).isTrue();
    go.countDown();
    assertThatThrownBy(() -> write.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(LeaseLostException.class);
    assertThat(attempts).hasValue(1);
    // Fenced for good, and nothing of A's reached the store.
    assertThatThrownBy(() -> a.recordNodeExecution(new NodeExecution(id, NodePosition.top("later"), "shell",
        NodeStatus.COMPLETED, 1, T0, T0, Map.of(), Map.of(), null, null, null, null, null)))
        .isInstanceOf(LeaseLostException.class);
    assertThat(b.nodeExecutions(id)).isEmpty();
    assertThat(b.lease(id).orElseThrow().owner()).isEqualTo("B");
  }

  @Test
  void aWriterStoppedWhileItsLeaseStillHoldsWritesOnceWhenItContinues() throws Exception {
    String id = claimedRun();
    CountDownLatch stopped = new CountDownLatch(1);
    CountDownLatch go = new CountDownLatch(1);
    AtomicInteger attempts = new AtomicInteger();
    CompletableFuture<Void> write = stoppedWrite(id, stopped, go, attempts);
    assertThat(stopped.await(30, TimeUnit.SECONDS)).isTrue();
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!sessionEnded()) {
      assertThat(System.nanoTime()).as("the database to end the stopped session").isLessThan(until);
      Thread.sleep(50);
    }
    go.countDown();
    write.get(30, TimeUnit.SECONDS);
    assertThat(attempts).hasValue(2);
    assertThat(b.nodeExecutions(id)).extracting(e -> e.position().nodeId()).containsExactly("after");
    assertThat(a.tryLease(id, "A", T0.plusSeconds(5), T0.plusSeconds(20), null)).as("still A's lease").isTrue();
  }

  @Test
  void aWriteThatFailsForAnotherReasonIsNotWrittenAgainNorTakenForALostLease() {
    String id = claimedRun();
    AtomicInteger attempts = new AtomicInteger();
    assertThatThrownBy(() -> a.write(id, c -> {
      attempts.incrementAndGet();
      try (Statement st = c.createStatement()) {
        st.execute("SELECT no_such_column FROM lf_runs");
      }
    })).isInstanceOf(LoopflowException.class).satisfies(e -> assertThat(((LoopflowException) e).code())
        .isEqualTo(ErrorCode.STORE_UNAVAILABLE));
    assertThat(attempts).hasValue(1);
  }

  @Test
  void everySessionOfTheStoreIsEndedAfterTenSecondsIdleInsideATransaction() {
    for (JdbcRunStore s : new JdbcRunStore[] {a, b}) {
      String setting = s.read(c -> {
        try (Statement st = c.createStatement();
            ResultSet rs = st.executeQuery("SHOW idle_in_transaction_session_timeout")) {
          rs.next();
          return rs.getString(1);
        }
      });
      assertThat(setting).isEqualTo("10s");
    }
  }
}
