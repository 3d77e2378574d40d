package dev.loopflow.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.event.Events;
import dev.loopflow.core.spi.Usage;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The streaming writer must write exactly what the general path writes (ValueRefs' split, then Jackson on the copy
 * it makes): byte for byte, large parts included, over a generated corpus of values and of every event type. The
 * corpus reaches both sides of the large-value threshold, strings that start with NUL (which are escaped), map keys
 * that are not strings, and value types the writer hands to Jackson.
 */
class JournalJsonTest {
  private static final int SEEDS = 150;
  private static final ObjectMapper PLAIN = JsonMapper.builder().build();

  /** What the journal wrote before streaming: the split document and its parts, as JSON. */
  private static Codec.Encoded general(Object value) {
    ValueRefs.Split split = ValueRefs.split(value);
    Map<String, String> parts = new LinkedHashMap<>();
    split.parts().forEach((hash, part) -> parts.put(hash, Codec.plainJson(part)));
    return new Codec.Encoded(Codec.plainJson(split.document()), parts);
  }

  static Stream<Integer> seeds() {
    return IntStream.range(0, SEEDS).boxed();
  }

  @ParameterizedTest
  @MethodSource("seeds")
  void aDocumentIsWrittenAsTheGeneralPathWritesIt(int seed) {
    Random r = new Random(seed);
    Object value = new Values(r).document();
    assertThat(JournalJson.document(value)).isEqualTo(general(value));
  }

  @ParameterizedTest
  @MethodSource("seeds")
  void anEventIsWrittenAsItsMapIs(int seed) throws Exception {
    Random r = new Random(seed);
    Class<?>[] types = Event.class.getPermittedSubclasses();
    Event e = new Values(r).event(types[seed % types.length]);
    assertThat(JournalJson.event(e)).isEqualTo(general(Events.toMap(e)));
  }

