package dev.loopflow.bench.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class StreamCheckTest {
  /** A delivery as a client records it. */
  record D(long seq, String type, long hash) {}

  static final int N = 40;

  static Journal journal() {
    List<Journal.Entry> e = new ArrayList<>();
    for (int i = 1; i <= N; i++) {
      String type = i == 1 ? "run.started" : i == N ? "run.finished" : "node.completed";
      e.add(new Journal.Entry(i, type, SseParser.hashOf("{\"seq\":" + i + "}"), i * 1000L));
    }
    return Journal.of("run_x", e);
  }

  static List<D> exact() {
    return journal().entries().stream().map(e -> new D(e.seq(), e.type(), e.hash())).toList();
  }

  static SseClient client(List<D> deliveries) {
    SseClient c = new SseClient(7, SseClient.Kind.RECONNECT, 0, new long[0], new long[0]);
    for (D d : deliveries) {
      c.frame(String.valueOf(d.seq()), d.type(), d.hash(), 0, null);
    }
    return c;
  }

  static List<D> edit(UnaryOperator<List<D>> f) {
    return f.apply(new ArrayList<>(exact()));
  }

  static Stream<Arguments> faults() {
    return Stream.of(
        Arguments.of("one event lost", edit(l -> { l.remove(9); return l; }), "1 event missing (seq 10)"),
        Arguments.of("a run of events lost", edit(l -> { l.subList(4, 9).clear(); return l; }),
            "5 events missing (seq 5-9)"),
        Arguments.of("the last event lost", edit(l -> { l.removeLast(); return l; }), "missing (seq 40)"),
        Arguments.of("the first event lost", edit(l -> { l.removeFirst(); return l; }), "missing (seq 1)"),
        Arguments.of("nothing received", new ArrayList<D>(), "40 events missing (seq 1-40)"),
        Arguments.of("one event twice", edit(l -> { l.add(10, l.get(9)); return l; }), "1 event duplicated (seq 10)"),
        Arguments.of("a resume that replays from the start",
            edit(l -> { l.addAll(20, l.subList(0, 20)); return l; }), "20 events duplicated (seq 1-20)"),
        Arguments.of("a resume that repeats the last id",
            edit(l -> { l.add(15, l.get(14)); l.add(30, l.get(29)); return l; }), "2 events duplicated (seq 15, 29)"),
        Arguments.of("two events swapped", edit(l -> { D a = l.get(5); l.set(5, l.get(6)); l.set(6, a); return l; }),
            "1 event out of order (seq 6)"),
        Arguments.of("altered data", edit(l -> { D d = l.get(3); l.set(3, new D(d.seq(), d.type(), 42)); return l; }),
            "1 event with another type or data than the journal's (seq 4)"),
        Arguments.of("altered type",
            edit(l -> { D d = l.get(3); l.set(3, new D(d.seq(), "node.failed", d.hash())); return l; }),
            "with another type or data than the journal's (seq 4)"),
        Arguments.of("an event the journal does not have",
            edit(l -> { l.add(new D(41, "node.completed", 1)); return l; }), "1 event not in the journal (seq 41)"),
        Arguments.of("one event lost and another repeated (same count)",
            edit(l -> { l.remove(9); l.add(20, l.get(19)); return l; }), "1 event missing (seq 10)"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("faults")
  void everyLossDuplicateReorderOrAlterationIsReported(String name, List<D> deliveries, String expected) {
    List<String> problems = StreamCheck.check(journal(), client(deliveries));
    assertThat(problems).isNotEmpty();
    assertThat(problems).anySatisfy(p -> assertThat(p).contains(expected).startsWith("client 7 (reconnect"));
  }

  @Test
  void theExactJournalPasses() {
    assertThat(StreamCheck.check(journal(), client(exact()))).isEmpty();
  }

  @Test
  void aClientsOwnProblemFailsTheCheckEvenWithEveryEvent() {
    SseClient c = client(exact());
    c.problems().add("the stream stayed open 10 s after run.finished");
    assertThat(StreamCheck.check(journal(), c)).containsExactly(
        "client 7 (reconnect): the stream stayed open 10 s after run.finished");
  }

  @Test
  void ephemeralFramesAreCountedNotChecked() {
    SseClient c = client(exact());
    c.frame(null, "node.streaming", 1, 0, null);
    assertThat(c.ephemeral()).isEqualTo(1);
    assertThat(StreamCheck.check(journal(), c)).isEmpty();
  }

  @Test
  void rangesAreListedCompactlyAndCut() {
    assertThat(StreamCheck.ranges(new TreeSet<>(List.of(1L, 2L, 3L, 5L, 7L, 8L)))).isEqualTo("1-3, 5, 7-8");
    TreeSet<Long> many = new TreeSet<>();
    for (long i = 0; i < 40; i += 2) {
      many.add(i);
    }
    assertThat(StreamCheck.ranges(many)).isEqualTo("0, 2, 4, 6, 8, 10, 12, 14, ...");
  }
}
