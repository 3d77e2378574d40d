package dev.loopflow.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.core.store.MemoryEntry;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The delete part of the {@link RunStore} contract: {@link RunStore#deleteRun} removes everything of one run (its
 * record, node executions with their large values, events, lease, cancel request, commands, and the shared memory
 * it owns) and nothing of any other run, nor the shared memory runs share (AGENT and GLOBAL). {@link RunStoreContract}
 * runs it on every store.
 */
public interface RunDeleteContract {
  Instant T0 = Instant.parse("2026-11-22T10:15:30.123456Z");

  /** The store under test, open. */
  RunStore storeUnderTest();

  /** A second store on the same database (a second process); null when the store is not durable. */
  RunStore sameDatabaseAgain() throws Exception;

  private static String id() {
    return "run_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
  }

  /** A run with every kind of row a store keeps for it, its large value included. */
  private static void fill(RunStore store, String id, String agentScope) {
    store.createRun(RunRecord.builder().runId(id).workflow("review").file("review.yaml").source("nodes: []\n")
        .sourceHash("sha256:abc").inputs(Map.of("topic", "x")).status(RunStatus.RUNNING).startedAt(T0)
        .workingDirectory("/w").build());
    store.appendEvent(new Event.RunStarted(id, 1, T0, "review", Map.of()));
    String big = "large ".repeat(40_000); // past the size a store keeps apart as a large value
    store.recordNodeExecution(new NodeExecution(id, NodePosition.top("a"), "llm", NodeStatus.COMPLETED, 1, T0,
        T0.plusMillis(5), Map.of("Say {{ x }}", "Say x"), Map.of("status", "completed", "output", big),
        new Usage(1, 1, null, 1, 0), null, null, Map.of(), Map.of()));
    store.appendEvent(new Event.RunStarted(id, 2, T0, "review", Map.of()));
    store.tryLease(id, "owner-1", T0, T0.plusSeconds(30), null);
    store.requestCancel(id, "stop");
    store.appendCommand(id, "restart", Map.of("target_stage_id", "a"), T0);
    byte[] v = "v".getBytes(StandardCharsets.UTF_8);
    store.putMemory(new MemoryEntry(id, "WORKFLOW", "k", v, false, Map.of(), T0));
    store.putMemory(new MemoryEntry(id + "/session/chat", "SESSION", "k", v, false, Map.of(), T0));
    store.putMemory(new MemoryEntry(agentScope, "AGENT", id, v, false, Map.of(), T0));
    store.flush();
  }

  @Test
  default void deletingARunRemovesAllOfItAndNothingOfAnotherRun() throws Exception {
    RunStore store = storeUnderTest();
    String gone = id();
    String kept = id();
    String agentScope = "agent/review/" + id();
    fill(store, gone, agentScope);
    fill(store, kept, agentScope);

    assertThat(store.deleteRun(gone)).isTrue();

    RunStore reader = sameDatabaseAgain();
    try {
      for (RunStore s : reader == null ? List.of(store) : List.of(store, reader)) {
        assertThat(s.findRun(gone)).isEmpty();
        assertThat(s.listRuns()).extracting(RunRecord::runId).doesNotContain(gone).contains(kept);
        assertThat(s.nodeExecutions(gone)).isEmpty();
        assertThat(s.loopPasses(gone)).isZero();
        assertThat(s.events(gone)).isEmpty();
        assertThat(s.lease(gone)).isEmpty();
        assertThat(s.cancelRequest(gone)).isEmpty();
        assertThat(s.commands(gone)).isEmpty();
        assertThat(s.listMemory(gone, "WORKFLOW", "")).isEmpty();
        assertThat(s.listMemory(gone + "/session/chat", "SESSION", "")).isEmpty();
        // Memory shared across runs stays, also the entry the deleted run wrote there.
        assertThat(s.getMemory(agentScope, "AGENT", gone)).isPresent();

        assertThat(s.findRun(kept)).isPresent();
        assertThat(s.nodeExecutions(kept)).hasSize(1);
        assertThat(s.nodeExecutions(kept).get(0).result().get("output")).isEqualTo("large ".repeat(40_000));
        assertThat(s.events(kept)).hasSize(2);
        assertThat(s.lease(kept)).isPresent();
        assertThat(s.cancelRequest(kept)).isPresent();
        assertThat(s.commands(kept)).hasSize(1);
        assertThat(s.listMemory(kept, "WORKFLOW", "")).hasSize(1);
        assertThat(s.listMemory(kept + "/session/chat", "SESSION", "")).hasSize(1);
      }
    } finally {
      if (reader != null) {
        reader.close();
      }
    }
    // The id is free again: a new run under it starts from nothing.
    fill(store, gone, agentScope);
    assertThat(store.nodeExecutions(gone)).hasSize(1);
    assertThat(store.events(gone)).hasSize(2);
  }

  @Test
  default void deletingAnUnknownRunSaysSoAndChangesNothing() {
    RunStore store = storeUnderTest();
    String kept = id();
    fill(store, kept, "agent/review/" + id());
    assertThat(store.deleteRun(id())).isFalse();
    assertThat(store.findRun(kept)).isPresent();
    assertThat(store.nodeExecutions(kept)).hasSize(1);
  }
}
