package dev.loopflow.core.spi;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class UsageTest {
  @Test
  void regressionTwoUnpricedCallsSumToAnUnknownCostInsteadOfThrowing() {
    Usage sum = Usage.ofCall(10, 2, null).plus(Usage.ofCall(5, 1, null));

    assertThat(sum.costUsd()).isNull();
    assertThat(sum.llmCalls()).isEqualTo(2);
    assertThat(sum.unpricedCalls()).isEqualTo(2);
    assertThat(sum.inputTokens()).isEqualTo(15);
  }

  @Test
  void aPricedAndAnUnpricedCallKeepTheKnownCostAndCountTheUnpricedOne() {
    Usage sum = Usage.ofCall(10, 2, 0.5).plus(Usage.ofCall(5, 1, null));

    assertThat(sum.costUsd()).isEqualTo(0.5);
    assertThat(sum.unpricedCalls()).isEqualTo(1);
    assertThat(Usage.ofCall(1, 1, 0.25).plus(Usage.ofCall(1, 1, 0.5)).costUsd()).isEqualTo(0.75);
  }

  /** What the record would generate: the written-out equals must mean the same. */
  private record Generated(long inputTokens, long outputTokens, Double costUsd, int llmCalls, int unpricedCalls) {}

  @Test
  void equalsAndHashCodeMeanWhatARecordsGeneratedOnesMean() {
    java.util.List<Usage> corpus = new java.util.ArrayList<>();
    for (long in : new long[] {0, 1, Long.MIN_VALUE}) {
      for (long out : new long[] {0, 7}) {
        for (Double cost : java.util.Arrays.asList(null, 0.0, -0.0, 0.5, Double.NaN)) {
          for (int calls : new int[] {0, 1}) {
            for (int unpriced : new int[] {0, 1}) {
              corpus.add(new Usage(in, out, cost, calls, unpriced));
            }
          }
        }
      }
    }
    corpus.add(Usage.NONE);
    for (Usage a : corpus) {
      Generated ga = new Generated(a.inputTokens(), a.outputTokens(), a.costUsd(), a.llmCalls(), a.unpricedCalls());
      assertThat(a.equals(null)).isFalse();
      assertThat(a.equals(ga)).isFalse();
      for (Usage b : corpus) {
        Generated gb = new Generated(b.inputTokens(), b.outputTokens(), b.costUsd(), b.llmCalls(), b.unpricedCalls());
        assertThat(a.equals(b)).as("%s vs %s", a, b).isEqualTo(ga.equals(gb));
        if (a.equals(b)) {
          assertThat(a.hashCode()).isEqualTo(b.hashCode());
        }
      }
    }
    assertThat(new Usage(0, 0, null, 0, 0)).isEqualTo(Usage.NONE);
  }
}
