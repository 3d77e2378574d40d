package dev.loopflow.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.NodeProgram;
import dev.loopflow.core.store.RunStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a loop pass leaves behind in an engine that lives long: the in-memory store keeps a bounded tail of the
 * events of runs that can no longer be resumed and everything of runs that can, and a pass that records no durable
 * step makes no execution id.
 */
class PassFootprintTest {
  private static final int PASSES = 600; // 3 events a pass: well over the 1,000 events a finished run keeps

  private static NodeHandler handler(String kind, NodeProgram program) {
    return new NodeHandler() {
      @Override
      public String kind() {
        return kind;
      }

      @Override
      public Set<String> fields() {
        return Set.of();
      }

      @Override
      public NodeProgram compile(NodeConfig config) {
        return program;
      }
    };
  }

  /** Counts up; fails once when the count reaches {@code failAt} (-1: never), and asks a person at the end. */
  private static Loopflow engine(RunStore store, int failAt, AtomicBoolean failed) {
    return Loopflow.builder().store(store).handler(handler("test.increment", NodeProgram.inline(ctx -> {
      long count = ((Number) ((Map<?, ?>) ctx.scope().get("state")).get("count")).longValue();
      if (count == failAt && failed.compareAndSet(false, true)) {
        throw new IllegalStateException("failing once at " + count);
      }
      return NodeOutcome.of(null).withStatePatch(Map.of("count", count + 1));
    }))).build();
  }

  private static String workflow(boolean asks) {
    return """
        name: footprint
        input:
          count: {type: integer, default: 0}
        nodes:
          - name: counter
            type: while_loop
            max_iterations: 1000
            condition: "state.count < %d"
            body:
              - name: increment
                type: test.increment
        %s""".formatted(PASSES, asks ? "  - {name: ask, approval: \"Ship it?\", depends_on: [counter]}\n" : "");
  }

  private static RunOptions listening(List<Event> seen) {
    return RunOptions.builder().listener(seen::add).build();
  }

  @Test
  void aCompletedRunKeepsItsLastThousandEventsAndEveryNodeExecution() throws Exception {
    RunStore store = RunStore.inMemory();
    Loopflow engine = engine(store, -1, new AtomicBoolean());
    List<Event> seen = new CopyOnWriteArrayList<>();
    RunResult r = engine.start(engine.parse(workflow(false), "f.yaml"), listening(seen)).await();
    assertThat(r.status()).as("%s", r.error()).isEqualTo(RunStatus.COMPLETED);
    assertThat(seen.size()).isGreaterThan(3 * PASSES);

    List<Event> kept = store.events(r.runId());
    // Trimmed when the record said completed; run.finished came after.
    assertThat(kept).hasSize(1_001);
    assertThat(kept).containsExactlyElementsOf(seen.subList(seen.size() - 1_001, seen.size()));
    assertThat(kept.getLast().type()).isEqualTo("run.finished");
    assertThat(store.events(r.runId(), kept.getLast().seq() - 2)).hasSize(2);
    assertThat(store.nodeExecutions(r.runId())).hasSize(PASSES + 1); // every pass's row and the loop's
  }

  @ParameterizedTest
  @ValueSource(strings = {"failed", "paused"})
  void aRunThatCanStillBeResumedKeepsEveryEventAndResumesFromThem(String how) throws Exception {
    RunStore store = RunStore.inMemory();
    AtomicBoolean failed = new AtomicBoolean();
    Loopflow engine = engine(store, how.equals("failed") ? PASSES - 5 : -1, failed);
    Workflow wf = engine.parse(workflow(how.equals("paused")), "f.yaml");
    List<Event> seen = new CopyOnWriteArrayList<>();
    RunResult first = engine.start(wf, listening(seen)).await();
    assertThat(first.status().json()).as("%s", first.error()).isEqualTo(how);
    assertThat(store.events(first.runId())).containsExactlyElementsOf(seen);

    List<Event> more = new ArrayList<>();
    RunResult done = engine.resume(wf, first.runId(), how.equals("paused") ? ResumeInput.approve(null)
        : ResumeInput.none(), listening(more), false).await();
    assertThat(done.status()).as("%s", done.error()).isEqualTo(RunStatus.COMPLETED);
    assertThat(done.state()).containsEntry("count", (long) PASSES);
    // The passes journaled before were restored, not run again: the resumed attempt announced no node start there.
    long restarted = more.stream().filter(e -> e instanceof Event.NodeStarted s
        && s.node().nodeId().equals("increment")).count();
    assertThat(restarted).isEqualTo(how.equals("failed") ? 5 : 0);
    List<Event> kept = store.events(done.runId());
    assertThat(kept).hasSizeLessThanOrEqualTo(1_001);
    assertThat(kept.getLast().seq()).isEqualTo(more.getLast().seq());
  }

