package dev.loopflow.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.NodeProgram;
import dev.loopflow.core.store.RunRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every run ends in the journal as terminal or paused, with its error, unless the process itself dies: an
 * unexpected exception in the engine, the journal refusing a node completion or an event, or the store refusing the
 * run's own end. A listener other than the journal never changes a run's outcome, but its failure is reported.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RunsEndJournaledTest {
  /** Parallel branches, an append key, a while_loop threading state, and an {@code output:} key. */
  static final String WORKFLOW = """
      name: journaled
      input:
        count: {type: integer, default: 0}
      state:
        log: {merge: append}
      nodes:
        - id: a
          run: |
            return { log = {"a"} }
        - id: b
          run: |
            return { log = {"b"} }
        - id: w
          type: while_loop
          depends_on: [a, b]
          max_iterations: 5
          condition: "state.count < 3"
          body:
            - id: inc
              run: |
                return { count = state.count + 1, log = {"inc"} }
        - id: c
          depends_on: [w]
          bash: echo done
          output: final
      """;

  private static Map<String, Object> normalized(Map<String, Object> state) {
    Map<String, Object> m = new java.util.TreeMap<>(state);
    if (m.get("log") instanceof List<?> l) {
      m.put("log", l.stream().map(String::valueOf).sorted().toList()); // a and b run in parallel
    }
    return m;
  }

  private static Map<String, Object> uninterruptedState() {
    Loopflow engine = Loopflow.builder().build();
    RunResult r = engine.run(engine.parse(WORKFLOW, "journaled.yaml"), Map.of());
    assertThat(r.status()).as("%s", r.error()).isEqualTo(RunStatus.COMPLETED);
    return normalized(r.state());
  }

  /** Which store write fails, and the how-many-th of its kind. */
  static Stream<Arguments> storeFailures() {
    List<Arguments> out = new ArrayList<>();
    IntStream.rangeClosed(1, 7).forEach(k -> out.add(Arguments.of("node execution", k)));
    IntStream.rangeClosed(1, 24).forEach(k -> out.add(Arguments.of("event", k)));
    return out.stream();
  }

  @ParameterizedTest(name = "{0} #{1} refused")
  @MethodSource("storeFailures")
  void aRefusedJournalWriteFailsTheRunAsJournaledAndResumeFinishesIt_bugRunLeftRunningForever(String what, int k)
      throws Exception {
    FaultyStore store = new FaultyStore();
    if (what.equals("node execution")) {
      store.failExecution = n -> n == k;
    } else {
      store.failEvent = n -> n == k;
    }
    Loopflow engine = Loopflow.builder().store(store).build();
    Workflow wf = engine.parse(WORKFLOW, "journaled.yaml");

    RunResult r = engine.start(wf, RunOptions.builder().build()).await();

    RunRecord rec = store.journal.findRun(r.runId()).orElseThrow();
    assertThat(rec.status()).as("journaled status").isEqualTo(r.status());
    if (store.refused.isEmpty()) {
      // Nothing refused: the run had fewer writes.
      assertThat(rec.status()).isEqualTo(RunStatus.COMPLETED);
      return;
    }
    // A refused run.finished fails the run too: the final record and run.finished are one write, and the run's end
    // was not journaled.
    assertThat(rec.status()).as("refused: %s", store.refused).isEqualTo(RunStatus.FAILED);
    assertThat(rec.error().code()).isEqualTo("internal_error");
    assertThat(rec.error().message()).contains("disk full").doesNotContain("\tat ");
    assertThat(r.error()).isEqualTo(rec.error());

    store.heal();
    RunResult resumed = engine.resume(wf, r.runId(), ResumeInput.none(), RunOptions.builder().build(), false).await();
    assertThat(resumed.status()).as("%s", resumed.error()).isEqualTo(RunStatus.COMPLETED);
    assertThat(normalized(resumed.state())).isEqualTo(uninterruptedState());
    assertThat(store.journal.findRun(r.runId()).orElseThrow().status()).isEqualTo(RunStatus.COMPLETED);
  }

  @Test
  void anUnexpectedEngineErrorFailsTheRunWithInternalErrorInTheJournal_bugRunLeftRunningForever() throws Exception {
    NodeProgram broken = new NodeProgram() {
      @Override
      public NodeOutcome execute(NodeContext context) {
        return NodeOutcome.of("never");
      }

      @Override
      public boolean runsInline() {
        throw new IllegalStateException("engine-facing method broke");
      }
    };
    FaultyStore store = new FaultyStore();
    Loopflow engine = Loopflow.builder().store(store).build();
    Workflow wf = engine.workflow("broken").node("first", ctx -> NodeOutcome.of("ok")).node("second", broken)
        .edge("first", "second").build();

    RunResult r = engine.start(wf, RunOptions.builder().build()).await();

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("internal_error");
    assertThat(r.error().message()).contains("IllegalStateException: engine-facing method broke");
    RunRecord rec = store.journal.findRun(r.runId()).orElseThrow();
    assertThat(rec.status()).isEqualTo(RunStatus.FAILED);
    assertThat(rec.error()).isEqualTo(r.error());
    List<Event> events = store.journal.events(r.runId());
    assertThat(events.get(events.size() - 1)).isInstanceOfSatisfying(Event.RunFinished.class,
        f -> assertThat(f.errorCode()).isEqualTo("internal_error"));
  }

  @Test
  void aRunWhoseEndTheStoreRefusesOnceIsJournaledFailed() throws Exception {
    FaultyStore store = new FaultyStore();
    AtomicInteger ends = new AtomicInteger();
    store.failUpdate = rec -> rec.status() == RunStatus.COMPLETED && ends.incrementAndGet() == 1;
    Loopflow engine = Loopflow.builder().store(store).build();

    RunResult r = engine.start(engine.parse(WORKFLOW, "journaled.yaml"), RunOptions.builder().build()).await();

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("internal_error");
    assertThat(store.journal.findRun(r.runId()).orElseThrow().status()).isEqualTo(RunStatus.FAILED);
  }

  @Test
  void aRunWhoseEndTheStoreNeverTakesIsShownWithTheEnginesMergesAndResumesAsCrashed_bugShowStatePutAll()
      throws Exception {
    FaultyStore store = new FaultyStore();
    store.failUpdate = rec -> rec.status() != RunStatus.RUNNING;
    Loopflow engine = Loopflow.builder().store(store).build();
    Workflow wf = engine.parse(WORKFLOW, "journaled.yaml");

    RunResult r = engine.start(wf, RunOptions.builder().build()).await();

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("internal_error");
    RunRecord rec = store.journal.findRun(r.runId()).orElseThrow();
    assertThat(rec.status()).as("nothing could journal the end").isEqualTo(RunStatus.RUNNING);
    // Every completion was journaled, so the state rebuilt from the journal is the state the run ended with:
    // appended lists appended (not replaced by the last patch), output: keys present.
    RunResult shown = engine.result(r.runId()).orElseThrow();
    assertThat(shown.state()).isEqualTo(r.state());
    assertThat(shown.state().get("log")).asList().hasSize(5);
    assertThat(shown.state()).containsEntry("final", "done").containsEntry("count", 3L);
    assertThat(shown.nodes().get("c")).containsEntry("status", "completed");

    store.heal();
    RunResult resumed = engine.resume(wf, r.runId(), ResumeInput.none(), RunOptions.builder().build(), false).await();
    assertThat(resumed.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(store.journal.events(r.runId())).filteredOn(Event.RunResumed.class::isInstance).singleElement()
        .satisfies(e -> assertThat(((Event.RunResumed) e).from()).isEqualTo("crashed"));
  }

  @Test
  void aThrowingListenerIsDetachedAndReportedWithoutChangingTheRun_bugListenerFailureSilent() throws Exception {
    List<Event> seenByOthers = new CopyOnWriteArrayList<>();
    AtomicInteger calls = new AtomicInteger();
    FaultyStore store = new FaultyStore();
    Loopflow engine = Loopflow.builder().store(store).build();
    RunOptions opts = RunOptions.builder()
        .listener(e -> {
          if (calls.incrementAndGet() == 3) {
            throw new IllegalStateException("dashboard went away");
          }
        })
        .listener(seenByOthers::add)
        .build();

    RunResult r = engine.start(engine.parse(WORKFLOW, "journaled.yaml"), opts).await();

    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(calls).as("not called again once it threw").hasValue(3);
    for (List<Event> events : List.of(seenByOthers, store.journal.events(r.runId()))) {
      assertThat(events).filteredOn(Event.ListenerFailed.class::isInstance).singleElement().satisfies(e -> {
        Event.ListenerFailed f = (Event.ListenerFailed) e;
        assertThat(f.listener()).startsWith("listener 1 (");
        assertThat(f.message()).isEqualTo("IllegalStateException: dashboard went away");
      });
    }
    List<Long> seqs = seenByOthers.stream().map(Event::seq).toList();
    assertThat(seqs).isSorted().doesNotHaveDuplicates();
  }

  @Test
  void aResumedRunEmitsRunResumedWithWhatItResumedFromNotASecondRunStarted_bugResumeReemitsRunStarted()
      throws Exception {
    FaultyStore store = new FaultyStore();
    Loopflow engine = Loopflow.builder().store(store).build();
    Workflow wf = engine.parse("""
        name: ask
        nodes:
          - id: ask
            approval: "Ship it?"
          - id: after
            depends_on: [ask]
            bash: echo shipped
        """, "ask.yaml");
    RunResult paused = engine.start(wf, RunOptions.builder().build()).await();
    assertThat(paused.status()).isEqualTo(RunStatus.PAUSED);

    RunResult done = engine.resume(wf, paused.runId(), ResumeInput.approve("fine"), RunOptions.builder().build(),
        false).await();

    assertThat(done.status()).isEqualTo(RunStatus.COMPLETED);
    List<Event> events = store.journal.events(paused.runId());
    assertThat(events).filteredOn(Event.RunStarted.class::isInstance).hasSize(1);
    assertThat(events).filteredOn(Event.RunResumed.class::isInstance).singleElement().satisfies(e -> {
      Event.RunResumed rr = (Event.RunResumed) e;
      assertThat(rr.from()).isEqualTo("paused");
      assertThat(rr.waitedAt()).isEqualTo("ask");
      assertThat(rr.answer()).containsEntry("decision", "approved").containsEntry("comment", "fine");
    });
    assertThat(events.stream().map(Event::seq).toList()).isSorted().doesNotHaveDuplicates();
  }

  /**
   * Two approvals ask at once; the resume rejects the one the run waits for while the other asks again. Which of
   * the two reports first is a race: the run must end failed either way, never paused behind the other question.
   */
  @org.junit.jupiter.api.RepeatedTest(25)
  void aRejectionNextToAnotherAskingApprovalFailsTheRun_bugRejectedRunShowsPaused() throws Exception {
    FaultyStore store = new FaultyStore();
    Loopflow engine = Loopflow.builder().store(store).build();
    Workflow wf = engine.parse("""
        name: two
        nodes:
          - id: legal
            approval: "Legal ok?"
          - id: security
            approval: "Security ok?"
          - id: ship
            depends_on: [legal, security]
            bash: echo shipped
        """, "two.yaml");
    RunResult paused = engine.start(wf, RunOptions.builder().build()).await();
    assertThat(paused.status()).isEqualTo(RunStatus.PAUSED);

    RunResult r = engine.resume(wf, paused.runId(), ResumeInput.reject("no"), RunOptions.builder().build(), false)
        .await();

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().message()).contains("rejected: no");
    assertThat(r.waiting()).isNull();
    assertThat(r.nodes().values()).extracting(n -> n.get("status")).doesNotContain("paused");
    assertThat(store.journal.findRun(r.runId()).orElseThrow().status()).isEqualTo(RunStatus.FAILED);
    assertThat(engine.result(r.runId()).orElseThrow()).isEqualTo(r);
  }

  @Test
  void aNodeThatFailedTheRunAndSucceedsOnResumeIsJournaledAndNotRunAThirdTime_bugRerunCompletionNotJournaled()
      throws Exception {
    AtomicInteger checks = new AtomicInteger();
    FaultyStore store = new FaultyStore();
    Loopflow engine = Loopflow.builder().store(store).build();
    Workflow wf = engine.workflow("flaky")
        .node("prepare", ctx -> NodeOutcome.of("prepared"))
        .node("check", ctx -> {
          if (checks.incrementAndGet() == 1) {
            throw new IllegalStateException("not ready yet");
          }
          return NodeOutcome.of("ok");
        })
        .node("after", ctx -> NodeOutcome.of("after"))
        .edge("prepare", "check").edge("check", "after").build();
    RunResult failed = engine.start(wf, RunOptions.builder().build()).await();
    assertThat(failed.status()).isEqualTo(RunStatus.FAILED);

    // The resumed attempt completes, but its end never reaches the journal (as if the process died right then).
    store.failUpdate = rec -> rec.status() != RunStatus.RUNNING;
    engine.resume(wf, failed.runId(), ResumeInput.none(), RunOptions.builder().build(), false).await();
    assertThat(checks).hasValue(2);
    assertThat(store.journal.nodeExecutions(failed.runId())).filteredOn(e -> e.position().nodeId().equals("check"))
        .extracting(e -> e.status().json()).containsExactly("failed", "completed");

    store.heal();
    RunResult done = engine.resume(wf, failed.runId(), ResumeInput.none(), RunOptions.builder().build(), false)
        .await();
    assertThat(done.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(checks).as("the completion journaled by the second attempt is restored, not run again").hasValue(2);
    assertThat(done.nodes().get("check")).containsEntry("status", "completed").containsEntry("output", "ok");
  }
}
