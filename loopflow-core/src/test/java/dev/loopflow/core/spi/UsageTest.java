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
}
