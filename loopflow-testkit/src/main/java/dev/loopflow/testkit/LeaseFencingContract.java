package dev.loopflow.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.LeaseLostException;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Lease fencing, for stores shared by engines on several machines: once another engine has claimed a run's lease,
 * no write of the engine that held it before reaches the store, whatever the write and however the lease moved
 * (expired and claimed, claimed and released again, broken as a dead holder's). Two store objects on one database
 * stand for two worker processes.
 */
public interface LeaseFencingContract {
  Instant F0 = Instant.parse("2026-11-22T10:00:00Z");

  /** The store of the first engine (its writes are the ones fenced). */
  RunStore storeUnderTest();

  /** The same database opened again, as a second process would. */
  RunStore sameDatabaseAgain() throws Exception;

  private static String id() {
    return "run_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
  }

  private static RunRecord record(String id) {
    return RunRecord.builder().runId(id).workflow("w").file("w.yaml").source("name: w\nnodes: []\n")
        .sourceHash("sha256:x").inputs(Map.of()).status(RunStatus.RUNNING).startedAt(F0).workingDirectory("/")
        .build();
  }

  private static NodeExecution execution(String id, String node) {
    return new NodeExecution(id, NodePosition.top(node), "shell", NodeStatus.COMPLETED, 1, F0, F0,
        Map.of(), Map.of("output", node), null, null, null, null, null);
  }

  /** The ways a lease moves to engine B while engine A stalls. */
  enum Takeover {
    EXPIRED_AND_CLAIMED, CLAIMED_THEN_RELEASED, BROKEN_AS_DEAD_HOLDER, CLAIMED_TWICE
  }

  /** The writes engine A may still try. */
  enum Write {
    NODE_EXECUTION, RUN_UPDATE, EVENT, COMMAND_ANSWER, RENEWAL
  }

  static Stream<Arguments> takeoversAndWrites() {
    List<Arguments> out = new ArrayList<>();
    for (Takeover t : Takeover.values()) {
      for (Write w : Write.values()) {
        out.add(Arguments.of(t, w));
      }
    }
    return out.stream();
  }

  private static void takeOver(RunStore b, String id, Takeover how) {
    Instant later = F0.plusSeconds(60);
    switch (how) {
      case EXPIRED_AND_CLAIMED -> assertThat(b.tryLease(id, "B", later, later.plusSeconds(15), null)).isTrue();
      case CLAIMED_THEN_RELEASED -> {
        assertThat(b.tryLease(id, "B", later, later.plusSeconds(15), null)).isTrue();
        b.releaseLease(id, "B");
      }
      case BROKEN_AS_DEAD_HOLDER -> assertThat(b.tryLease(id, "B", F0, F0.plusSeconds(15), "A")).isTrue();
      case CLAIMED_TWICE -> {
        assertThat(b.tryLease(id, "B", later, later.plusSeconds(15), null)).isTrue();
        b.releaseLease(id, "B");
        assertThat(b.tryLease(id, "C", later, later.plusSeconds(15), null)).isTrue();
      }
    }
  }

  @ParameterizedTest(name = "{0}, then {1}")
  @MethodSource("takeoversAndWrites")
  default void aWriteAfterTheLeaseMovedFailsAndWritesNothing(Takeover how, Write write) throws Exception {
    RunStore a = storeUnderTest();
    String id = id();
    a.createRun(record(id));
    assertThat(a.tryLease(id, "A", F0, F0.plusSeconds(15), null)).isTrue();
    a.recordNodeExecution(execution(id, "before"));
    a.appendEvent(new Event.NodeStarted(id, 1, F0, NodePosition.top("before"), "shell", 1));
    a.flush();
    long cmd = a.appendCommand(id, "restart", Map.of("target", "x"), F0).seq();
    try (RunStore b = sameDatabaseAgain()) {
      takeOver(b, id, how);
      Map<String, Object> leaseBefore = leaseOf(b, id);
      switch (write) {
        case NODE_EXECUTION -> assertLost(() -> a.recordNodeExecution(execution(id, "after")));
        case RUN_UPDATE -> assertLost(() -> a.updateRun(record(id).toBuilder().status(RunStatus.FAILED)
            .finishedAt(F0).build()));
        case EVENT -> {
          a.appendEvent(new Event.NodeStarted(id, 2, F0, NodePosition.top("after"), "shell", 1));
          a.flush();
        }
        case COMMAND_ANSWER -> assertLost(() -> a.respondCommand(id, cmd, Map.of("ok", true), F0));
        case RENEWAL -> assertThat(a.tryLease(id, "A", F0.plusSeconds(61), F0.plusSeconds(80), null)).isFalse();
      }
      // Fenced for good: every later write fails at once, and a renewal cannot bring the claim back.
      assertLost(() -> a.recordNodeExecution(execution(id, "later")));
      assertLost(() -> a.appendEvent(new Event.NodeStarted(id, 3, F0, NodePosition.top("later"), "shell", 1)));
      assertThat(a.tryLease(id, "A", F0.plusSeconds(62), F0.plusSeconds(90), null)).isFalse();
      a.releaseLease(id, "A");
      assertThat(b.nodeExecutions(id)).extracting(e -> e.position().nodeId()).containsExactly("before");
      assertThat(b.events(id)).extracting(Event::seq).containsExactly(1L);
      assertThat(b.findRun(id).orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
      assertThat(b.pendingCommands(id)).extracting(c -> c.seq()).containsExactly(cmd);
      assertThat(leaseOf(b, id)).isEqualTo(leaseBefore);
    }
  }

  private static Map<String, Object> leaseOf(RunStore s, String id) {
    return s.lease(id).<Map<String, Object>>map(l -> Map.of("owner", l.owner(), "until", l.until()))
        .orElse(Map.of());
  }

  private static void assertLost(Runnable write) {
    assertThatThrownBy(write::run).isInstanceOf(LeaseLostException.class)
        .satisfies(e -> assertThat(((LeaseLostException) e).code()).isEqualTo(ErrorCode.LEASE_LOST));
  }

  @Test
  default void aClaimRaisesTheEpochAndARenewalKeepsWriting() throws Exception {
    RunStore a = storeUnderTest();
    String id = id();
    a.createRun(record(id));
    for (int i = 0; i < 5; i++) {
      assertThat(a.tryLease(id, "A", F0.plusSeconds(i), F0.plusSeconds(i + 15), null)).as("renewal %d", i).isTrue();
      a.recordNodeExecution(execution(id, "n" + i));
    }
    a.releaseLease(id, "A");
    // A lease that expired but nobody claimed is renewed by its holder: nobody else wrote in between.
    assertThat(a.tryLease(id, "A", F0, F0.plusSeconds(1), null)).isTrue();
    assertThat(a.tryLease(id, "A", F0.plusSeconds(30), F0.plusSeconds(45), null)).isTrue();
    a.recordNodeExecution(execution(id, "late"));
    assertThat(a.nodeExecutions(id)).hasSize(6);
  }

  @Test
  default void theEventsOfOtherRunsStillReachTheStoreWhenOneRunIsFenced() throws Exception {
    RunStore a = storeUnderTest();
    String lost = id();
    String kept = id();
    a.createRun(record(lost));
    a.createRun(record(kept));
    assertThat(a.tryLease(lost, "A", F0, F0.plusSeconds(15), null)).isTrue();
    assertThat(a.tryLease(kept, "A", F0, F0.plusSeconds(15), null)).isTrue();
    try (RunStore b = sameDatabaseAgain()) {
      takeOver(b, lost, Takeover.EXPIRED_AND_CLAIMED);
      for (int i = 1; i <= 10; i++) {
        a.appendEvent(new Event.NodeStarted(kept, i, F0, NodePosition.top("k" + i), "shell", 1));
        if (i <= 3) {
          a.appendEvent(new Event.NodeStarted(lost, i, F0, NodePosition.top("l" + i), "shell", 1));
        }
      }
      a.recordNodeExecution(execution(kept, "k"));
      assertThat(b.events(kept)).hasSize(10);
      assertThat(b.events(lost)).isEmpty();
      assertThat(b.nodeExecutions(kept)).hasSize(1);
    }
  }

  /** Writes racing a claim from another store: none of them commits after the claim did. */
  @Test
  default void noWriteCommitsAfterAConcurrentClaim() throws Exception {
    RunStore a = storeUnderTest();
    for (int trial = 0; trial < 10; trial++) {
      String id = id();
      a.createRun(record(id));
      assertThat(a.tryLease(id, "A", F0, F0.plusSeconds(15), null)).isTrue();
      try (RunStore b = sameDatabaseAgain()) {
        List<Integer> accepted = new ArrayList<>();
        Thread writer = Thread.ofPlatform().start(() -> {
          for (int i = 0; i < 200; i++) {
            try {
              a.recordNodeExecution(execution(id, "w" + i));
              accepted.add(i);
            } catch (LeaseLostException e) {
              return;
            }
          }
        });
        Thread.sleep(trial * 3L);
        assertThat(b.tryLease(id, "B", F0.plusSeconds(60), F0.plusSeconds(75), null)).isTrue();
        int atClaim = b.nodeExecutions(id).size();
        writer.join(Duration.ofSeconds(30));
        assertThat(b.nodeExecutions(id)).as("trial %d", trial).hasSize(atClaim).hasSize(accepted.size());
      }
    }
  }
}
