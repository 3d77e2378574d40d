package dev.loopflow.observability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.observability.internal.BoundedLabels;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BoundedLabelsTest {
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 10, 100})
  void atMostMaxDistinctValuesPlusOtherWhateverArrives(int max) {
    BoundedLabels labels = new BoundedLabels(max);
    Set<String> reported = new HashSet<>();
    IntStream.range(0, 1000).parallel().forEach(i -> {
      String v = labels.of("wf-" + (i % 300));
      synchronized (reported) {
        reported.add(v);
      }
    });
    assertThat(reported).hasSize(max + 1).contains(BoundedLabels.OVERFLOW);
    // a value that was admitted stays admitted
    reported.stream().filter(v -> !v.equals(BoundedLabels.OVERFLOW)).forEach(v -> assertThat(labels.of(v)).isEqualTo(v));
  }

  static java.util.stream.Stream<String> unusable() {
    return java.util.stream.Stream.of("", "x".repeat(101), "y".repeat(10_000));
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.MethodSource("unusable")
  void emptyAndHugeValuesNeverBecomeLabels(String value) {
    BoundedLabels labels = new BoundedLabels(10);
    assertThat(labels.of(value)).isIn(BoundedLabels.NONE, BoundedLabels.OVERFLOW);
    assertThat(labels.of(null)).isEqualTo(BoundedLabels.NONE);
  }
}
