package dev.loopflow.core.loops;

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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code iterator} + {@code aggregator} (SPEC §1, §5): one pass per item, results in item order. */
class IteratorTest {
  private final Loopflow engine = Loopflow.create();

  /** iterator → work → aggregator → after, where work is {@code work} (a node body without its id). */
  private static String iterate(String iteratorExtras, String work) {
    return """
        name: iterate
        nodes:
          - id: each
            type: iterator
            items: "{{ input.list }}"
            EXTRAS
          - id: work
            WORK
          - id: collect
            type: aggregator
          - id: after
            type: transform
            template: "{{ collect.output | length }} results"
        edges:
          - {from: each, to: work}
          - {from: work, to: collect}
          - {from: collect, to: after}
        """.replace("EXTRAS", iteratorExtras.replace("\n", "\n    ")).replace("WORK", work.replace("\n", "\n    "));
  }

  private static final String FAILS_ON_BAD = """
      run: |
        if loop.item == "bad" then error("cannot handle " .. loop.item) end
        return { last = loop.item }""";

  @Test
  @Timeout(30)
  void aggregatorKeepsItemOrderWhenThreeItemsRunAtOnceAndFinishOutOfOrder() {
    // Items 0, 1 and 2 each wait until three items have started: with fewer than three passes in flight at once
    // the wait gives up and the item fails. Item 0 then waits for item 1 to finish and item 1 for item 2, so the
    // first three finish in reverse order. Every wait is on a latch, never on the clock.
    List<String> items = List.of("i0", "i1", "i2", "i3", "i4", "i5");
    CountDownLatch threeStarted = new CountDownLatch(3);
    List<CountDownLatch> finished = items.stream().map(i -> new CountDownLatch(1)).toList();
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger mostInFlight = new AtomicInteger();
    List<String> finishOrder = new CopyOnWriteArrayList<>();
    NodeProgram work = ctx -> {
      Map<?, ?> loop = (Map<?, ?>) ctx.scope().get("loop");
      int index = ((Number) loop.get("index")).intValue();
      String item = (String) loop.get("item");
      int together = inFlight.incrementAndGet();
      mostInFlight.accumulateAndGet(together, Math::max);
      try {
        threeStarted.countDown();
        if (!threeStarted.await(10, TimeUnit.SECONDS)) {
          throw new IllegalStateException("fewer than three passes ran at once");
        }
        if (index < 2 && !finished.get(index + 1).await(10, TimeUnit.SECONDS)) {
          throw new IllegalStateException("item " + (index + 1) + " never finished");
        }
        finishOrder.add(item);
        return NodeOutcome.of(item + ":" + together);
      } finally {
        inFlight.decrementAndGet();
        finished.get(index).countDown();
      }
    };
    Workflow wf = engine.workflow("iterate")
        .node("each", "iterator", Map.of("items", "{{ input.list }}", "concurrency", 3))
        .node("work", work)
        .node("collect", "aggregator", Map.of())
        .node("after", "transform", Map.of("template", "{{ collect.output | length }} results"))
        .edge("each", "work").edge("work", "collect").edge("collect", "after")
        .build();

    LoopTests.Run run = LoopTests.run(engine, wf, Map.of("list", items));

    assertThat(run.result().error()).isNull();
    assertThat(run.result().status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(finishOrder).containsSubsequence("i2", "i1", "i0");
    assertThat(mostInFlight).as("passes in flight at once").hasValue(3);
    @SuppressWarnings("unchecked")
    List<String> collected = (List<String>) run.node("collect").get("output");
    assertThat(collected).extracting(s -> s.split(":")[0]).containsExactlyElementsOf(items);
    assertThat(collected).allSatisfy(s -> assertThat(Integer.parseInt(s.split(":")[1])).isBetween(1, 3));
    assertThat(run.node("each")).containsEntry("count", 6);
    assertThat(run.result().output()).isEqualTo("6 results");
  }

  @Test
  void bodySeesTheItemAndItsZeroBasedIndex() {
    LoopTests.Run run = LoopTests.run(engine,
        iterate("", "type: transform\ntemplate: \"{{ loop.index }}={{ loop.item }} ({{ loop.iteration }})\""),
        Map.of("list", List.of("a", "b", "c")));

    assertThat(run.result().error()).isNull();
    assertThat(run.node("collect")).containsEntry("output", List.of("0=a (1)", "1=b (2)", "2=c (3)"));
    assertThat(run.started()).containsExactly("each", "each[1].work", "each[2].work", "each[3].work", "collect",
        "after");
    assertThat(run.events(Event.LoopIteration.class))
        .extracting(Event.LoopIteration::iteration, Event.LoopIteration::index, Event.LoopIteration::inputPreview)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(1, 0, "a"), org.assertj.core.groups.Tuple.tuple(2, 1, "b"),
            org.assertj.core.groups.Tuple.tuple(3, 2, "c"));
  }

