package dev.loopflow.core.loops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A run whose process died is resumed from its journal; its journal must then read like an uninterrupted run's: every
 * loop event (a loop's start, each pass, each loop-back, each end) exactly once, in the order an uninterrupted run
 * journals them. The crash is made the way it leaves the journal, at every event boundary of the run: the run still
 * marked running, its events up to that point, and the executions whose completion those events announce.
 */
class ResumedLoopEventsTest {
  /** A loop edge of three passes, then a while_loop of three passes with a loop + exit of two passes inside. */
  private static final String WORKFLOW = """
      name: loops
      nodes:
        - id: work
          run: |
            return { w = (state.w or 0) + 1 }
        - id: check
          type: transform
          template: "checked {{ state.w }}"
        - name: w
          type: while_loop
          max_iterations: 5
          condition: "(loop.iteration or 0) < 3"
          body:
            - name: tick
              type: transform
              template: "tick {{ loop.iteration }}"
        - id: after
          type: transform
          template: "done"
      edges:
        - {from: work, to: check}
        - {from: check, to: work, type: loop, maxIterations: 3, when: "state.w < 3"}
        - {from: check, to: w}
        - {from: w, to: after}
      """;

  private static final Loopflow PARSER = Loopflow.create();
  private static final Workflow WF = PARSER.parse(WORKFLOW, "loops.yaml");

  private static RunStore original;
  private static RunResult uninterrupted;

  private static synchronized RunStore original() {
    if (original == null) {
      original = RunStore.inMemory();
      uninterrupted = Loopflow.builder().store(original).build().run(WF, RunOptions.builder().build());
      assertThat(uninterrupted.status()).as(String.valueOf(uninterrupted.error())).isEqualTo(RunStatus.COMPLETED);
    }
    return original;
  }

  static IntStream cuts() {
    RunStore s = original();
    // Every prefix that ends before run.finished: the process died right after journaling event k.
    return IntStream.range(1, s.events(uninterrupted.runId()).size() - 1);
  }

  /** The journal a process that died right after journaling its {@code keep}-th event leaves. */
  private static RunStore crashedAfter(int keep) {
    String id = uninterrupted.runId();
    RunStore copy = RunStore.inMemory();
    copy.createRun(original.findRun(id).orElseThrow().toBuilder().status(RunStatus.RUNNING).finishedAt(null)
        .usage(Usage.NONE).output(null).error(null).state(null).nodes(null).build());
    List<Event> events = original.events(id);
    Map<String, Integer> announced = new HashMap<>();
    for (Event e : events.subList(0, keep)) {
      copy.appendEvent(e);
      if (e instanceof Event.NodeCompleted c) {
        announced.merge(c.node().path(), 1, Integer::sum);
      }
    }
    for (NodeExecution row : original.nodeExecutions(id)) {
      Integer left = announced.get(row.position().path());
      if (left != null && left > 0) {
        announced.put(row.position().path(), left - 1);
        copy.recordNodeExecution(row);
      }
    }
    return copy;
  }

  private static List<String> loopEvents(List<Event> events) {
    List<String> out = new ArrayList<>();
    for (Event e : events) {
      switch (e) {
        case Event.LoopStarted s -> out.add("started " + s.node().path());
        case Event.LoopIteration i -> out.add("pass " + i.node().path() + " " + i.iteration() + " "
            + i.conditionResult());
        case Event.LoopIterate b -> out.add("back " + b.node().path() + " " + b.iteration());
        case Event.LoopCompleted c -> out.add("ended " + c.node().path() + " " + c.iterationsRun() + " "
            + c.exitReason());
        default -> { }
      }
    }
    return out;
  }

  @ParameterizedTest(name = "crash after event {0}")
  @MethodSource("cuts")
  void aResumedRunJournalsEveryLoopEventOnce_bugLoopIterateWasJournaledAgainAfterKill9(int keep)
      throws InterruptedException {
    RunStore crashed = crashedAfter(keep);
    RunResult resumed = Loopflow.builder().store(crashed).build()
        .resume(WF, uninterrupted.runId(), ResumeInput.none(), RunOptions.builder().build(), false).await();

    assertThat(resumed.status()).as(String.valueOf(resumed.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(resumed.output()).isEqualTo(uninterrupted.output());
    assertThat(loopEvents(crashed.events(uninterrupted.runId())))
        .as("the resumed journal's loop events")
        .isEqualTo(loopEvents(original.events(uninterrupted.runId())));
  }
}
