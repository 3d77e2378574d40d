package dev.loopflow.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeProgram;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ManualClockTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  @Test
  void aRetryDelayPassesWhenTheEngineClockIsAdvancedNotInRealTime_bugClockDidNotGovernWaits() throws Exception {
    ManualClock clock = new ManualClock(T0);
    Loopflow engine = Loopflow.builder().clock(clock).build();
    // The first attempt fails (and leaves a marker), the retry an hour later succeeds.
    Workflow withRetry = engine.parse("""
        name: flaky
        nodes:
          - id: call
            bash: "test -f retry-marker || { touch retry-marker; exit 1; }; echo ok"
            retry: {max_attempts: 2, delay: 1h}
        """, "flaky.yaml");
    Path dir = Files.createTempDirectory("clock");
    RunHandle h = engine.start(withRetry, RunOptions.builder().workingDirectory(dir).build());

    assertThat(clock.awaitSleepers(1, Duration.ofSeconds(10))).isTrue();
    assertThat(h.await(Duration.ofMillis(200))).as("the run waits for the clock, not for real time").isEmpty();
    clock.advance(Duration.ofHours(1));
    RunResult r = h.await(Duration.ofSeconds(10)).orElseThrow();

    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.output()).isEqualTo("ok");
    assertThat(clock.instant()).isEqualTo(T0.plus(Duration.ofHours(1)));
  }

  @Test
  void theRunsDeadlineIsReachedByAdvancingTheClock() throws Exception {
    ManualClock clock = new ManualClock(T0);
    Loopflow engine = Loopflow.builder().clock(clock).build();
    Workflow wf = engine.parse("""
        name: slow
        limits: {timeout: 30m}
        nodes:
          - id: wait
            bash: "sleep 30"
        """, "slow.yaml");
    RunHandle h = engine.start(wf, RunOptions.builder().build());

    assertThat(clock.awaitSleepers(1, Duration.ofSeconds(10))).as("the deadline watchdog sleeps on the clock")
        .isTrue();
    clock.advance(Duration.ofMinutes(30));
    RunResult r = h.await(Duration.ofSeconds(10)).orElseThrow();

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("timeout");
    assertThat(r.error().message()).startsWith("run timed out after 30m");
  }

  /** A node kind whose nodes signal that they started, then block until they are interrupted. */
  private static NodeHandler hangingKind(CountDownLatch started) {
    return new NodeHandler() {
      @Override
      public NodeKindSpec spec() {
        return NodeKindSpec.of("hang", null, List.of());
      }

      @Override
      public NodeProgram compile(NodeConfig config) {
        return ctx -> {
          started.countDown();
          new CountDownLatch(1).await();
          throw new AssertionError("a latch nobody releases returned");
        };
      }
    };
  }

  @Test
  void aNodeTimeoutIsReachedByAdvancingTheClock() throws Exception {
    ManualClock clock = new ManualClock(T0);
    CountDownLatch started = new CountDownLatch(1);
    Loopflow engine = Loopflow.builder().clock(clock).handler(hangingKind(started)).build();
    Workflow wf = engine.parse("""
        name: node-timeout
        nodes:
          - id: stuck
            type: hang
            timeout: 1h
        """, "node-timeout.yaml");
    RunHandle h = engine.start(wf, RunOptions.builder().build());

    // The node's deadline is taken from the clock before the node starts, so advancing after it started reaches it.
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(h.await(Duration.ofMillis(200))).as("the node waits for the clock, not for real time").isEmpty();
    clock.advance(Duration.ofHours(1));
    RunResult r = h.await(Duration.ofSeconds(10)).orElseThrow();

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().errorCode()).isEqualTo(ErrorCode.TIMEOUT);
    assertThat(r.error().message()).isEqualTo("node 'stuck' timed out after 60m0s");
    assertThat(r.nodes().get("stuck")).containsEntry("status", "failed");
  }

  @Test
  void advancingBackwardsIsRefused() {
    ManualClock clock = new ManualClock(T0);
    assertThatThrownBy(() -> clock.advance(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT-1S");
  }
}
