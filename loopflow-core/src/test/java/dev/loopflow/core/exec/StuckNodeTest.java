package dev.loopflow.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.store.NodeExecution;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A run must end even when a node does not react to being interrupted. */
class StuckNodeTest {
  private final Loopflow engine = Loopflow.create();

  /**
   * A clock a second ahead at every reading: the grace interrupted nodes get is measured on the engine clock, so
   * this run ends after a few of the engine's polls rather than after the grace's ten seconds.
   */
  private static final class HurriedClock extends Clock {
    private final AtomicLong readings = new AtomicLong();
    private final Instant start = Instant.now();

    @Override
    public Instant instant() {
      return start.plusSeconds(readings.incrementAndGet());
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void failedRunEndsEvenIfAnotherNodeIgnoresInterruption() throws Exception {
    Loopflow engine = Loopflow.builder().clock(new HurriedClock()).build();
    CountDownLatch stubbornStarted = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Workflow wf = engine.workflow("stuck")
        .node("stubborn", ctx -> {
          stubbornStarted.countDown();
          while (true) {
            try {
              if (release.await(1, TimeUnit.HOURS)) {
                return NodeOutcome.of("released");
              }
            } catch (InterruptedException ignored) {
              // a badly behaved node (or library call) that swallows interruption
            }
          }
        })
        .node("boom", ctx -> {
          stubbornStarted.await(10, TimeUnit.SECONDS);
          throw new IllegalStateException("boom");
        })
        .edge("__start__", "stubborn").edge("__start__", "boom")
        .build();

    RunHandle h = engine.start(wf, RunOptions.defaults());
    try {
      Optional<RunResult> r = h.await(Duration.ofSeconds(45));

      assertThat(r).as("the run ended although 'stubborn' is still running").isPresent();
      assertThat(r.get().status()).isEqualTo(RunStatus.FAILED);
      assertThat(r.get().error().node()).isEqualTo("boom");
      assertThat(r.get().nodes().get("stubborn")).containsEntry("status", "cancelled");
    } finally {
      release.countDown();
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void cancellingASpinningLuaScriptStopsTheScript() throws Exception {
    Workflow wf = engine.parse("""
        name: spin
        nodes:
          - id: spin
            max_instructions: 2000000000
            run: |
              while true do end
        """, "spin.yaml");

    CountDownLatch started = new CountDownLatch(1);
    RunHandle h = engine.start(wf, RunOptions.builder()
        .listener(e -> {
          if (e instanceof dev.loopflow.core.event.Event.NodeStarted) {
            started.countDown();
          }
        })
        .build());
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    h.cancel("stop spinning");
    RunResult r = h.await();

    assertThat(r.status()).isEqualTo(RunStatus.CANCELLED);
    assertThat(r.nodes().get("spin")).containsEntry("status", "cancelled");
    // The script itself reported that it stopped (rather than being given up on after the grace period).
    assertThat(engine.store().nodeExecutions(r.runId())).extracting(NodeExecution::status)
        .containsExactly(dev.loopflow.core.run.NodeStatus.CANCELLED);
  }
}