  @Test
  void aggregatorCollectsTheLastBodyNodeOfEachItem() {
    String yaml = """
        name: two-step
        nodes:
          - id: each
            type: iterator
            items: "{{ input.list }}"
            concurrency: 2
          - id: upper
            type: transform
            template: "{{ loop.item | upper }}"
          - id: wrap
            type: transform
            template: "<{{ upper.output }}>"
          - id: collect
            type: aggregator
        edges:
          - {from: each, to: upper}
          - {from: upper, to: wrap}
          - {from: wrap, to: collect}
        """;
    LoopTests.Run run = LoopTests.run(engine, yaml, Map.of("list", List.of("x", "y", "z", "w")));

    assertThat(run.result().error()).isNull();
    assertThat(run.node("collect")).containsEntry("output", List.of("<X>", "<Y>", "<Z>", "<W>"));
    assertThat(run.node("each")).containsEntry("output", List.of("<X>", "<Y>", "<Z>", "<W>"));
  }

  @Test
  void continueOnErrorKeepsGoingAndLeavesAGapForTheFailedItem() {
    LoopTests.Run run = LoopTests.run(engine, iterate("continue_on_error: true", FAILS_ON_BAD),
        Map.of("list", List.of("a", "bad", "c")));

    assertThat(run.result().error()).isNull();
    assertThat(run.result().status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(run.node("collect").get("output")).isEqualTo(Arrays.asList(Map.of("last", "a"), null,
        Map.of("last", "c")));
    assertThat(run.node("each").get("errors")).asList().singleElement().asInstanceOf(
            org.assertj.core.api.InstanceOfAssertFactories.MAP)
        .containsEntry("index", 1)
        .containsEntry("code", "node_failed");
    assertThat(run.result().output()).isEqualTo("3 results");
  }

  @Test
  void failingItemFailsTheIterator() {
    LoopTests.Run run = LoopTests.run(engine, iterate("concurrency: 1", FAILS_ON_BAD),
        Map.of("list", List.of("a", "bad", "c")));

    assertThat(run.result().status()).isEqualTo(RunStatus.FAILED);
    assertThat(run.result().error().code()).isEqualTo("node_failed");
    assertThat(run.result().error().path()).isEqualTo("each[2].work");
    assertThat(run.result().error().message()).contains("cannot handle bad");
    assertThat(run.node("each")).containsEntry("status", "failed").containsEntry("exit_reason", "error");
    assertThat(run.node("collect").get("status")).isNotEqualTo("completed");
    assertThat(run.node("after").get("status")).isNotEqualTo("completed");
  }

  @Test
  void failingItemStopsTheIteratorBeforeLaterItemsStart() {
    LoopTests.Run run = LoopTests.run(engine, iterate("concurrency: 1", FAILS_ON_BAD),
        Map.of("list", List.of("a", "bad", "c")));

    assertThat(run.result().status()).isEqualTo(RunStatus.FAILED);
    assertThat(run.started()).containsExactly("each", "each[1].work", "each[2].work");
    assertThat(run.events(Event.LoopIteration.class)).hasSize(2);
  }

  @Test
  void emptyItemsGiveAnEmptyAggregate() {
    LoopTests.Run run = LoopTests.run(engine, iterate("", FAILS_ON_BAD), Map.of("list", List.of()));

    assertThat(run.result().error()).isNull();
    assertThat(run.node("collect")).containsEntry("output", List.of());
    assertThat(run.node("each")).containsEntry("count", 0);
    assertThat(run.starts("work")).isZero();
    assertThat(run.result().output()).isEqualTo("0 results");
  }

  @Test
  void itemsThatAreNotAnArrayFailTheIterator() {
    LoopTests.Run run = LoopTests.run(engine, iterate("", FAILS_ON_BAD), Map.of("list", "abc"));

    assertThat(run.result().status()).isEqualTo(RunStatus.FAILED);
    assertThat(run.result().error().node()).isEqualTo("each");
    assertThat(run.result().error().message()).contains("array");
  }

  @Test
  void structuredItemsReachTheBodyWithTheirFields() {
    Map<String, Object> ada = new HashMap<>(Map.of("name", "Ada", "age", 36));
    Map<String, Object> alan = new HashMap<>(Map.of("name", "Alan", "age", 41));
    LoopTests.Run run = LoopTests.run(engine,
        iterate("concurrency: 2", "type: transform\ntemplate: \"{{ loop.item.name }} is {{ loop.item.age }}\""),
        Map.of("list", List.of(ada, alan)));

    assertThat(run.node("collect")).containsEntry("output", List.of("Ada is 36", "Alan is 41"));
  }

  @Test
  void iteratorWithoutItemsOrWithConcurrencyZeroIsALoadError() {
    List<String> problems = LoopTests.problems(engine, """
        name: bad-iterator
        nodes:
          - id: each
            type: iterator
            concurrency: 0
          - id: work
            type: transform
            template: "x"
          - id: collect
            type: aggregator
        edges:
          - {from: each, to: work}
          - {from: work, to: collect}
        """);

    assertThat(problems).contains(
        "t.yaml:3:5: nodes.each: iterator 'each' requires items (a template yielding an array)",
        "t.yaml:5:18: nodes.each.concurrency: 'concurrency' must be between 1 and 1024, found 0");
  }

  @Test
  void invalidIteratorDoesNotAlsoReportItsAggregatorAsUnpaired() {
    assertThat(LoopTests.problems(engine, """
        name: bad-iterator
        nodes:
          - id: each
            type: iterator
            items: "{{ input.list }}"
            concurrency: 0
          - id: work
            type: transform
            template: "x"
          - id: collect
            type: aggregator
        edges:
          - {from: each, to: work}
          - {from: work, to: collect}
        """)).containsExactly("t.yaml:6:18: nodes.each.concurrency: 'concurrency' must be between 1 and 1024, found 0");
  }

  @Test
  void iteratorWithoutAggregatorAndAggregatorWithoutIteratorAreLoadErrors() {
    assertThat(LoopTests.problems(engine, """
        name: lonely
        nodes:
          - id: each
            type: iterator
            items: "{{ input.list }}"
          - id: work
            type: transform
            template: "x"
        edges:
          - {from: each, to: work}
        """)).singleElement().asString().startsWith("t.yaml:3:5: nodes.each: ").contains("aggregator");
    assertThat(LoopTests.problems(engine, """
        name: lonely
        nodes:
          - id: work
            type: transform
            template: "x"
          - id: collect
            type: aggregator
        edges:
          - {from: work, to: collect}
        """)).containsExactly("t.yaml:6:5: nodes.collect: aggregator 'collect' has no paired iterator node upstream "
        + "of it");
  }

  private static final String SLOW_ITEMS = """
      name: slow-items
      nodes:
        - id: each
          type: iterator
          items: "{{ input.list }}"
          concurrency: 2
        - id: nap
          bash: sleep 5
        - id: collect
          type: aggregator
      edges:
        - {from: each, to: nap}
        - {from: nap, to: collect}
      """;

  private RunResult cancelWhenTwoItemsRun(List<Event> events) throws InterruptedException {
    Workflow wf = engine.parse(SLOW_ITEMS, "t.yaml");
    CountDownLatch bothStarted = new CountDownLatch(2);
    RunHandle handle = engine.start(wf, RunOptions.builder()
        .inputs(Map.of("list", List.of(1, 2, 3, 4)))
        .listener(e -> {
          events.add(e);
          if (e instanceof Event.NodeStarted s && s.node().nodeId().equals("nap")) {
            bothStarted.countDown();
          }
        })
        .build());
    bothStarted.await();
    handle.cancel("stop");
    return handle.await();
  }

  @Test
  @Timeout(15)
  void cancellingWhileItemsRunStopsTheIteratorWithExitReasonCancelled() throws InterruptedException {
    List<Event> events = Collections.synchronizedList(new ArrayList<>());
    RunResult r = cancelWhenTwoItemsRun(events);

    assertThat(r.status()).isEqualTo(RunStatus.CANCELLED);
    assertThat(r.nodes().get("each")).containsEntry("exit_reason", "cancelled");
    assertThat(r.nodes().get("collect").get("status")).isNotEqualTo("completed");
    assertThat(List.copyOf(events)).filteredOn(Event.NodeStarted.class::isInstance)
        .extracting(e -> ((Event.NodeStarted) e).node().path())
        .doesNotContain("each[3].nap", "each[4].nap");
  }

  @Disabled("engine bug: on cancellation an iterator emits loop.completed and its own node.cancelled before its "
      + "running items' node.cancelled events, which often come only after run.finished")
  @RepeatedTest(5)
  @Timeout(15)
  void cancelledIteratorReportsEveryRunningItemCancelledBeforeItCompletes() throws InterruptedException {
    List<Event> events = Collections.synchronizedList(new ArrayList<>());
    cancelWhenTwoItemsRun(events);

    List<String> order = List.copyOf(events).stream()
        .filter(e -> e instanceof Event.NodeCancelled || e instanceof Event.LoopCompleted
            || e instanceof Event.RunFinished)
        .map(e -> e.type() + (e instanceof Event.NodeCancelled c ? " " + c.node().path() : ""))
        .toList();
    assertThat(order).containsSubsequence("node.cancelled each[1].nap", "loop.completed", "node.cancelled each",
        "run.finished");
    assertThat(order).containsSubsequence("node.cancelled each[2].nap", "loop.completed");
  }
}
