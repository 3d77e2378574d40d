package dev.loopflow.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.NodeProgram;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.core.store.RunSummary;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a loop pass leaves behind in an engine that lives long: the in-memory store keeps a bounded tail of the
 * events and node executions of runs that can no longer be resumed (and their loop pass count) and everything of
 * runs that can, and a pass that records no durable step makes no execution id.
 */
class PassFootprintTest {
  private static final int PASSES = 600; // 3 events a pass: well over the 1,000 events a finished run keeps

  private static NodeHandler handler(String kind, NodeProgram program) {
    return new NodeHandler() {
      @Override
      public NodeKindSpec spec() {
        return NodeKindSpec.of(kind, null, List.of());
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
  void aCompletedRunKeepsItsLastThousandEventsAndEveryNodeExecutionUpToAThousandInLoops() throws Exception {
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

  /** A store that also hands every row it is given to {@code rows}: what the run journaled, before any was dropped. */
  private static RunStore recording(RunStore store, List<NodeExecution> rows) {
    return (RunStore) Proxy.newProxyInstance(RunStore.class.getClassLoader(),
        new Class<?>[] {RunStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("recordNodeExecution")) {
            rows.add((NodeExecution) args[0]);
          }
          try {
            return method.invoke(store, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }

  /**
   * A node before and after nested loops ({@code passes} increments: inner loops of up to 100 passes inside an
   * outer loop), each pass journaling two rows; {@code last} asks a person when {@code asks}.
   */
  private static String nested(int passes, boolean asks) {
    return """
        name: nested
        input:
          count: {type: integer, default: 0}
        nodes:
          - {name: first, type: test.note}
          - name: outer
            type: while_loop
            max_iterations: 1000
            condition: "state.count < %1$d"
            depends_on: [first]
            body:
              - name: inner
                type: while_loop
                max_iterations: 100
                on_exhausted: continue
                condition: "state.count < %1$d"
                body:
                  - {name: increment, type: test.increment}
                  - {name: note, type: test.note, depends_on: [increment]}
          - %2$s
        """.formatted(passes, asks ? "{name: last, approval: \"Ship it?\", depends_on: [outer]}"
        : "{name: last, type: test.note, depends_on: [outer]}");
  }

  private static Loopflow nestedEngine(RunStore store, int failAt, AtomicBoolean failed) {
    return Loopflow.builder().store(store).handler(handler("test.increment", NodeProgram.inline(ctx -> {
      long count = ((Number) ((Map<?, ?>) ctx.scope().get("state")).get("count")).longValue();
      if (count == failAt && failed.compareAndSet(false, true)) {
        throw new IllegalStateException("failing once at " + count);
      }
      return NodeOutcome.of(null).withStatePatch(Map.of("count", count + 1));
    }))).handler(handler("test.note", NodeProgram.inline(ctx -> NodeOutcome.of("noted")))).build();
  }

  private static boolean inLoop(NodeExecution e) {
    return !e.position().loops().isEmpty();
  }

  @Test
  void aCompletedRunKeepsItsRowsOutsideLoopsAndTheLastThousandInsideAndListsEveryPass() throws Exception {
    List<NodeExecution> journaled = new CopyOnWriteArrayList<>();
    RunStore store = recording(RunStore.inMemory(), journaled);
    Loopflow engine = nestedEngine(store, -1, new AtomicBoolean());
    RunResult r = engine.start(engine.parse(nested(PASSES, false), "n.yaml"), RunOptions.defaults()).await();
    assertThat(r.status()).as("%s", r.error()).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.state()).containsEntry("count", (long) PASSES);
    // Two rows a pass, one per inner loop: well over the thousand rows in loops a finished run keeps.
    long inLoops = journaled.stream().filter(PassFootprintTest::inLoop).count();
    assertThat(inLoops).isEqualTo(2L * PASSES + PASSES / 100);

    List<NodeExecution> kept = store.nodeExecutions(r.runId());
    List<NodeExecution> inLoopsKept = kept.stream().filter(PassFootprintTest::inLoop).toList();
    List<NodeExecution> allInLoops = journaled.stream().filter(PassFootprintTest::inLoop).toList();
    assertThat(inLoopsKept).containsExactlyElementsOf(allInLoops.subList(allInLoops.size() - 1_000,
        allInLoops.size()));
    assertThat(kept.stream().filter(e -> !inLoop(e)).map(e -> e.position().nodeId()))
        .containsExactly("first", "outer", "last");
    assertThat(kept).isSubsetOf(journaled).isSortedAccordingTo(Comparator.comparingInt(journaled::indexOf));

    // The run list counts every pass (600 inner, 6 outer), as it did from every row.
    int passes = RunSummary.iterations(journaled);
    assertThat(passes).isEqualTo(PASSES + PASSES / 100);
    assertThat(store.loopPasses(r.runId())).isEqualTo(passes);
    assertThat(RunSummary.list(store, Set.of(), null, 5).getFirst().toJson())
        .containsEntry("run_id", r.runId()).containsEntry("iterations", passes);
    // The result is the record's, whole: every pass of the loops is in it.
    assertThat(engine.result(r.runId()).orElseThrow().toJson()).isEqualTo(r.toJson());
  }

  @ParameterizedTest
  @ValueSource(strings = {"failed", "paused"})
  void aRunThatCanStillBeResumedKeepsEveryNodeExecutionAndResumesFromThem(String how) throws Exception {
    List<NodeExecution> journaled = new CopyOnWriteArrayList<>();
    RunStore store = recording(RunStore.inMemory(), journaled);
    Loopflow engine = nestedEngine(store, how.equals("failed") ? PASSES - 5 : -1, new AtomicBoolean());
    Workflow wf = engine.parse(nested(PASSES, how.equals("paused")), "n.yaml");
    RunResult first = engine.start(wf, RunOptions.defaults()).await();
    assertThat(first.status().json()).as("%s", first.error()).isEqualTo(how);
    assertThat(journaled.stream().filter(PassFootprintTest::inLoop).count()).isGreaterThan(1_000);
    assertThat(store.nodeExecutions(first.runId())).containsExactlyElementsOf(journaled);

    List<Event> more = new ArrayList<>();
    RunResult done = engine.resume(wf, first.runId(), how.equals("paused") ? ResumeInput.approve(null)
        : ResumeInput.none(), listening(more), false).await();
    assertThat(done.status()).as("%s", done.error()).isEqualTo(RunStatus.COMPLETED);
    assertThat(done.state()).containsEntry("count", (long) PASSES);
    long restarted = more.stream().filter(e -> e instanceof Event.NodeStarted s
        && s.node().nodeId().equals("increment")).count();
    assertThat(restarted).isEqualTo(how.equals("failed") ? 5 : 0);
    assertThat(store.nodeExecutions(done.runId()).stream().filter(PassFootprintTest::inLoop)).hasSize(1_000);
    assertThat(store.loopPasses(done.runId())).isEqualTo(RunSummary.iterations(journaled));
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
    CountDownLatch ready = new CountDownLatch(1);
    AtomicReference<RunHandle> handle = new AtomicReference<>();
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
    RunHandle h = engine.start(wf, listening(seen));
    handle.set(h);
    ready.countDown();
    RunResult r = h.await();
    assertThat(r.status()).isEqualTo(RunStatus.CANCELLED);
    assertThat(seen.size()).isGreaterThan(3 * (PASSES - 1));
    List<Event> kept = store.events(r.runId());
    assertThat(kept).hasSize(1_001).containsExactlyElementsOf(seen.subList(seen.size() - 1_001, seen.size()));
  }

  @Test
  void aCancelledRunKeepsTheLastThousandNodeExecutionsInLoopsAndListsEveryPass() throws Exception {
    List<NodeExecution> journaled = new CopyOnWriteArrayList<>();
    RunStore store = recording(RunStore.inMemory(), journaled);
    AtomicReference<RunHandle> handle = new AtomicReference<>();
    CountDownLatch ready = new CountDownLatch(1);
    Loopflow engine = Loopflow.builder().store(store).handler(handler("test.increment", NodeProgram.inline(ctx -> {
      ready.await();
      long count = ((Number) ((Map<?, ?>) ctx.scope().get("state")).get("count")).longValue();
      if (count == PASSES - 1) {
        handle.get().cancel("enough");
      }
      return NodeOutcome.of(null).withStatePatch(Map.of("count", count + 1));
    }))).handler(handler("test.note", NodeProgram.inline(ctx -> NodeOutcome.of("noted")))).build();
    RunHandle h = engine.start(engine.parse(nested(PASSES * 2, false), "n.yaml"),
        RunOptions.defaults());
    handle.set(h);
    ready.countDown();
    RunResult r = h.await();
    assertThat(r.status()).isEqualTo(RunStatus.CANCELLED);
    assertThat(journaled.stream().filter(PassFootprintTest::inLoop).count()).isGreaterThan(1_000);
    assertThat(store.nodeExecutions(r.runId()).stream().filter(PassFootprintTest::inLoop)).hasSize(1_000);
    int passes = RunSummary.iterations(journaled);
    assertThat(passes).isGreaterThanOrEqualTo(PASSES);
    assertThat(RunSummary.list(store, Set.of(RunStatus.CANCELLED), null, 5).getFirst()
        .iterations()).isEqualTo(passes);
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
