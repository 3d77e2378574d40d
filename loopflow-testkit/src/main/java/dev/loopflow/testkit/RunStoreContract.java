package dev.loopflow.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RunError;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.run.Waiting;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.core.store.JournalSlice;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.core.store.RunSummary;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link RunStore} must do, as one suite: an implementation's test extends this class and says how to
 * open a store (and, for durable stores, how to open the same store again as a new process would). The engine
 * relies on nothing a store does that is not pinned here. The command bus and shared memory parts are in
 * {@link RunCommandsContract}, {@link SharedMemoryContract} and {@link RunDeleteContract}, which this suite runs too.
 */
public abstract class RunStoreContract implements RunCommandsContract, SharedMemoryContract, RunDeleteContract {
  protected RunStore store;
  private static final Instant T0 = Instant.parse("2026-11-22T10:15:30.123456Z");

  protected RunStoreContract() {}

  /** A new, empty store. */
  protected abstract RunStore open() throws Exception;

  /** The same store opened again (a new process reading the same file or database); null when not durable. */
  protected RunStore reopen() throws Exception {
    return null;
  }

  @Override
  public final RunStore storeUnderTest() {
    return store;
  }

  @Override
  public final RunStore sameDatabaseAgain() throws Exception {
    return reopen();
  }

  @BeforeEach
  void openStore() throws Exception {
    store = open();
  }

  @AfterEach
  void closeStore() {
    if (store != null) {
      store.close();
    }
  }

  protected static String newId() {
    return "run_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
  }

  protected static RunRecord run(String id, Instant started) {
    Map<String, Object> inputs = new LinkedHashMap<>();
    inputs.put("topic", "loops");
    inputs.put("n", 3);
    inputs.put("nested", Map.of("list", List.of(1, "two", Map.of("three", true))));
    Map<String, Object> options = new LinkedHashMap<>();
    options.put("llm.mock", true);
    options.put("llm.mock_script", Map.of("writer", List.of("draft one", Map.of("text", "draft two",
        "input_tokens", 12))));
    return RunRecord.builder().runId(id).workflow("review").file("examples/review.yaml")
        .source("name: review\nnodes: []\n").sourceHash("sha256:abc").inputs(inputs).options(options)
        .status(RunStatus.RUNNING).startedAt(started).workingDirectory("/work/dir").build();
  }

  protected static NodeExecution execution(String runId, NodePosition pos, String text) {
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("status", "completed");
    result.put("output", text);
    result.put("json", Map.of("score", 0.5, "tags", List.of("a", "b")));
    Map<String, List<Map<String, String>>> sessions = Map.of("writer", List.of(
        Map.of("role", "user", "content", "draft " + text), Map.of("role", "assistant", "content", text)));
    return new NodeExecution(runId, pos, "llm", NodeStatus.COMPLETED, 2, T0, T0.plusMillis(40),
        Map.of("Write {{ topic }}", "Write loops"), result, new Usage(120, 30, 0.0042, 1, 0), null, null,
        Map.of("drafts", List.of(text)), sessions);
  }

  private static NodePosition nested(String node, int outer, int inner) {
    return new NodePosition(List.of(new NodePosition.LoopFrame("fix", outer),
        new NodePosition.LoopFrame("inner", inner)), node);
  }

  @Test
  void aCreatedRunIsFoundWithEveryField() {
    String id = newId();
    RunRecord r = run(id, T0);
    store.createRun(r);
    assertThat(store.findRun(id)).contains(r);
    assertThat(store.findRun("run_missing")).isEmpty();
  }

  @Test
  void creatingARunTwiceFails() {
    String id = newId();
    store.createRun(run(id, T0));
    assertThatThrownBy(() -> store.createRun(run(id, T0))).isInstanceOf(RuntimeException.class);
  }

