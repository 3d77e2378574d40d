package dev.loopflow.core.error;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class NamesTest {
  @Test
  void equallyCloseCandidatesGiveTheSameSuggestionWhateverTheirOrder_bugSuggestionChangedBetweenRuns() {
    // 'timout' is one edit from both; a Set.of of the two iterates in an order that differs between JVM starts.
    assertThat(Names.closest("timout", List.of("timeout", "tmout"))).isEqualTo("timeout");
    assertThat(Names.closest("timout", List.of("tmout", "timeout"))).isEqualTo("timeout");
  }

  @Test
  void theClosestCandidateWinsOverAnAlphabeticallyEarlierOne() {
    assertThat(Names.closest("retyr", List.of("aretyrx", "retry"))).isEqualTo("retry");
  }

  @Test
  void swappedNeighboursCountAsOneEdit_bugTranspositionReadTheWrongRow() {
    assertThat(Names.distance("retyr", "retry")).isEqualTo(1);
    assertThat(Names.distance("ab", "ba")).isEqualTo(1);
    assertThat(Names.distance("abcdef", "abdcef")).isEqualTo(1);
    assertThat(Names.distance("kitten", "sitting")).isEqualTo(3);
  }

  @Test
  void nothingCloseEnoughGivesNoSuggestion() {
    assertThat(Names.closest("zzzzzz", List.of("retry", "timeout"))).isNull();
    assertThat(Names.suggest("zzzzzz", List.of("retry"))).isEmpty();
  }
}
