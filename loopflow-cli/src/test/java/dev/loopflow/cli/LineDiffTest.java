package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class LineDiffTest {
  @Test
  void changedLinesShowRemovedThenAddedWithContext() {
    assertThat(LineDiff.of("a\nb\nc\nd\ne\nf\ng", "a\nb\nc\nD\ne\nf\ng")).containsExactly(
        "  b", "  c", "- d", "+ D", "  e", "  f");
  }

  @Test
  void equalTextsHaveNoLinesAndEmptySidesAreAllAddedOrRemoved() {
    assertThat(LineDiff.of("same\ntext", "same\ntext")).isEmpty();
    assertThat(LineDiff.of("", "x\ny")).containsExactly("+ x", "+ y");
    assertThat(LineDiff.of("x", "")).containsExactly("- x");
  }

  @Test
  void farApartChangesAreSeparatedByAnEllipsis() {
    String a = IntStream.range(0, 20).mapToObj(i -> "l" + i).collect(Collectors.joining("\n"));
    String b = a.replace("l2\n", "L2\n").replace("l17", "L17");
    List<String> d = LineDiff.of(a, b);
    assertThat(d).contains("- l2", "+ L2", "  ...", "- l17", "+ L17");
  }

  @Test
  void hugeTextsAreComparedOnABoundedPrefixAndSaySo() {
    String big = IntStream.range(0, 50_000).mapToObj(i -> "line " + i).collect(Collectors.joining("\n"));
    List<String> d = LineDiff.of(big, big + "\nmore");
    assertThat(d).last().asString().contains("first " + LineDiff.MAX_LINES + " lines");
  }
}