  @Test
  void updatesKeepFinishedPausedAndResumedStates() {
    String id = newId();
    RunRecord r = run(id, T0);
    store.createRun(r);
    RunRecord paused = r.paused(T0.plusSeconds(2), new Usage(10, 5, null, 1, 1), new Waiting(Waiting.Kind.INPUT,
        "fix", "fix[2].gate", "fix", 2, "continue?", null, null));
    store.updateRun(paused);
    assertThat(store.findRun(id)).contains(paused);
    RunRecord approval = r.paused(T0.plusSeconds(3), Usage.NONE, new Waiting(Waiting.Kind.APPROVAL, "ask",
        "outer[1].ask", "outer", 1, "ship it?", T0.plusSeconds(3600), "reject"), Map.of("k", "v"),
        Map.of("ask", Map.of("status", "paused")));
    store.updateRun(approval);
    assertThat(store.findRun(id)).contains(approval);
    RunRecord resumed = paused.resumed(Map.of("llm.mock", true));
    store.updateRun(resumed);
    assertThat(store.findRun(id)).contains(resumed);
    RunRecord failed = resumed.finish(RunStatus.FAILED, T0.plusSeconds(9), new Usage(10, 5, 0.25, 2, 0), null,
        new RunError(ErrorCode.LOOP_ITERATION_EXCEEDED, "too many", "review", "fix[3].review",
            Map.of("edgeFrom", "review", "maxIterations", 3)));
    store.updateRun(failed);
    assertThat(store.findRun(id)).contains(failed);
    RunRecord done = resumed.finish(RunStatus.COMPLETED, T0.plusSeconds(9), Usage.NONE,
        Map.of("answer", List.of(1, 2, 3)), null, Map.of("count", 3),
        Map.of("fix", Map.of("status", "completed", "iterations", 3)));
    store.updateRun(done);
    assertThat(store.findRun(id)).contains(done);
  }

  @Test
  void runsAreListedMostRecentFirst() {
    String a = newId();
    String b = newId();
    String c = newId();
    store.createRun(run(b, T0.plusSeconds(10)));
    store.createRun(run(a, T0));
    store.createRun(run(c, T0.plusSeconds(20)));
    List<String> ids = store.listRuns().stream().map(RunRecord::runId).filter(List.of(a, b, c)::contains).toList();
    assertThat(ids).containsExactly(c, b, a);
  }

  @Test
  void nodeExecutionsComeBackInJournalOrderWithPositionsAndDeltas() {
    String id = newId();
    store.createRun(run(id, T0));
    List<NodeExecution> written = new ArrayList<>();
    written.add(execution(id, NodePosition.top("plan"), "p"));
    written.add(execution(id, nested("implement", 1, 1), "i11"));
    written.add(execution(id, nested("implement", 1, 2), "i12"));
    written.add(execution(id, nested("implement", 2, 1), "i21"));
    // Two rows for one position (paused, then answered): both kept, in order.
    written.add(new NodeExecution(id, NodePosition.top("gate"), "approval", NodeStatus.PAUSED, 1, T0, T0, null,
        Map.of("status", "paused", "message", "ok?"), Usage.NONE, null, null, null, null));
    written.add(new NodeExecution(id, NodePosition.top("gate"), "approval", NodeStatus.FAILED, 1, T0, T0, null,
        Map.of("status", "failed"), Usage.NONE, "node_failed", "rejected", null, null));
    written.forEach(store::recordNodeExecution);
    assertThat(store.nodeExecutions(id)).containsExactlyElementsOf(written);
    assertThat(store.nodeExecutions("run_other")).isEmpty();
  }