  @Test
  void smallDocumentsAndEventsTakeTheStreamingPath() throws Exception {
    Random r = new Random(7);
    Values v = new Values(r);
    int streamed = 0;
    for (int i = 0; i < 200; i++) {
      Map<String, Object> doc = v.map(3, 0);
      if (JournalJson.estimate(doc, ValueRefs.THRESHOLD) < ValueRefs.THRESHOLD) {
        streamed++;
      }
    }
    // Nearly every small generated map streams (the rest have a non-string key or a long string).
    assertThat(streamed).isGreaterThan(100);
    assertThat(JournalJson.estimate(Map.of("count", 3), ValueRefs.THRESHOLD)).isEqualTo(12);
    assertThat(JournalJson.estimate(Map.of(1, 3), ValueRefs.THRESHOLD)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void theEstimateIsValueRefsEstimateBelowTheThreshold() {
    Random r = new Random(11);
    Values v = new Values(r);
    for (int i = 0; i < 300; i++) {
      Object doc = v.document();
      long streamed = JournalJson.estimate(doc, Long.MAX_VALUE - 1);
      if (streamed != Long.MAX_VALUE) {
        assertThat(streamed).as("estimate of %s", doc).isEqualTo(reference(doc));
      }
    }
  }

  /**
   * The direct writer (no generator) writes what the generator writes wherever it answers, and it answers for what a
   * loop pass journals: its events and its row's documents.
   */
  @Test
  void theDirectWriterWritesWhatTheGeneratorWritesAndTakesEveryPassDocument() throws Exception {
    Random r = new Random(13);
    Values v = new Values(r);
    int answered = 0;
    for (int i = 0; i < 2_000; i++) {
      Object doc = i % 2 == 0 ? v.map(4, 0) : v.value(0);
      if (JournalJson.estimate(doc, ValueRefs.THRESHOLD) >= ValueRefs.THRESHOLD) {
        continue; // large parts are moved out first; these go the general way
      }
      String plain = JournalJson.plainText(doc);
      if (plain != null) {
        answered++;
        assertThat(plain).as("%s", doc).isEqualTo(Codec.plainJson(ValueRefs.split(doc).document()));
      }
    }
    assertThat(answered).isGreaterThan(1_000);

    NodePosition pos = new NodePosition(List.of(new NodePosition.LoopFrame("outer", 3),
        new NodePosition.LoopFrame("inner", 41)), "increment");
    Instant at = Instant.parse("2026-11-24T12:00:00.123456Z");
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("count", 241L);
    result.put("status", "completed");
    for (Object doc : List.of(Map.of("count", 241L), result, Map.of(), List.of(pos.loops()),
        Events.toMap(new Event.NodeStarted("run_1", 7, at, pos, "script", 1)),
        Events.toMap(new Event.NodeCompleted("run_1", 8, at, pos, "script", 0, "{\"count\":241}", 0, 0, null, 15)),
        Events.toMap(new Event.LoopIteration("run_1", 6, at, pos, "while_loop", 41, 40, 100, 100, "", true)))) {
      assertThat(JournalJson.plainText(doc)).as("%s", doc).isNotNull()
          .isEqualTo(Codec.plainJson(ValueRefs.split(doc).document()));
    }
  }

  @Test
  void theEstimateOfALoopFrameIsTheLengthOfItsText() {
    Random r = new Random(5);
    Values v = new Values(r);
    for (int i = 0; i < 300; i++) {
      for (NodePosition.LoopFrame f : v.nestedPosition().loops()) {
        assertThat(JournalJson.estimate(f, Long.MAX_VALUE - 1)).isEqualTo(reference(f));
      }
    }
  }

  /** ValueRefs' size estimate as its Sizes class computes it. */
  private static long reference(Object v) {
    if (v instanceof String s) {
      return s.length() + 2L;
    }
    if (v instanceof Map<?, ?> m) {
      long total = 2;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        total += String.valueOf(e.getKey()).length() + 4 + reference(e.getValue());
      }
      return total;
    }
    if (v instanceof java.util.Collection<?> c) {
      long total = 2;
      for (Object x : c) {
        total += 1 + reference(x);
      }
      return total;
    }
    return v == null ? 4 : String.valueOf(v).length();
  }

  @Test
  void usageIsWrittenAsItsMapWas() {
    Random r = new Random(3);
    for (int i = 0; i < 200; i++) {
      Usage u = i == 0 ? Usage.NONE : i == 1 ? new Usage(0, 0, null, 0, 0)
          : new Usage(r.nextLong(), r.nextInt(1_000_000), r.nextBoolean() ? null : r.nextDouble() * 10,
              r.nextInt(100), r.nextInt(5));
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("input_tokens", u.inputTokens());
      m.put("output_tokens", u.outputTokens());
      m.put("cost_usd", u.costUsd());
      m.put("llm_calls", u.llmCalls());
      m.put("unpriced_calls", u.unpricedCalls());
      assertThat(JournalJson.usage(u)).isEqualTo(Codec.plainJson(m));
    }
    // No usage, what most rows hold, is written once.
    assertThat(JournalJson.usage(new Usage(0, 0, null, 0, 0))).isSameAs(JournalJson.usage(Usage.NONE));
  }

  /**
   * Loop frames used to be written from {@code Map.of}, whose key order is unspecified and changes from one JVM to
   * the next; they are now always {@code loop} then {@code iteration}. Equal as parsed, and read back unchanged.
   */
  @Test
  void loopFramesAreWrittenInAFixedOrderAndReadBack() throws Exception {
    Random r = new Random(5);
    Values v = new Values(r);
    for (int i = 0; i < 200; i++) {
      NodePosition p = v.nestedPosition();
      String json = JournalJson.loops(p);
      List<Map<String, Object>> old = new ArrayList<>();
      for (NodePosition.LoopFrame f : p.loops()) {
        old.add(Map.of("loop", f.loopId(), "iteration", f.iteration()));
      }
      assertThat(PLAIN.readTree(json)).isEqualTo(PLAIN.readTree(Codec.plainJson(old)));
      assertThat(json).startsWith("[{\"loop\":");
      // Byte for byte what Jackson's generator writes for the same fields (the direct writer must not drift).
      List<Map<String, Object>> ordered = new ArrayList<>();
      for (NodePosition.LoopFrame f : p.loops()) {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("loop", f.loopId());
        m.put("iteration", f.iteration());
        ordered.add(m);
      }
      assertThat(json).isEqualTo(PLAIN.writeValueAsString(ordered));
      assertThat(Codec.position(p.nodeId(), json)).isEqualTo(p);
    }
  }

  /** Random journal values: what nodes return, event fields, and the awkward cases. */
  private static final class Values {
    private final Random r;

    Values(Random r) {
      this.r = r;
    }

    Object document() {
      return switch (r.nextInt(6)) {
        case 0 -> string();
        case 1 -> java.util.Arrays.asList(map(2, 0), string(), r.nextInt(), null);
        case 2 -> big();
        default -> map(3, 0);
      };
    }

    /** A map near the threshold: many medium strings, so the estimate lands on both sides of it. */
    Object big() {
      Map<String, Object> m = new LinkedHashMap<>();
      int target = ValueRefs.THRESHOLD - 400 + r.nextInt(800);
      int size = 2;
      for (int i = 0; size < target; i++) {
        String s = "x".repeat(Math.min(target - size, 50 + r.nextInt(2000)));
        m.put("k" + i, r.nextInt(4) == 0 ? List.of(s, i) : s);
        size += s.length() + 10;
      }
      return m;
    }

    Map<String, Object> map(int width, int depth) {
      Map<String, Object> m = new LinkedHashMap<>();
      int n = r.nextInt(width + 1);
      for (int i = 0; i < n; i++) {
        m.put(key(), value(depth));
      }
      return m;
    }

    private String key() {
      if (r.nextInt(6) == 0) {
        String hostile = "k\u0000\u0001\b\t\n\u000b\f\r\u001f\"\\/\u007f\u2028\uD800é";
        StringBuilder sb = new StringBuilder();
        for (int i = 0, n = 1 + r.nextInt(6); i < n; i++) {
          sb.append(hostile.charAt(r.nextInt(hostile.length())));
        }
        return sb.toString();
      }
      return r.nextInt(10) == 0 ? "\u0000k" + r.nextInt(5) : "key" + r.nextInt(20) + (r.nextBoolean() ? "é\"\\" : "");
    }

    /** Doubles whose text differs in form: exponents, negative zero, extremes, the non-finite ones. */
    private Object number() {
      double[] awkward = {0.0, -0.0, 1.0, 100.0, 1e7, 1e-3, 1e-7, 1e21, 1e22, 123456789.125, Double.MIN_VALUE,
          Double.MAX_VALUE, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0.1 + 0.2};
      return switch (r.nextInt(4)) {
        case 0 -> awkward[r.nextInt(awkward.length)];
        case 1 -> r.nextBoolean() ? Integer.MIN_VALUE : Long.MIN_VALUE;
        default -> r.nextDouble() * 1e6;
      };
    }

    Object value(int depth) {
      int kind = r.nextInt(depth >= 3 ? 9 : 13);
      return switch (kind) {
        case 0 -> null;
        case 1 -> r.nextInt();
        case 2 -> r.nextLong();
        case 3 -> r.nextBoolean();
        case 4 -> number();
        case 5, 6 -> string();
        case 7 -> new NodePosition.LoopFrame("loop" + r.nextInt(3), r.nextInt(100));
        case 8 -> switch (r.nextInt(5)) {
          case 0 -> 3.5f;
          case 1 -> new java.math.BigDecimal("12.500");
          case 2 -> (short) 7;
          case 3 -> new String[] {"\u0000a", "b"};
          default -> Double.NaN;
        };
        case 9, 10 -> map(4, depth + 1);
        case 11 -> new ArrayList<>(java.util.Arrays.asList(value(depth + 1), value(depth + 1)));
        default -> {
          Map<Object, Object> odd = new LinkedHashMap<>();
          odd.put(1, "one");
          if (r.nextBoolean()) {
            odd.put("1", "string one");
          }
          odd.put(null, r.nextBoolean() ? new LinkedHashSet<>(List.of("a", "b")) : "n");
          yield odd;
        }
      };
    }

    String string() {
      int len = switch (r.nextInt(8)) {
        case 0 -> ValueRefs.THRESHOLD - 2 + r.nextInt(4);
        case 1 -> ValueRefs.THRESHOLD + r.nextInt(4000);
        default -> r.nextInt(40);
      };
      StringBuilder sb = new StringBuilder(len);
      if (r.nextInt(6) == 0) {
        sb.append(r.nextBoolean() ? "\u0000" : "\u0000\u0000");
      }
      String alphabet = "abc xyz\"\\\n\t\u0001é€\uD83D\uDE00<>&";
      if (r.nextInt(4) == 0) {
        // Every character the writers might escape differently: controls, DEL, separators, lone surrogates.
        alphabet = "a\u0000\u0001\u0007\b\t\n\u000b\f\r\u000e\u001b\u001f \"/\\"
            + "\u007f\u0080\u00a0\u2028\u2029\uD800\uDC00\uFFFF";
      }
      while (sb.length() < len) {
        sb.append(alphabet.charAt(r.nextInt(alphabet.length())));
      }
      return sb.toString();
    }

    NodePosition nestedPosition() {
      List<NodePosition.LoopFrame> frames = new ArrayList<>();
      for (int i = 0, n = 1 + r.nextInt(3); i < n; i++) {
        String id = switch (r.nextInt(4)) {
          case 0 -> "outer";
          case 1 -> "in\"ner";
          default -> string(); // long ids, ids starting with NUL, escapes
        };
        frames.add(new NodePosition.LoopFrame(id, r.nextBoolean() ? r.nextInt(1000) : r.nextInt()));
      }
      return new NodePosition(frames, "node" + r.nextInt(9));
    }

    /** An instance of {@code type} with a random value in every component. */
    Event event(Class<?> type) throws Exception {
      RecordComponent[] components = type.getRecordComponents();
      Object[] args = new Object[components.length];
      for (int i = 0; i < args.length; i++) {
        Class<?> t = components[i].getType();
        args[i] = t == String.class ? (r.nextInt(8) == 0 ? null : string())
            : t == long.class ? r.nextLong()
            : t == int.class ? r.nextInt()
            : t == double.class ? r.nextDouble()
            : t == boolean.class ? r.nextBoolean()
            : t == Double.class ? (r.nextBoolean() ? null : r.nextDouble())
            : t == Instant.class ? Instant.ofEpochSecond(r.nextInt(2_000_000_000), r.nextInt(1_000_000_000))
            : t == NodePosition.class ? (r.nextBoolean() ? NodePosition.top("n" + r.nextInt(9)) : nestedPosition())
            : t == Map.class ? map(4, 0)
            : null;
      }
      Constructor<?> c = type.getDeclaredConstructor(java.util.Arrays.stream(components)
          .map(RecordComponent::getType).toArray(Class<?>[]::new));
      return (Event) c.newInstance(args);
    }
  }
}
