package dev.loopflow.core.model;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Values built by hand are checked like loaded ones: a limit that would stop or break every run is refused with a
 * message naming the field and the value, never accepted to fail later (zero concurrency slots hung a run).
 */
class ModelValuesTest {
  static Stream<Arguments> hostile() {
    return Stream.of(
        Arguments.of("limits.concurrency", (Runnable) () -> new Limits(10, null, 0)),
        Arguments.of("limits.concurrency", (Runnable) () -> new Limits(10, null, Integer.MIN_VALUE)),
        Arguments.of("limits.max_steps", (Runnable) () -> new Limits(0, null, 8)),
        Arguments.of("limits.max_steps", (Runnable) () -> new Limits(-1, null, 8)),
        Arguments.of("limits.timeout", (Runnable) () -> new Limits(10, Duration.ZERO, 8)),
        Arguments.of("limits.timeout", (Runnable) () -> new Limits(10, Duration.ofSeconds(-5), 8)),
        Arguments.of("budget.max_usd", (Runnable) () -> new Budget(Double.NaN, null, null)),
        Arguments.of("budget.max_usd", (Runnable) () -> new Budget(Double.POSITIVE_INFINITY, null, null)),
        Arguments.of("budget.max_usd", (Runnable) () -> new Budget(-0.01, null, null)),
        Arguments.of("budget.max_tokens", (Runnable) () -> new Budget(null, -1L, null)),
        Arguments.of("budget.max_tokens", (Runnable) () -> new Budget(null, Long.MIN_VALUE, null)),
        Arguments.of("budget.max_llm_calls", (Runnable) () -> new Budget(null, null, -3)),
        Arguments.of("retry.max_attempts", (Runnable) () -> new Node.Retry(0, Duration.ZERO)),
        Arguments.of("retry.delay", (Runnable) () -> new Node.Retry(2, Duration.ofMillis(-1))),
        Arguments.of("retry.delay", (Runnable) () -> new Node.Retry(2, null)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("hostile")
  void aValueThatWouldBreakEveryRunIsRefusedNamingItsField_bugZeroConcurrencySlots(String field, Runnable make) {
    assertThatThrownBy(make::run).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(field);
  }

  @org.junit.jupiter.api.Test
  void theBoundsThemselvesAreAccepted() {
    assertThatCode(() -> {
      new Limits(1, Duration.ofNanos(1), 1);
      new Budget(0.0, 0L, 0);
      new Node.Retry(1, Duration.ZERO);
    }).doesNotThrowAnyException();
  }
}