  @Test
  void aRunsLoopPassesAreCountedAsFromItsRows() {
    String id = newId();
    store.createRun(run(id, T0));
    List<NodeExecution> written = new ArrayList<>();
    Random random = new Random(id.hashCode());
    for (int i = 0; i < 300; i++) {
      NodePosition pos = switch (random.nextInt(3)) {
        case 0 -> NodePosition.top("n" + random.nextInt(4));
        case 1 -> new NodePosition(List.of(new NodePosition.LoopFrame("outer", 1 + random.nextInt(5))), "body");
        default -> nested("inner", 1 + random.nextInt(5), 1 + random.nextInt(7));
      };
      written.add(execution(id, pos, "x" + i));
    }
    written.forEach(store::recordNodeExecution);
    assertThat(store.loopPasses(id)).isEqualTo(RunSummary.iterations(written)).isPositive();
    assertThat(store.loopPasses("run_other")).isZero();
  }

  @Test
  void eventsComeBackInSequenceOrder() {
    String id = newId();
    store.createRun(run(id, T0));
    List<Event> events = List.of(
        new Event.RunStarted(id, 1, T0, "review", Map.of("topic", "loops")),
        new Event.LoopIteration(id, 2, T0, NodePosition.top("fix"), "loop", 1, 0, 3, 3, "draft", null),
        new Event.NodeCompleted(id, 3, T0, nested("implement", 1, 1), "llm", 40, "text", 120, 30, 0.0042, 4),
        new Event.LoopIterate(id, 4, T0, NodePosition.top("review"), "review", "write", 1, 3),
        new Event.RunFinished(id, 5, T0, "completed", null, null, 120, 30, null, 1));
    events.forEach(store::appendEvent);
    assertThat(store.events(id)).containsExactlyElementsOf(events);
  }

  @Test
  void readsUnderAPathHoldExactlyThatPrefixsRowsThoughIdsHoldLikeWildcards() {
    String id = newId();
    store.createRun(run(id, T0));
    // a_b and aXb differ where LIKE's _ matches any character; a_b2 shares a_b's text as a prefix of its id
    List<NodePosition> positions = new ArrayList<>();
    for (String loop : List.of("a_b", "aXb", "a_b2", "A_B")) {
      for (int pass = 1; pass <= 12; pass++) {
        positions.add(new NodePosition(List.of(new NodePosition.LoopFrame(loop, pass)), "n%" + pass));
      }
    }
    positions.add(NodePosition.top("a_b"));
    long seq = 0;
    List<NodeExecution> rows = new ArrayList<>();
    List<Event> events = new ArrayList<>();
    for (NodePosition p : positions) {
      NodeExecution e = execution(id, p, p.path());
      rows.add(e);
      store.recordNodeExecution(e);
      Event started = new Event.NodeStarted(id, ++seq, T0, p, "shell", 1);
      events.add(started);
      store.appendEvent(started);
    }
    Event run = new Event.RunStarted(id, ++seq, T0, "review", Map.of("path", "a_b[1].x"));
    store.appendEvent(run);
    for (String prefix : List.of("a_b[", "a_b[1", "a_b[1]", "a_b[12].", "aXb[", "a_b", "A_B[3].", "zz")) {
      JournalSlice under = JournalSlice.under(prefix);
      assertThat(store.nodeExecutions(id, under)).as(prefix)
          .containsExactlyElementsOf(rows.stream().filter(r -> r.position().path().startsWith(prefix)).toList());
      assertThat(store.events(id, under)).as(prefix).containsExactlyElementsOf(events.stream()
          .filter(e -> ((Event.NodeStarted) e).node().path().startsWith(prefix)).toList());
    }
    assertThat(store.nodeExecutions(id, JournalSlice.under("a_b[1"))).as("passes 1, 10, 11 and 12").hasSize(4);
    assertThat(store.events(newId(), JournalSlice.under("a_b"))).isEmpty();
  }

