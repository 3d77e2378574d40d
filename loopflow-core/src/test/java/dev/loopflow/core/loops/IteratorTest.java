package dev.loopflow.core.loops;

import static dev.loopflow.core.loops.LoopTests.exactly;
import static dev.loopflow.core.loops.LoopTests.including;
import static dev.loopflow.core.loops.LoopTests.onlyOne;
import static dev.loopflow.core.loops.LoopTests.rejected;
import static dev.loopflow.core.loops.LoopTests.resource;
import static dev.loopflow.core.loops.LoopTests.row;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.loops.LoopTests.Expect;
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
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code iterator} + {@code aggregator}: one pass per item, results in item order. */
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

  static Stream<Arguments> runs() {
    return Stream.of(
        row("aggregatorCollectsTheLastBodyNodeOfEachItem", resource("iterator/two_step.yaml"),
            Map.of("list", List.of("x", "y", "z", "w")),
            Expect.completed().node("collect", "output", List.of("<X>", "<Y>", "<Z>", "<W>"))
                .node("each", "output", List.of("<X>", "<Y>", "<Z>", "<W>"))),
        row("continueOnErrorKeepsGoingAndLeavesAGapForTheFailedItem",
            iterate("continue_on_error: true", FAILS_ON_BAD), Map.of("list", List.of("a", "bad", "c")),
            Expect.completed()
                .node("collect", "output", Arrays.asList(Map.of("last", "a"), null, Map.of("last", "c")))
                .check(r -> assertThat(r.node("each").get("errors")).asList().singleElement()
                    .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                    .containsEntry("index", 1).containsEntry("code", "node_failed"))
                .output("3 results")),
        row("failingItemFailsTheIteratorBeforeLaterItemsStart", iterate("concurrency: 1", FAILS_ON_BAD),
            Map.of("list", List.of("a", "bad", "c")),
            Expect.failed("node_failed").errorAt("each[2].work").errorSays("cannot handle bad")
                .node("each", "status", "failed", "exit_reason", "error").notCompleted("collect").notCompleted("after")
                .started("each", "each[1].work", "each[2].work")
                .check(r -> assertThat(r.events(Event.LoopIteration.class)).hasSize(2))),
        row("emptyItemsGiveAnEmptyAggregate", iterate("", FAILS_ON_BAD), Map.of("list", List.of()),
            Expect.completed().node("collect", "output", List.of()).node("each", "count", 0).starts("work", 0)
                .output("0 results")),
        row("itemsThatAreNotAnArrayFailTheIterator", iterate("", FAILS_ON_BAD), Map.of("list", "abc"),
            Expect.failed().errorNode("each").errorSays("array")),
        row("structuredItemsReachTheBodyWithTheirFields",
            iterate("concurrency: 2", "type: transform\ntemplate: \"{{ loop.item.name }} is {{ loop.item.age }}\""),
            Map.of("list", List.of(new HashMap<>(Map.of("name", "Ada", "age", 36)),
                new HashMap<>(Map.of("name", "Alan", "age", 41)))),
            Expect.completed().node("collect", "output", List.of("Ada is 36", "Alan is 41"))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("runs")
  void iteratorRuns(String behaviour, String yaml, Map<String, ?> inputs, Expect expect) {
    expect.verify(behaviour, LoopTests.run(engine, yaml, inputs));
  }

  static Stream<Arguments> malformed() {
    return Stream.of(
        rejected("iteratorWithoutItemsOrWithConcurrencyZeroIsALoadError", resource("iterator/no_items.yaml"),
            including("t.yaml:3:5: nodes.each: iterator 'each' requires items (a template yielding an array)",
                "t.yaml:5:18: nodes.each.concurrency: 'concurrency' must be between 1 and 1024, found 0")),
        rejected("invalidIteratorDoesNotAlsoReportItsAggregatorAsUnpaired", resource("iterator/zero_concurrency.yaml"),
            exactly("t.yaml:6:18: nodes.each.concurrency: 'concurrency' must be between 1 and 1024, found 0")),
        rejected("iteratorWithoutAggregatorIsALoadError", resource("iterator/lonely_iterator.yaml"),
            onlyOne("t.yaml:3:5: nodes.each: ", "aggregator")),
        rejected("aggregatorWithoutIteratorIsALoadError", resource("iterator/lonely_aggregator.yaml"),
            exactly("t.yaml:6:5: nodes.collect: aggregator 'collect' has no paired iterator node upstream of it")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformed")
  void malformedIteratorIsRejectedAtLoad(String behaviour, String yaml, Consumer<List<String>> problems) {
    LoopTests.named(behaviour, () -> problems.accept(LoopTests.problems(engine, yaml)));
  }

  // --- concurrency, pass events and cancellation --------------------------------------------------------------------

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
