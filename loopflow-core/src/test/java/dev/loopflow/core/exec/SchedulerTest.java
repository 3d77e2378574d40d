package dev.loopflow.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.NodeProgram;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SchedulerTest {
  private final Loopflow engine = Loopflow.builder().build();

  /** Waits on a latch that is never released: the node runs until it is interrupted. */
  private static NodeOutcome blockForever(CountDownLatch started) throws InterruptedException {
    started.countDown();
    new CountDownLatch(1).await();
    throw new AssertionError("unreachable");
  }

  private static Map<String, String> statuses(RunResult r) {
    Map<String, String> out = new java.util.LinkedHashMap<>();
    r.nodes().forEach((id, result) -> out.put(id, (String) result.get("status")));
    return out;
  }

  @Test
  void independentNodesRunConcurrently() {
    CyclicBarrier bothInside = new CyclicBarrier(2);
    NodeProgram meet = ctx -> {
      bothInside.await(10, TimeUnit.SECONDS); // times out (and fails the node) unless the other node is inside too
      return NodeOutcome.of(ctx.position().nodeId());
    };
    Workflow wf = engine.workflow("parallel")
        .node("a", meet)
        .node("b", meet)
        .edge("__start__", "a")
        .edge("__start__", "b")
        .build();

    RunResult r = engine.run(wf, Map.of());

    assertThat(r.error()).isNull();
    assertThat(statuses(r)).containsExactly(Map.entry("a", "completed"), Map.entry("b", "completed"));
  }

  @Test
  void concurrencyLimitOfOneSerializesIndependentNodes() {
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger maxInside = new AtomicInteger();
    List<String> trace = new CopyOnWriteArrayList<>();
    NodeProgram work = ctx -> {
      String id = ctx.position().nodeId();
      maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
      trace.add("start " + id);
      trace.add("end " + id);
      inside.decrementAndGet();
      return NodeOutcome.of(id);
    };
    Workflow wf = engine.workflow("serial")
        .node("a", work).node("b", work).node("c", work)
        .edge("__start__", "a").edge("__start__", "b").edge("__start__", "c")
        .set("limits", Map.of("concurrency", 1))
        .build();

    RunResult r = engine.run(wf, Map.of());

    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(maxInside.get()).isEqualTo(1);
    assertThat(trace).containsExactly("start a", "end a", "start b", "end b", "start c", "end c");
  }

  @Test
  void joinWaitsForAllItsPredecessors() {
    AtomicBoolean aDone = new AtomicBoolean();
    AtomicBoolean bDone = new AtomicBoolean();
    CountDownLatch aStarted = new CountDownLatch(1);
    List<String> seenByJoin = new CopyOnWriteArrayList<>();
    Workflow wf = engine.workflow("join")
        .node("a", ctx -> {
          aStarted.countDown();
          aDone.set(true);
          return NodeOutcome.of("A");
        })
        .node("b", ctx -> {
          aStarted.await(10, TimeUnit.SECONDS); // b finishes after a has started, so the join cannot race ahead
          bDone.set(true);
          return NodeOutcome.of("B");
        })
        .node("join", ctx -> {
          seenByJoin.add("a=" + aDone.get());
          seenByJoin.add("b=" + bDone.get());
          @SuppressWarnings("unchecked")
          Map<String, Object> a = (Map<String, Object>) ctx.scope().get("a");
          @SuppressWarnings("unchecked")
          Map<String, Object> b = (Map<String, Object>) ctx.scope().get("b");
          return NodeOutcome.of(a.get("output") + "+" + b.get("output"));
        })
        .edge("__start__", "a").edge("__start__", "b")
        .edge("a", "join").edge("b", "join")
        .build();

    RunResult r = engine.run(wf, Map.of());

    assertThat(r.error()).isNull();
    assertThat(seenByJoin).containsExactly("a=true", "b=true");
    assertThat(r.nodes().get("join")).containsEntry("output", "A+B");
    assertThat(r.output()).isEqualTo("A+B");
  }

  @Test
  void falseWhenEdgeSkipsTheWholeChainBehindIt() {
    List<String> ran = new CopyOnWriteArrayList<>();
    NodeProgram record = ctx -> {
      ran.add(ctx.position().nodeId());
      return NodeOutcome.of(ctx.position().nodeId());
    };
    Workflow wf = engine.workflow("skip")
        .node("a", record).node("b", record).node("c", record).node("d", record)
        .edge("a", "b", "a.output == 'not a'")
        .edge("b", "c")
        .edge("c", "d")
        .build();

    RunResult r = engine.run(wf, Map.of());

    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(ran).containsExactly("a");
    assertThat(statuses(r)).containsExactly(Map.entry("a", "completed"), Map.entry("b", "skipped"),
        Map.entry("c", "skipped"), Map.entry("d", "skipped"));
    assertThat(r.output()).isEqualTo("a");
  }

  @Test
  void nodeWithTwoIncomingEdgesRunsWhenOneIsActive() {
    List<String> ran = new CopyOnWriteArrayList<>();
    NodeProgram record = ctx -> {
      ran.add(ctx.position().nodeId());
      return NodeOutcome.of(ctx.position().nodeId());
    };
    Workflow wf = engine.workflow("merge")
        .node("a", record).node("b", record).node("merge", record)
        .edge("__start__", "a").edge("__start__", "b")
        .edge("a", "merge", "false")
        .edge("b", "merge", "b.output == 'b'")
        .build();

    RunResult r = engine.run(wf, Map.of());

    assertThat(statuses(r)).containsEntry("merge", "completed");
    assertThat(ran).containsOnlyOnce("merge");
  }

  @Test
  void nodeWhoseIncomingEdgesAreAllInactiveIsSkipped() {
    NodeProgram ok = ctx -> NodeOutcome.of(1);
    Workflow wf = engine.workflow("merge")
        .node("a", ok).node("b", ok).node("merge", ok)
        .edge("__start__", "a").edge("__start__", "b")
        .edge("a", "merge", "false")
        .edge("b", "merge", "a.output == 2")
        .build();

    RunResult r = engine.run(wf, Map.of());

    assertThat(statuses(r)).containsEntry("merge", "skipped");
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
  }

  @Test
  void routerTakesOnlyTheSelectedBranch() {
    Workflow wf = engine.parse("""
        name: route
        input:
          n: number
        nodes:
          - id: pick
            type: router
            routes:
              big: "input.n > 10"
              medium: {gt: {var: input.n, value: 5}}
              small: default
            value: "{{ input.n }}"
          - id: say_big
            type: transform
            template: "big {{ pick.value }}"
          - id: say_medium
            type: transform
            template: "medium {{ pick.value }}"
          - id: say_small
            type: transform
            template: "small {{ pick.value }}"
          - id: after_medium
            type: transform
            template: "after {{ say_medium.output }}"
        edges:
          - {from: pick, to: say_big, branch: big}
          - {from: pick, to: say_medium, branch: medium}
          - {from: pick, to: say_small, branch: small}
          - {from: say_medium, to: after_medium}
        """, "route.yaml");

    RunResult medium = engine.run(wf, Map.of("n", 7));
    assertThat(statuses(medium)).containsExactly(Map.entry("pick", "completed"), Map.entry("say_big", "skipped"),
        Map.entry("say_medium", "completed"), Map.entry("say_small", "skipped"),
        Map.entry("after_medium", "completed"));
    assertThat(medium.nodes().get("pick")).containsEntry("selectedBranch", "medium").containsEntry("value", 7);
    assertThat(medium.output()).isEqualTo("after medium 7");

    RunResult small = engine.run(wf, Map.of("n", 1));
    assertThat(statuses(small)).containsEntry("say_small", "completed").containsEntry("say_medium", "skipped")
        .containsEntry("after_medium", "skipped");
    assertThat(small.output()).isEqualTo("small 1");
  }

  @Test
  void routerWithoutAMatchingRouteFailsTheRun() {
    Workflow wf = engine.parse("""
        name: route
        nodes:
          - id: pick
            type: router
            routes:
              "yes": "input.flag"
          - id: go
            type: transform
            template: go
        edges:
          - {from: pick, to: go, branch: "yes"}
        """, "route.yaml");

    RunResult r = engine.run(wf, Map.of("flag", false));

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("node_failed");
    assertThat(r.error().node()).isEqualTo("pick");
    assertThat(r.error().message()).contains("router node 'pick' failed: no route matched");
    assertThat(statuses(r)).containsEntry("go", "not_run");
  }

  @Test
  void failingNodeFailsTheRunCancelsRunningNodesAndLeavesTheRestNotRun() {
    CountDownLatch slowStarted = new CountDownLatch(1);
    Workflow wf = engine.workflow("fail")
        .node("slow", ctx -> blockForever(slowStarted))
        .node("boom", ctx -> {
          slowStarted.await(10, TimeUnit.SECONDS);
          throw new IllegalStateException("disk on fire");
        })
        .node("after_boom", ctx -> NodeOutcome.of("never"))
        .node("after_slow", ctx -> NodeOutcome.of("never"))
        .edge("__start__", "slow").edge("__start__", "boom")
        .edge("boom", "after_boom").edge("slow", "after_slow")
        .build();

    RunResult r = engine.run(wf, Map.of());

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("node_failed");
    assertThat(r.error().node()).isEqualTo("boom");
    assertThat(r.error().message()).contains("'boom'").contains("disk on fire");
    assertThat(r.output()).isNull();
    assertThat(statuses(r)).containsExactly(Map.entry("slow", "cancelled"), Map.entry("boom", "failed"),
        Map.entry("after_boom", "not_run"), Map.entry("after_slow", "not_run"));
    @SuppressWarnings("unchecked")
    Map<String, Object> error = (Map<String, Object>) r.nodes().get("boom").get("error");
    assertThat(error).containsEntry("code", "node_failed").containsEntry("message", "disk on fire");
  }

  @Test
  void nodeThrowingAnErrorFailsTheRunInsteadOfHangingIt() {
    Workflow wf = engine.workflow("error")
        .node("assert", ctx -> {
          throw new AssertionError("invariant broken");
        })
        .build();

    RunResult r = engine.run(wf, Map.of());

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().message()).isEqualTo("java.assert node 'assert' failed: invariant broken");
  }

  @Test
  void allowFailureKeepsTheRunGoing() {
    Workflow wf = engine.parse("""
        name: tolerant
        nodes:
          - id: flaky
            bash: "echo partial; echo oops >&2; exit 3"
            allow_failure: true
          - id: next
            type: transform
            template: "exit was {{ flaky.exitCode }}, said {{ flaky.output }}"
        """, "tolerant.yaml");

    RunResult r = engine.run(wf, Map.of());

    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.error()).isNull();
    assertThat(r.nodes().get("flaky"))
        .containsEntry("status", "failed")
        .containsEntry("exitCode", 3)
        .containsEntry("stderr", "oops\n");
    assertThat(r.output()).isEqualTo("exit was 3, said partial");
  }

  @Test
  void retrySucceedsOnTheSecondAttempt() {
    AtomicInteger attempts = new AtomicInteger();
    Loopflow e = Loopflow.builder().handler(new ProgramHandler("flaky", ctx -> {
      if (attempts.incrementAndGet() == 1) {
        throw new IllegalStateException("transient");
      }
      return NodeOutcome.of("ok on attempt " + attempts.get());
    })).build();
    Workflow wf = e.parse("""
        name: retry
        nodes:
          - id: call
            type: flaky
            retry: {max_attempts: 3, delay: 1ms}
        """, "retry.yaml");
    List<Event> events = new CopyOnWriteArrayList<>();

    RunResult r = e.run(wf, RunOptions.builder().listener(events::add).build());

    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.output()).isEqualTo("ok on attempt 2");
    assertThat(attempts).hasValue(2);
    assertThat(events).filteredOn(ev -> ev instanceof Event.NodeRetrying).singleElement()
        .satisfies(ev -> assertThat(((Event.NodeRetrying) ev).message()).isEqualTo("transient"));
    assertThat(events).filteredOn(ev -> ev instanceof Event.NodeStarted)
        .extracting(ev -> ((Event.NodeStarted) ev).attempt()).containsExactly(1, 2);
  }

  @Test
  void retriesExhaustedFailTheRunWithTheLastError() {
    AtomicInteger attempts = new AtomicInteger();
    Loopflow e = Loopflow.builder().handler(new ProgramHandler("broken", ctx -> {
      throw new IllegalStateException("attempt " + attempts.incrementAndGet() + " failed");
    })).build();
    Workflow wf = e.parse("""
        name: retry
        nodes:
          - id: call
            type: broken
            retry: {max_attempts: 2, delay: 1ms}
        """, "retry.yaml");

    RunResult r = e.run(wf, Map.of());

    assertThat(attempts).hasValue(2);
    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().message()).isEqualTo("broken node 'call' failed: attempt 2 failed");
  }

  @Test
  void cancellingTheRunInterruptsTheBlockedNode() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    Workflow wf = engine.workflow("cancel")
        .node("wait", ctx -> blockForever(started))
        .node("after", ctx -> NodeOutcome.of("never"))
        .edge("wait", "after")
        .build();

    RunHandle h = engine.start(wf, RunOptions.defaults());
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    h.cancel("user pressed stop");
    RunResult r = h.await();

    assertThat(r.status()).isEqualTo(RunStatus.CANCELLED);
    assertThat(r.error().code()).isEqualTo("cancelled");
    assertThat(r.error().message()).contains("user pressed stop");
    assertThat(statuses(r)).containsExactly(Map.entry("wait", "cancelled"), Map.entry("after", "not_run"));
  }

  @Test
  void cancellingDuringARetryDelayCancelsTheNode() throws Exception {
    Loopflow e = Loopflow.builder().handler(new ProgramHandler("failing", ctx -> {
      throw new IllegalStateException("still broken");
    })).build();
    Workflow wf = e.parse("""
        name: retry
        nodes:
          - id: call
            type: failing
            retry: {max_attempts: 5, delay: 1h}
        """, "retry.yaml");
    CountDownLatch retrying = new CountDownLatch(1);

    RunHandle h = e.start(wf, RunOptions.builder()
        .listener(ev -> {
          if (ev instanceof Event.NodeRetrying) {
            retrying.countDown();
          }
        })
        .build());
    assertThat(retrying.await(10, TimeUnit.SECONDS)).isTrue();
    h.cancel("enough");
    RunResult r = h.await();

    assertThat(r.status()).isEqualTo(RunStatus.CANCELLED);
    assertThat(statuses(r)).containsEntry("call", "cancelled");
  }

  // These timeout tests run on the system clock, so their limits pass in real time (ManualClockTest, in the testkit,
  // reaches the same limits by advancing a test clock). Their nodes block until interrupted, so the outcome never
  // depends on how long the limit is; the limits are kept short for speed.

  /** A workflow whose one node, wait, blocks until it is interrupted, under {@code limits.timeout: limit}. */
  private Workflow waitsUnder(String limit) {
    return engine.workflow("slow")
        .node("wait", ctx -> blockForever(new CountDownLatch(1)))
        .set("limits", Map.of("timeout", limit))
        .build();
  }

  /** An engine with the node kind {@code hang}, whose nodes block until they are interrupted. */
  private static Loopflow withHangingNodes() {
    return Loopflow.builder().handler(new ProgramHandler("hang", ctx -> blockForever(new CountDownLatch(1)))).build();
  }

  @Test
  void runTimeoutEndsTheRunWithCodeTimeout() {
    // 200ms rather than less: the message lists the nodes running when the limit struck, so 'wait' must have been
    // dispatched by then, which takes a few milliseconds on an idle machine and more on a busy one.
    RunResult r = engine.run(waitsUnder("200ms"), Map.of());

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("timeout");
    assertThat(r.error().message()).isEqualTo("run timed out after 200ms (limits.timeout); running: [wait]");
    assertThat(statuses(r)).containsEntry("wait", "cancelled");
  }

  @Test
  void runOptionsTimeoutOverridesTheWorkflowLimit() {
    RunResult r = engine.run(waitsUnder("1h"), RunOptions.builder().timeout(Duration.ofMillis(20)).build());

    assertThat(r.error().code()).isEqualTo("timeout");
    assertThat(r.error().message()).startsWith("run timed out after 20ms");
  }

  @Test
  void nodeTimeoutFailsTheNodeAndTheRun() {
    Loopflow e = withHangingNodes();
    Workflow wf = e.parse("""
        name: node-timeout
        nodes:
          - id: hang
            type: hang
            timeout: 20ms
          - id: after
            type: transform
            template: never
        """, "t.yaml");

    RunResult r = e.run(wf, Map.of());

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("timeout");
    assertThat(r.error().node()).isEqualTo("hang");
    assertThat(r.error().message()).isEqualTo("node 'hang' timed out after 20ms");
    assertThat(r.nodes().get("hang")).containsEntry("status", "failed")
        .containsEntry("error",
            Map.of("code", "timeout", "message", "node 'hang' timed out after 20ms", "path", "hang"));
    assertThat(statuses(r)).containsEntry("after", "not_run");
  }

  @Test
  void nodeTimeoutWithAllowFailureLetsTheRunContinue() {
    Loopflow e = withHangingNodes();
    Workflow wf = e.parse("""
        name: node-timeout
        nodes:
          - id: hang
            type: hang
            timeout: 20ms
            allow_failure: true
          - id: after
            type: transform
            template: "carried on after {{ hang.status }}"
        """, "t.yaml");

    RunResult r = e.run(wf, Map.of());

    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.output()).isEqualTo("carried on after failed");
  }

  @Test
  void maxStepsStopsAChainThatIsTooLong() {
    Workflow wf = engine.workflow("chain")
        .node("one", ctx -> NodeOutcome.of(1))
        .node("two", ctx -> NodeOutcome.of(2))
        .node("three", ctx -> NodeOutcome.of(3))
        .set("limits", Map.of("max_steps", 2))
        .build();

    RunResult r = engine.run(wf, Map.of());

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("max_steps_exceeded");
    assertThat(r.error().node()).isEqualTo("three");
    assertThat(r.error().message()).contains("limits.max_steps (2)");
    assertThat(statuses(r)).containsExactly(Map.entry("one", "completed"), Map.entry("two", "completed"),
        Map.entry("three", "not_run"));
  }

  @Test
  void cancelNodeEndsTheRunAsCancelledWithItsReason() {
    Workflow wf = engine.parse("""
        name: stop
        nodes:
          - id: check
            type: transform
            template: "{{ input.ticket }}"
          - id: stop
            cancel: "ticket {{ check.output }} is closed"
          - id: work
            bash: echo working
        """, "stop.yaml");

    RunResult r = engine.run(wf, Map.of("ticket", "T-1"));

    assertThat(r.status()).isEqualTo(RunStatus.CANCELLED);
    assertThat(r.error().code()).isEqualTo("cancelled");
    assertThat(r.error().message()).isEqualTo("ticket T-1 is closed");
    assertThat(r.error().node()).isEqualTo("stop");
    assertThat(statuses(r)).containsExactly(Map.entry("check", "completed"), Map.entry("stop", "completed"),
        Map.entry("work", "not_run"));
  }

  @Test
  void everyNodeAppearsInTheResultWithAStatus() {
    Workflow wf = engine.parse("""
        name: all
        nodes:
          - id: a
            type: transform
            template: a
          - id: b
            type: transform
            template: b
            when: "false"
          - id: c
            bash: "exit 1"
          - id: d
            type: transform
            template: d
        edges:
          - {from: a, to: b}
          - {from: a, to: c}
          - {from: c, to: d}
        """, "all.yaml");

    RunResult r = engine.run(wf, Map.of());

    assertThat(r.nodes()).containsOnlyKeys("a", "b", "c", "d");
    assertThat(r.nodes().values()).allSatisfy(n -> assertThat(n).containsKey("status"));
    assertThat(statuses(r)).containsExactly(Map.entry("a", "completed"), Map.entry("b", "skipped"),
        Map.entry("c", "failed"), Map.entry("d", "not_run"));
  }

  @Test
  void eventsArriveInSequenceOrderWithStartAndCompletionForEachNode() {
    List<Event> events = Collections.synchronizedList(new ArrayList<>());
    CyclicBarrier barrier = new CyclicBarrier(2);
    NodeProgram meet = ctx -> {
      barrier.await(10, TimeUnit.SECONDS);
      return NodeOutcome.of(ctx.position().nodeId());
    };
    Workflow wf = engine.workflow("events")
        .node("a", meet).node("b", meet).node("c", ctx -> NodeOutcome.of("c"))
        .edge("__start__", "a").edge("__start__", "b")
        .edge("a", "c").edge("b", "c")
        .build();

    RunResult r = engine.run(wf, RunOptions.builder().runId("run-events").listener(events::add).build());

    assertThat(r.runId()).isEqualTo("run-events");
    assertThat(events).extracting(Event::seq)
        .containsExactlyElementsOf(java.util.stream.LongStream.rangeClosed(1, events.size()).boxed().toList());
    assertThat(events).allSatisfy(ev -> assertThat(ev.runId()).isEqualTo("run-events"));
    assertThat(events.get(0).type()).isEqualTo("run.started");
    assertThat(events.get(events.size() - 1)).isInstanceOfSatisfying(Event.RunFinished.class,
        f -> assertThat(f.status()).isEqualTo("completed"));
    for (String id : List.of("a", "b", "c")) {
      List<String> own = events.stream()
          .filter(ev -> ev instanceof Event.NodeStarted s && s.node().nodeId().equals(id)
              || ev instanceof Event.NodeCompleted c && c.node().nodeId().equals(id))
          .map(Event::type)
          .toList();
      assertThat(own).as("events of %s", id).containsExactly("node.started", "node.completed");
    }
    int cStarted = indexOf(events, "node.started", "c");
    assertThat(cStarted).isGreaterThan(indexOf(events, "node.completed", "a"))
        .isGreaterThan(indexOf(events, "node.completed", "b"));
    assertThat(events).filteredOn(ev -> ev instanceof Event.NodeCompleted c && c.node().nodeId().equals("c"))
        .singleElement().satisfies(ev -> assertThat(((Event.NodeCompleted) ev).outputPreview()).isEqualTo("c"));
  }

  @Test
  void skippedNodesAreAnnouncedWithTheirReason() {
    List<Event> events = new CopyOnWriteArrayList<>();
    Workflow wf = engine.workflow("skip")
        .node("a", ctx -> NodeOutcome.of(1))
        .node("b", ctx -> NodeOutcome.of(2))
        .edge("a", "b", "a.output > 5")
        .build();

    engine.run(wf, RunOptions.builder().listener(events::add).build());

    assertThat(events).filteredOn(ev -> ev instanceof Event.NodeSkipped).singleElement()
        .satisfies(ev -> {
          Event.NodeSkipped s = (Event.NodeSkipped) ev;
          assertThat(s.node().nodeId()).isEqualTo("b");
          assertThat(s.reason()).isEqualTo("no active incoming edge");
        });
  }

  @Test
  void nodesWithoutEdgesRunInListedOrder() {
    List<String> order = new CopyOnWriteArrayList<>();
    NodeProgram record = ctx -> {
      order.add(ctx.position().nodeId());
      return NodeOutcome.of(ctx.position().nodeId());
    };
    Workflow wf = engine.workflow("listed").node("z", record).node("y", record).node("x", record).build();

    RunResult r = engine.run(wf, Map.of());

    assertThat(order).containsExactly("z", "y", "x");
    assertThat(r.output()).isEqualTo("x");
  }

  @Test
  void outputStoredInStateIsVisibleToLaterNodes() {
    Workflow wf = engine.parse("""
        name: state
        nodes:
          - id: fetch
            type: transform
            template: "{{ input.items }}"
            output: fetched
          - id: count
            type: transform
            template: "{{ state.fetched | length }}"
        """, "state.yaml");

    RunResult r = engine.run(wf, Map.of("items", List.of("x", "y", "z")));

    assertThat(r.state()).containsEntry("fetched", List.of("x", "y", "z"));
    assertThat(r.output()).isEqualTo(3);
  }

  private static int indexOf(List<Event> events, String type, String node) {
    for (int i = 0; i < events.size(); i++) {
      Event ev = events.get(i);
      if (ev.type().equals(type) && (ev instanceof Event.NodeStarted s && s.node().nodeId().equals(node)
          || ev instanceof Event.NodeCompleted c && c.node().nodeId().equals(node))) {
        return i;
      }
    }
    return -1;
  }
}
