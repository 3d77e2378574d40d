package dev.loopflow.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A run journaled without executing it (queued for a worker process): its first attempt says it continues a queued
 * run, not a crashed one; and a run that could not be queued ends failed with the queue's error instead of staying
 * {@code running} where no engine will ever take it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QueuedRunTest {
  private static final String WORKFLOW = """
      name: queued
      nodes:
        - id: a
          run: |
            return { done = true }
      """;

  private final RunStore store = RunStore.inMemory();
  private final Loopflow engine = Loopflow.builder().store(store).build();
  private final Workflow wf = engine.parse(WORKFLOW, "queued.yaml");

  private List<String> resumedFrom(String runId) {
    return store.events(runId).stream().filter(Event.RunResumed.class::isInstance)
        .map(e -> ((Event.RunResumed) e).from()).toList();
  }

  @Test
  void theFirstAttemptAtAQueuedRunSaysQueued_bugSaidCrashed() throws Exception {
    AtomicReference<String> queued = new AtomicReference<>();
    RunResult journaled = engine.journalNew(wf, RunOptions.builder().build(), queued::set);
    assertThat(journaled.status()).isEqualTo(RunStatus.RUNNING);
    assertThat(queued.get()).isEqualTo(journaled.runId());
    // What the queue hands on is durable first: a worker reading the journal sees the run and its run.started.
    assertThat(store.events(journaled.runId())).singleElement().isInstanceOf(Event.RunStarted.class);

    RunResult r = engine.resume(wf, journaled.runId(), ResumeInput.none(), RunOptions.builder().build(), false)
        .await();
    assertThat(r.status()).as("%s", r.error()).isEqualTo(RunStatus.COMPLETED);
    assertThat(resumedFrom(journaled.runId())).containsExactly("queued");
  }

  @Test
  void aRunWhoseAttemptLeftAnythingInTheJournalIsResumedFromCrashed() throws Exception {
    RunResult journaled = engine.journalNew(wf, RunOptions.builder().build());
    // An attempt that died after journaling its first event (a worker killed as the run began).
    store.appendEvent(new Event.NodeStarted(journaled.runId(), 2, Instant.now(), NodePosition.top("a"), "script",
        1));
    store.flush();
    RunResult r = engine.resume(wf, journaled.runId(), ResumeInput.none(), RunOptions.builder().build(), false)
        .await();
    assertThat(r.status()).as("%s", r.error()).isEqualTo(RunStatus.COMPLETED);
    assertThat(resumedFrom(journaled.runId())).containsExactly("crashed");
  }

  static Stream<Arguments> queueFailures() {
    return Stream.of(
        Arguments.of("the store's own error", (Consumer<String>) id -> {
          throw new LoopflowException(ErrorCode.STORE_UNAVAILABLE, "cannot add run '" + id + "' to the queue");
        }, ErrorCode.STORE_UNAVAILABLE, "cannot add run 'run_"),
        Arguments.of("an unexpected exception", (Consumer<String>) id -> {
          throw new IllegalStateException("queue table missing");
        }, ErrorCode.INTERNAL_ERROR, "internal error while queueing the run: IllegalStateException: queue table missing"),
        Arguments.of("an exception without a message", (Consumer<String>) id -> {
          throw new UnsupportedOperationException();
        }, ErrorCode.INTERNAL_ERROR, "internal error while queueing the run: UnsupportedOperationException"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("queueFailures")
  void aRunThatCouldNotBeQueuedEndsFailedWithTheQueuesError_bugLeftRunning(String what, Consumer<String> queue,
      ErrorCode code, String message) throws Exception {
    RunResult r = engine.journalNew(wf, RunOptions.builder().build(), queue);
    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().errorCode()).isEqualTo(code);
    assertThat(r.error().message()).startsWith(message);
    RunRecord rec = store.findRun(r.runId()).orElseThrow();
    assertThat(rec.status()).isEqualTo(RunStatus.FAILED);
    assertThat(rec.error().message()).isEqualTo(r.error().message());
    assertThat(store.events(r.runId())).extracting(Event::type).containsExactly("run.started", "run.finished");
    assertThat(store.lease(r.runId())).isEmpty();
    assertThat(store.nodeExecutions(r.runId())).isEmpty();
  }
}
