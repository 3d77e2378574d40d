package dev.loopflow.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.time.Duration;
import java.time.Instant;
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
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("clock");
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

  @Test
  void advancingBackwardsIsRefused() {
    ManualClock clock = new ManualClock(T0);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> clock.advance(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT-1S");
  }
}