  @Test
  void aSliceOfRecentPassesKeepsEachLoopInstancesLastPassesAndWhatIsOutsideLoops() {
    String id = newId();
    store.createRun(run(id, T0));
    List<Event> events = new ArrayList<>();
    long seq = 0;
    events.add(new Event.RunStarted(id, ++seq, T0, "review", Map.of()));
    events.add(new Event.NodeStarted(id, ++seq, T0, NodePosition.top("prepare"), "shell", 1));
    for (int outer = 1; outer <= 3; outer++) {
      events.add(new Event.LoopIteration(id, ++seq, T0, NodePosition.top("fix"), "loop_group", outer, outer - 1, 3, 3,
          "", null));
      NodePosition inner = new NodePosition(List.of(new NodePosition.LoopFrame("fix", outer)), "inner");
      for (int k = 1; k <= 5; k++) {
        events.add(new Event.LoopIteration(id, ++seq, T0, inner, "while_loop", k, k - 1, 9, 0, "", true));
        events.add(new Event.NodeStarted(id, ++seq, T0, nested("implement", outer, k), "llm", 1));
      }
      // the while_loop's last check: no pass starts
      events.add(new Event.LoopIteration(id, ++seq, T0, inner, "while_loop", 6, 5, 9, 0, "", false));
    }
    events.add(new Event.RunFinished(id, ++seq, T0, "completed", null, null, 0, 0, null, 0));
    events.forEach(store::appendEvent);
    List<NodeExecution> rows = new ArrayList<>();
    for (Event e : events) {
      if (e instanceof Event.NodeStarted n) {
        NodeExecution x = execution(id, n.node(), n.node().path());
        rows.add(x);
        store.recordNodeExecution(x);
      }
    }
    List<Event> recent = store.events(id, JournalSlice.recentPasses(2));
    assertThat(recent).containsExactlyElementsOf(JournalSlice.recentPasses(2).events(events));
    List<String> kept = recent.stream().map(e -> e instanceof Event.LoopIteration it
        ? it.node().path() + "#" + it.iteration() : e.type() + " " + JournalSlice.path(e)).toList();
    assertThat(kept).containsExactly("run.started null", "node.started prepare",
        "fix#2", "fix[2].inner#4", "node.started fix[2].inner[4].implement", "fix[2].inner#5",
        "node.started fix[2].inner[5].implement", "fix[2].inner#6",
        "fix#3", "fix[3].inner#4", "node.started fix[3].inner[4].implement", "fix[3].inner#5",
        "node.started fix[3].inner[5].implement", "fix[3].inner#6", "run.finished null");
    assertThat(store.nodeExecutions(id, JournalSlice.recentPasses(2)))
        .containsExactlyElementsOf(JournalSlice.recentPasses(2).executions(rows)).hasSize(5);
    assertThat(store.events(id, JournalSlice.pass("fix[1].inner", 3))).extracting(Event::seq)
        .containsExactly(events.stream().filter(e -> JournalSlice.path(e) != null
            && (JournalSlice.path(e).startsWith("fix[1].inner[3].")
                || JournalSlice.path(e).equals("fix[1].inner") && JournalSlice.inPass(e) == 3))
            .map(Event::seq).toArray(Long[]::new));
    assertThat(store.nodeExecutions(id, JournalSlice.pass("fix[1].inner", 3))).hasSize(1);
  }

  @Test
  void eventsAfterASequenceNumberAreTheJournalsTailInOrder() {
    String id = newId();
    store.createRun(run(id, T0));
    List<Event> events = new ArrayList<>();
    for (int i = 1; i <= 7; i++) {
      events.add(new Event.NodeStarted(id, i, T0, NodePosition.top("n" + i), "shell", 1));
    }
    events.forEach(store::appendEvent);
    String other = newId();
    store.createRun(run(other, T0));
    store.appendEvent(new Event.NodeStarted(other, 9, T0, NodePosition.top("x"), "shell", 1));
    assertThat(store.events(id, 0)).containsExactlyElementsOf(events);
    assertThat(store.events(id, -5)).containsExactlyElementsOf(events);
    assertThat(store.events(id, 3)).containsExactlyElementsOf(events.subList(3, 7));
    assertThat(store.events(id, 6)).containsExactly(events.get(6));
    assertThat(store.events(id, 7)).isEmpty();
    assertThat(store.events(id, Long.MAX_VALUE)).isEmpty();
    assertThat(store.events(newId(), 0)).isEmpty();
  }

