package dev.loopflow.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.spi.Usage;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The in-memory store holds a run's node executions as bytes: every row must read back equal to the row written,
 * with the classes of its strings and numbers, over generated rows with hostile values (unpaired surrogates, NaN and
 * -0.0, long and numerous strings, deep nesting, keys that are not strings, objects only the JVM knows).
 */
class EncodedRowsTest {
  private static final String RUN = "run_x";

  /** A value of the kinds rows hold, some nested, some odd. */
  private static Object value(Random rnd, int depth) {
    int pick = rnd.nextInt(depth > 4 ? 12 : 15);
    return switch (pick) {
      case 0 -> null;
      case 1 -> rnd.nextInt();
      case 2 -> rnd.nextLong();
      case 3 -> switch (rnd.nextInt(6)) {
        case 0 -> Double.NaN;
        case 1 -> -0.0;
        case 2 -> Double.NEGATIVE_INFINITY;
        case 3 -> Double.longBitsToDouble(0x7ff0000000000123L); // a NaN with its own bits
        default -> rnd.nextDouble() * 1e6;
      };
      case 4 -> rnd.nextBoolean();
      case 5 -> string(rnd);
      case 6 -> "status";
      case 7 -> (short) rnd.nextInt(100); // kept as is: a number of another class
      case 8 -> new BigDecimal(rnd.nextInt(1000)).movePointLeft(2);
      case 9 -> "x".repeat(60 + rnd.nextInt(10)); // around the length of strings numbered once
      case 10 -> Instant.ofEpochSecond(rnd.nextInt(), rnd.nextInt(1_000_000_000));
      case 11 -> "";
      case 12 -> {
        Map<String, Object> m = rnd.nextBoolean() ? new LinkedHashMap<>() : new HashMap<>();
        int n = rnd.nextInt(5);
        for (int i = 0; i < n; i++) {
          m.put(string(rnd), value(rnd, depth + 1));
        }
        yield rnd.nextInt(4) == 0 ? java.util.Collections.unmodifiableMap(m) : m;
      }
      case 13 -> {
        List<Object> l = new ArrayList<>();
        int n = rnd.nextInt(5);
        for (int i = 0; i < n; i++) {
          l.add(value(rnd, depth + 1));
        }
        yield rnd.nextBoolean() ? l : java.util.Collections.unmodifiableList(l);
      }
      default -> new TreeMap<>(Map.of("b", 1, "a", List.of(2L, "three")));
    };
  }

  private static String string(Random rnd) {
    StringBuilder sb = new StringBuilder();
    int n = rnd.nextInt(rnd.nextInt(10) == 0 ? 200 : 12);
    for (int i = 0; i < n; i++) {
      sb.append(switch (rnd.nextInt(6)) {
        case 0 -> (char) (0xD800 + rnd.nextInt(0x800)); // a lone surrogate half
        case 1 -> (char) rnd.nextInt(0x10000);
        case 2 -> '\0';
        default -> (char) ('a' + rnd.nextInt(26));
      });
    }
    return sb.toString();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Random rnd) {
    Object v = value(rnd, 4);
    if (rnd.nextInt(4) == 0) {
      return null;
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put(string(rnd), v);
    m.put("output", value(rnd, 2));
    return m;
  }

  private static NodeExecution row(Random rnd, int i) {
    List<NodePosition.LoopFrame> frames = new ArrayList<>();
    for (int d = rnd.nextInt(4); d > 0; d--) {
      frames.add(new NodePosition.LoopFrame(rnd.nextBoolean() ? "loop" : string(rnd), rnd.nextInt(3) - 1 + i));
    }
    Usage usage = switch (rnd.nextInt(3)) {
      case 0 -> null;
      case 1 -> Usage.NONE;
      default -> new Usage(rnd.nextLong(), rnd.nextInt(100), rnd.nextBoolean() ? null : rnd.nextDouble(),
          rnd.nextInt(3), -rnd.nextInt(3));
    };
    Map<String, List<Map<String, String>>> sessions = rnd.nextBoolean() ? null
        : Map.of("chat", List.of(Map.of("role", "user", "content", string(rnd))));
    return new NodeExecution(RUN, new NodePosition(frames, rnd.nextBoolean() ? "n" + rnd.nextInt(3) : string(rnd)),
        rnd.nextBoolean() ? "script" : string(rnd),
        rnd.nextInt(8) == 0 ? null : NodeStatus.values()[rnd.nextInt(NodeStatus.values().length)],
        rnd.nextInt(), rnd.nextInt(8) == 0 ? null : Instant.ofEpochSecond(rnd.nextLong() % 100_000_000_000L,
        rnd.nextInt(1_000_000_000)), Instant.ofEpochSecond(-rnd.nextInt(1000), 999_999_999), map(rnd), map(rnd),
        usage, rnd.nextBoolean() ? null : string(rnd), rnd.nextBoolean() ? null : string(rnd), map(rnd), sessions);
  }

  /** The value and everything in it, with the class of each string, number and boolean. */
  private static void sameValueAndClasses(Object read, Object written) {
    assertThat(read).isEqualTo(written);
    if (written instanceof Map<?, ?> m) {
      assertThat(new ArrayList<Object>(((Map<?, ?>) read).keySet())).isEqualTo(new ArrayList<Object>(m.keySet()));
      m.forEach((k, v) -> sameValueAndClasses(((Map<?, ?>) read).get(k), v));
    } else if (written instanceof List<?> l) {
      for (int i = 0; i < l.size(); i++) {
        sameValueAndClasses(((List<?>) read).get(i), l.get(i));
      }
    } else if (written != null) {
      assertThat(read).hasSameClassAs(written);
    }
  }

  static Stream<Long> seeds() {
    return IntStream.range(0, 30).mapToObj(i -> 31L * i + 1);
  }

  @ParameterizedTest
  @MethodSource("seeds")
  void everyRowReadsBackEqualWithItsValuesClasses(long seed) {
    Random rnd = new Random(seed);
    EncodedRows rows = new EncodedRows();
    List<NodeExecution> written = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      NodeExecution e = row(rnd, i);
      written.add(e);
      rows.add(e);
    }
    List<NodeExecution> read = List.copyOf(rows.view(RUN));
    assertThat(read).containsExactlyElementsOf(written);
    for (int i = 0; i < written.size(); i++) {
      NodeExecution w = written.get(i);
      NodeExecution r = read.get(i);
      sameValueAndClasses(r.input(), w.input());
      sameValueAndClasses(r.result(), w.result());
      sameValueAndClasses(r.statePatch(), w.statePatch());
      assertThat(r.usage() == null ? null : r.usage().costUsd()).isEqualTo(w.usage() == null ? null
          : w.usage().costUsd());
      assertThat(rows.position(i)).isEqualTo(w.position());
      assertThat(rows.inLoop(i)).isEqualTo(!w.position().loops().isEmpty());
    }
  }

