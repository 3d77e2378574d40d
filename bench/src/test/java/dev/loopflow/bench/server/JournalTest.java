package dev.loopflow.bench.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class JournalTest {
  static Journal.Entry e(long seq, String type) {
    return new Journal.Entry(seq, type, seq, seq);
  }

  static List<Journal.Entry> complete() {
    return new ArrayList<>(List.of(e(1, "run.started"), e(2, "node.started"), e(3, "node.completed"),
        e(4, "run.finished")));
  }

  static Stream<Arguments> incomplete() {
    return Stream.of(
        Arguments.of("a gap", List.of(e(1, "run.started"), e(3, "node.completed"), e(4, "run.finished")),
            "journal position 2 holds seq 3"),
        Arguments.of("not from 1", List.of(e(2, "run.started"), e(3, "run.finished")), "position 1 holds seq 2"),
        Arguments.of("a repeated number", List.of(e(1, "run.started"), e(1, "node.started"), e(2, "run.finished")),
            "position 2 holds seq 1"),
        Arguments.of("no run.finished", List.of(e(1, "run.started"), e(2, "node.started")),
            "holds 0 run.finished events"),
        Arguments.of("two run.finished", List.of(e(1, "run.started"), e(2, "run.finished"), e(3, "run.finished")),
            "holds 2 run.finished events"),
        Arguments.of("run.finished not last", List.of(e(1, "run.started"), e(2, "run.finished"),
            e(3, "node.started")), "run.finished is not the journal's last event"),
        Arguments.of("no run.started first", List.of(e(1, "node.started"), e(2, "run.finished")),
            "starts with node.started"),
        Arguments.of("empty", List.of(), "the journal is empty"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("incomplete")
  void anIncompleteJournalIsReported(String name, List<Journal.Entry> entries, String expected) {
    assertThat(Journal.of("r", entries).problems()).anySatisfy(p -> assertThat(p).contains(expected));
  }

  @Test
  void aCompleteJournalHasNoProblem() {
    Journal j = Journal.of("r", complete());
    assertThat(j.problems()).isEmpty();
    assertThat(j.bySeq(3).type()).isEqualTo("node.completed");
    assertThat(j.bySeq(5)).isNull();
    assertThat(j.durationNanos()).isEqualTo(3);
  }
}
