package dev.loopflow.observability.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class RunLogTest {
  static Stream<String> hostile() {
    return Stream.of("a\nrun finished status=completed", "a\r\nb", "\u0000\u0007\u001b[31mred", "line\u2028sep",
        "para\u2029sep", "x".repeat(10_000), "tab\there", "\u0085next");
  }

  @ParameterizedTest
  @MethodSource("hostile")
  void aLoggedValueIsOneBoundedLine(String value) {
    String c = RunLog.clean(value);
    assertThat(c).doesNotContain("\n", "\r", "\u2028", "\u2029", "\u001b", "\u0000", "\u0085");
    assertThat(c.length()).isLessThanOrEqualTo(500);
    assertThat(c.lines()).hasSizeLessThanOrEqualTo(1);
  }

  @org.junit.jupiter.api.Test
  void nullIsEmptyNeverTheWordNull() {
    assertThat(RunLog.clean(null)).isEmpty();
  }
}