  @Test
  void moreDistinctShortStringsThanAreNumberedStillReadBack() {
    EncodedRows rows = new EncodedRows();
    List<NodeExecution> written = new ArrayList<>();
    for (int i = 0; i < 6_000; i++) {
      NodeExecution e = new NodeExecution(RUN, NodePosition.top("node" + i), "k", NodeStatus.COMPLETED, 1, null,
          null, null, Map.of("key" + i, "value" + i), Usage.NONE, null, null, null, null);
      written.add(e);
      rows.add(e);
    }
    assertThat(rows.view(RUN)).containsExactlyElementsOf(written);
  }

  @Test
  void aLoopPassRowTakesTensOfBytes() {
    EncodedRows rows = new EncodedRows();
    Instant t = Instant.parse("2026-11-24T12:00:00.123456789Z");
    for (int i = 0; i < 10_000; i++) {
      Map<String, Object> result = new LinkedHashMap<>();
      result.put("output", new LinkedHashMap<>(Map.of("count", (long) i)));
      result.put("stdout", "");
      result.put("status", "completed");
      rows.add(new NodeExecution(RUN, new NodePosition(List.of(new NodePosition.LoopFrame("outer", i / 100 + 1),
          new NodePosition.LoopFrame("inner", i % 100 + 1)), "increment"), "script", NodeStatus.COMPLETED, 1,
          t.plusNanos(i * 1_000L), t.plusNanos(i * 1_000L + 500), null, result, Usage.NONE, null, null,
          new LinkedHashMap<>(Map.of("count", (long) i)), null));
    }
    // As objects such a row took about 1.3 KB (four maps, two instants, a position).
    assertThat(rows.bytes() / rows.size()).isLessThanOrEqualTo(80);
  }

  @Test
  void aRowReadsAsItWasWhenWrittenAsADurableStoresDoes() {
    EncodedRows rows = new EncodedRows();
    Map<String, Object> result = new LinkedHashMap<>(Map.of("drafts", new ArrayList<>(List.of("one"))));
    rows.add(new NodeExecution(RUN, NodePosition.top("a"), "k", NodeStatus.COMPLETED, 1, null, null, null, result,
        Usage.NONE, null, null, null, null));
    @SuppressWarnings("unchecked")
    List<Object> drafts = (List<Object>) result.get("drafts");
    drafts.add("two");
    assertThat(rows.row(RUN, 0).result()).isEqualTo(Map.of("drafts", List.of("one")));
  }

  @Test
  void valuesItCannotWriteKeepTheirRowAsItIs() {
    Map<Object, Object> numericKey = new LinkedHashMap<>(Map.of(1, "one"));
    Map<String, Object> deep = new LinkedHashMap<>();
    Map<String, Object> at = deep;
    for (int i = 0; i <= EncodedRows.MAX_DEPTH + 1; i++) {
      Map<String, Object> next = new LinkedHashMap<>();
      at.put("d", next);
      at = next;
    }
    Map<String, Object> cycle = new LinkedHashMap<>();
    cycle.put("self", cycle);
    Object handlerObject = new Object();
    EncodedRows rows = new EncodedRows();
    List<NodeExecution> written = new ArrayList<>();
    for (Object odd : List.of(numericKey, deep, cycle, handlerObject)) {
      @SuppressWarnings("unchecked")
      Map<String, Object> result = new LinkedHashMap<>(Map.of("odd", odd));
      NodeExecution e = new NodeExecution(RUN, NodePosition.top("a"), "k", NodeStatus.COMPLETED, 1, null, null,
          null, result, Usage.NONE, null, null, null, null);
      written.add(e);
      rows.add(e);
    }
    for (int i = 0; i < written.size(); i++) {
      assertThat(rows.row(RUN, i).result().get("odd")).isSameAs(written.get(i).result().get("odd"));
    }
  }
}
