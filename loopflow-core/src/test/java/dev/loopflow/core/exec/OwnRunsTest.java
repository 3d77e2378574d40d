package dev.loopflow.core.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.spi.NodeOutcome;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An engine acting on a run it executes itself. Its lease on the run is its own, which the store takes for a
 * renewal, so the lease cannot tell it that the run is busy.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OwnRunsTest {
  private final Loopflow engine = Loopflow.create();

  private Workflow waiting(CountDownLatch started, CountDownLatch release) {
    return engine.workflow("waits")
        .node("wait", ctx -> {
          started.countDown();
          release.await();
          return NodeOutcome.of("released");
        })
        .build();
  }

  @Test
  void cancellingARunThisEngineExecutesStopsItInsteadOfMarkingItCancelledUnderIt_bugOwnLeaseLookedFree()
      throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    RunHandle h = engine.start(waiting(started, release), RunOptions.defaults());
    started.await();
    RunStatus after = engine.cancel(h.runId(), "enough", Duration.ofSeconds(30));
    assertThat(after).isEqualTo(RunStatus.CANCELLED);
    RunResult r = h.await();
    assertThat(r.status()).isEqualTo(RunStatus.CANCELLED);
    assertThat(r.error().message()).isEqualTo("run cancelled: enough");
    // The run's own end is the one journaled: one run.finished, after the node was cancelled.
    assertThat(engine.store().events(h.runId()).stream().filter(e -> e.type().equals("run.finished"))).hasSize(1);
    assertThat(r.nodes().get("wait")).containsEntry("status", "cancelled");
  }

  @Test
  void resumingARunThisEngineExecutesIsRefusedAsBusy_bugOwnLeaseLookedFree() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Workflow wf = waiting(started, release);
    RunHandle h = engine.start(wf, RunOptions.defaults());
    started.await();
    assertThatThrownBy(() -> engine.resume(wf, h.runId(), ResumeInput.none(), RunOptions.defaults(), false))
        .isInstanceOfSatisfying(LoopflowException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.RUN_BUSY));
    release.countDown();
    assertThat(h.await().status()).isEqualTo(RunStatus.COMPLETED);
  }

  @Test
  void aRunThatEndedHereCanBeResumedAtOnce() throws Exception {
    Workflow wf = engine.parse("""
        name: asks
        nodes:
          - id: ask
            approval: "Go?"
        """, null);
    RunResult paused = engine.start(wf, RunOptions.defaults()).await();
    assertThat(paused.status()).isEqualTo(RunStatus.PAUSED);
    // await() returned: the run has ended here, so the engine takes it again without calling it busy.
    RunResult done = engine.resume(wf, paused.runId(), ResumeInput.approve(null), RunOptions.defaults(), false)
        .await();
    assertThat(done.status()).isEqualTo(RunStatus.COMPLETED);
  }

  /**
   * A run's record says paused a moment before the run has finished here (it still flushes its store and gives up
   * its lease). A cancel in that moment stopped the finishing run, found it paused, and answered "paused": the
   * server's cancel of a paused run failed now and then. It is now cancelled as the paused run it is.
   */
  @Test
  void cancellingARunThatPausesAsTheCancelArrivesCancelsIt_bugAnsweredPaused() throws Exception {
    dev.loopflow.core.store.RunStore inner = dev.loopflow.core.store.RunStore.inMemory();
    CountDownLatch flushing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    java.util.concurrent.atomic.AtomicBoolean hold = new java.util.concurrent.atomic.AtomicBoolean(true);
    dev.loopflow.core.store.RunStore store = (dev.loopflow.core.store.RunStore) java.lang.reflect.Proxy
        .newProxyInstance(getClass().getClassLoader(), new Class<?>[] {dev.loopflow.core.store.RunStore.class},
            (proxy, method, args) -> {
              if (method.getName().equals("flush") && hold.get() && inner.listRuns().stream()
                  .anyMatch(r -> r.status() == RunStatus.PAUSED)) {
                hold.set(false);
                flushing.countDown();
                release.await();
              }
              try {
                return method.invoke(inner, args);
              } catch (java.lang.reflect.InvocationTargetException e) {
                throw e.getCause();
              }
            });
    Loopflow lf = Loopflow.builder().store(store).build();
    Workflow wf = lf.parse("""
        name: asks
        nodes:
          - id: ask
            approval: "Go?"
        """, null);
    RunHandle h = lf.start(wf, RunOptions.defaults());
    assertThat(flushing.await(30, TimeUnit.SECONDS)).isTrue();
    java.util.concurrent.atomic.AtomicReference<RunStatus> answer = new java.util.concurrent.atomic.AtomicReference<>();
    Thread cancel = new Thread(() -> answer.set(lf.cancel(h.runId(), "enough", Duration.ofSeconds(30))));
    cancel.start();
    while (cancel.getState() != Thread.State.TIMED_WAITING && cancel.getState() != Thread.State.WAITING
        && cancel.isAlive()) {
      Thread.sleep(5);
    }
    release.countDown();
    cancel.join();
    assertThat(answer.get()).isEqualTo(RunStatus.CANCELLED);
    assertThat(store.findRun(h.runId()).orElseThrow().status()).isEqualTo(RunStatus.CANCELLED);
  }

  @Test
  void aRunStartedWithAnIdAlreadyInTheStoreFailsWithoutTouchingTheOtherRun_bugTakenIdOverwroteTheRecord()
      throws Exception {
    Workflow quick = engine.parse("name: quick\nnodes:\n  - {id: a, type: transform, template: hi}\n", null);
    RunResult first = engine.start(quick, RunOptions.builder().runId("taken").build()).await();
    assertThat(first.status()).isEqualTo(RunStatus.COMPLETED);
    var before = engine.store().findRun("taken").orElseThrow();
    int eventsBefore = engine.store().events("taken").size();
    RunResult second = engine.start(quick, RunOptions.builder().runId("taken").build()).await();
    assertThat(second.status()).isEqualTo(RunStatus.FAILED);
    assertThat(second.error().errorCode()).isEqualTo(ErrorCode.INTERNAL_ERROR);
    assertThat(engine.store().findRun("taken")).contains(before);
    assertThat(engine.store().events("taken")).hasSize(eventsBefore);
  }
}