  @Test
  void eventsAppendedBeforeANodeCompletionAreKeptWithIt() throws Exception {
    String id = newId();
    store.createRun(run(id, T0));
    store.appendEvent(new Event.NodeStarted(id, 1, T0, NodePosition.top("plan"), "llm", 1));
    store.recordNodeExecution(execution(id, NodePosition.top("plan"), "p"));
    store.flush(); // another store sees what this one wrote once it has flushed (or closed)
    RunStore again = reopen();
    if (again == null) {
      return;
    }
    try (again) {
      assertThat(again.events(id)).extracting(Event::type).containsExactly("node.started");
      assertThat(again.nodeExecutions(id)).hasSize(1);
    }
  }

  @Test
  void aReopenedStoreHasEverything() throws Exception {
    String id = newId();
    RunRecord r = run(id, T0);
    store.createRun(r);
    NodeExecution e = execution(id, nested("implement", 2, 3), "x");
    store.recordNodeExecution(e);
    store.appendEvent(new Event.RunStarted(id, 1, T0, "review", Map.of()));
    RunRecord done = r.finish(RunStatus.COMPLETED, T0.plusSeconds(1), new Usage(1, 2, 0.5, 1, 0), "out", null);
    store.updateRun(done);
    store.flush();
    RunStore again = reopen();
    if (again == null) {
      return;
    }
    try (again) {
      assertThat(again.findRun(id)).contains(done);
      assertThat(again.nodeExecutions(id)).containsExactly(e);
      assertThat(again.events(id)).hasSize(1);
    }
  }

  /**
   * Values a durable store may store apart or escape (large strings and structures, equal values in several
   * documents, strings that start with NUL or look like the store's own references) come back exactly as written,
   * in every document: run inputs and outcome, execution input, result, state patch and sessions, and events.
   */
  @Test
  void largeSharedAndOddValuesComeBackExactly() {
    String big = "b".repeat(300_000);
    List<Object> bigList = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      bigList.add(Map.of("i", i, "s", "item " + i));
    }
    List<Object> values = List.of(big, big + "!", bigList, Map.of("inner", big, "list", bigList),
        "\u0000", "\u0000\u0000x", "\u0000lf:v1:0000000000000000000000000000000000000000000000000000000000000000",
        "\u0000lf:v1:" + "f".repeat(64) + big, List.of("\u0000", big, "\u0000\u0000"), "", "x".repeat(16 * 1024),
        "y".repeat(16 * 1024 - 1), Map.of("\u0000key", big));
    String id = newId();
    Map<String, Object> inputs = new LinkedHashMap<>();
    for (int i = 0; i < values.size(); i++) {
      inputs.put("v" + i, values.get(i));
    }
    RunRecord r = RunRecord.builder().runId(id).workflow("review").inputs(inputs).status(RunStatus.RUNNING)
        .startedAt(T0).build();
    store.createRun(r);
    Map<String, Object> result = new LinkedHashMap<>(inputs);
    result.put("output", big);
    result.put("body", big);
    NodeExecution e = new NodeExecution(id, NodePosition.top("h"), "http", NodeStatus.COMPLETED, 1, T0,
        T0.plusMillis(1), Map.of("{{ h.body }}", big), result, Usage.NONE, null, null, inputs,
        Map.of("\u0000mock", List.of(Map.of("role", "user", "content", big)), "chat", List.of(Map.of("role",
            "assistant", "content", "\u0000\u0000"))));
    store.recordNodeExecution(e);
    store.appendEvent(new Event.RunStarted(id, 1, T0, "review", inputs));
    RunRecord done = r.finish(RunStatus.COMPLETED, T0.plusSeconds(1), Usage.NONE, big, null, inputs,
        Map.of("h", result));
    store.updateRun(done);
    store.flush();