  @Test
  void aCancelledRunKeepsItsLastThousandEvents() throws Exception {
    RunStore store = RunStore.inMemory();
    java.util.concurrent.CountDownLatch ready = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.atomic.AtomicReference<dev.loopflow.core.run.RunHandle> handle =
        new java.util.concurrent.atomic.AtomicReference<>();
    Loopflow engine = Loopflow.builder().store(store).handler(handler("test.increment", NodeProgram.inline(ctx -> {
      ready.await();
      long count = ((Number) ((Map<?, ?>) ctx.scope().get("state")).get("count")).longValue();
      if (count == PASSES - 1) {
        handle.get().cancel("enough");
      }
      return NodeOutcome.of(null).withStatePatch(Map.of("count", count + 1));
    }))).build();
    Workflow wf = engine.parse(workflow(false).replace("< " + PASSES, "< " + (PASSES * 2)), "f.yaml");
    List<Event> seen = new CopyOnWriteArrayList<>();
    dev.loopflow.core.run.RunHandle h = engine.start(wf, listening(seen));
    handle.set(h);
    ready.countDown();
    RunResult r = h.await();
    assertThat(r.status()).isEqualTo(RunStatus.CANCELLED);
    assertThat(seen.size()).isGreaterThan(3 * (PASSES - 1));
    List<Event> kept = store.events(r.runId());
    assertThat(kept).hasSize(1_001).containsExactlyElementsOf(seen.subList(seen.size() - 1_001, seen.size()));
  }

  @Test
  void aPassThatRecordsNoStepMakesNoExecutionId() throws Exception {
    RunStore store = RunStore.inMemory();
    Loopflow engine = engine(store, -1, new AtomicBoolean());
    long before = NodeContextImpl.EXECUTION_IDS_MADE.get();
    RunResult r = engine.start(engine.parse(workflow(false), "f.yaml"), RunOptions.defaults()).await();
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(NodeContextImpl.EXECUTION_IDS_MADE.get() - before).isZero();
  }

  @Test
  void eachExecutionThatRecordsStepsHasItsOwnId() throws Exception {
    RunStore store = RunStore.inMemory();
    Loopflow engine = Loopflow.builder().store(store).handler(handler("test.steps", NodeProgram.inline(ctx -> {
      ctx.steps().record(Map.of("turn", 1));
      ctx.steps().record(Map.of("turn", 2));
      long n = ((Number) ((Map<?, ?>) ctx.scope().get("state")).get("n")).longValue();
      return NodeOutcome.of("ok").withStatePatch(Map.of("n", n + 1));
    }))).build();
    Workflow wf = engine.parse("""
        name: steps
        input:
          n: {type: integer, default: 0}
        nodes:
          - name: twice
            type: while_loop
            max_iterations: 2
            condition: "state.n < 2"
            body:
              - {name: agent, type: test.steps}
        """, "s.yaml");
    long before = NodeContextImpl.EXECUTION_IDS_MADE.get();
    RunResult r = engine.start(wf, RunOptions.defaults()).await();
    assertThat(r.status()).as("%s", r.error()).isEqualTo(RunStatus.COMPLETED);
    List<String> ids = store.events(r.runId()).stream().filter(e -> e instanceof Event.NodeStep)
        .map(e -> ((Event.NodeStep) e).execution()).toList();
    assertThat(ids).hasSize(4);
    assertThat(ids.get(0)).isEqualTo(ids.get(1)).isNotEqualTo(ids.get(2));
    assertThat(ids.get(2)).isEqualTo(ids.get(3));
    assertThat(NodeContextImpl.EXECUTION_IDS_MADE.get() - before).isEqualTo(2);
  }
}