    assertThat(store.findRun(id)).contains(done);
    assertThat(store.nodeExecutions(id)).containsExactly(e);
    assertThat(store.events(id)).containsExactly(new Event.RunStarted(id, 1, T0, "review", inputs));
  }

  @Test
  void aLeaseIsExclusiveUntilItExpiresOrIsReleased() {
    String id = newId();
    store.createRun(run(id, T0));
    Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    assertThat(store.tryLease(id, "a", now, now.plusSeconds(10), null)).isTrue();
    assertThat(store.tryLease(id, "b", now, now.plusSeconds(10), null)).isFalse();
    assertThat(store.lease(id)).contains(new RunStore.Lease("a", now.plusSeconds(10)));
    assertThat(store.tryLease(id, "a", now.plusSeconds(1), now.plusSeconds(11), null)).as("renewal").isTrue();
    assertThat(store.tryLease(id, "b", now.plusSeconds(12), now.plusSeconds(20), null)).as("after expiry").isTrue();
    assertThat(store.tryLease(id, "a", now.plusSeconds(13), now.plusSeconds(20), null)).isFalse();
    assertThat(store.tryLease(id, "c", now.plusSeconds(13), now.plusSeconds(20), "b")).as("replacing").isTrue();
    store.releaseLease(id, "b");
    assertThat(store.lease(id)).map(RunStore.Lease::owner).contains("c");
    store.releaseLease(id, "c");
    assertThat(store.lease(id)).isEmpty();
    assertThat(store.tryLease(id, "a", now.plusSeconds(13), now.plusSeconds(20), null)).isTrue();
    assertThat(store.tryLease("run_missing", "a", now, now.plusSeconds(1), null)).isFalse();
  }

  @Test
  void onlyOneOfManyContendersTakesAFreeLease() throws Exception {
    String id = newId();
    store.createRun(run(id, T0));
    Instant now = Instant.now();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Boolean>> tries = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        String owner = "owner-" + i;
        tries.add(pool.submit(() -> store.tryLease(id, owner, now, now.plusSeconds(30), null)));
      }
      int won = 0;
      for (Future<Boolean> f : tries) {
        won += f.get() ? 1 : 0;
      }
      assertThat(won).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aCancelRequestIsSeenWithItsReasonUntilCleared() {
    String id = newId();
    store.createRun(run(id, T0));
    assertThat(store.cancelRequest(id)).isEmpty();
    store.requestCancel(id, "changed our minds");
    assertThat(store.cancelRequest(id)).contains("changed our minds");
    store.requestCancel(id, null);
    assertThat(store.cancelRequest(id)).isEmpty();
  }

  @Test
  void concurrentRunsWriteWithoutLosingRows() throws Exception {
    int runs = 20;
    int rows = 25;
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < runs; i++) {
      String id = newId();
      ids.add(id);
      store.createRun(run(id, T0.plusMillis(i)));
    }
    ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
    try {
      List<Future<?>> fs = new ArrayList<>();
      for (String id : ids) {
        fs.add(pool.submit(() -> {
          for (int j = 1; j <= rows; j++) {
            store.appendEvent(new Event.NodeStarted(id, j, T0, NodePosition.top("n"), "shell", 1));
            store.recordNodeExecution(execution(id, new NodePosition(
                List.of(new NodePosition.LoopFrame("loop", j)), "n"), "v" + j));
          }
          return null;
        }));
      }
      for (Future<?> f : fs) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    for (String id : ids) {
      List<NodeExecution> got = store.nodeExecutions(id);
      assertThat(got).hasSize(rows);
      assertThat(got).extracting(e -> e.position().loops().get(0).iteration())
          .containsExactlyElementsOf(IntStream.rangeClosed(1, rows).boxed().toList());
      assertThat(store.events(id)).hasSize(rows);
    }
  }
}
