package dev.loopflow.core.expr;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The direct writer behind {@link Json#compact} writes exactly the mapper's text, and leaves the rest to it. */
class PlainJsonTest {
  /** Characters a hostile or unusual value may hold: every control character, quotes, non-ASCII, surrogates. */
  private static final String ALPHABET;

  static {
    StringBuilder sb = new StringBuilder();
    for (char c = 0; c < 0x80; c++) {
      sb.append(c);
    }
    sb.append("\u0080\u00a0\u00e9\u00ff\u0100\u2028\u2029\u200b\ufeff\ufffd\uffff\ud83d\ude00\ud800\udc00\udfff");
    ALPHABET = sb.toString();
  }

  static Stream<Integer> seeds() {
    return IntStream.range(0, 400).boxed();
  }

  @ParameterizedTest
  @MethodSource("seeds")
  void generatedPlainValuesAreWrittenExactlyAsTheMapperWritesThem(int seed) {
    Random random = new Random(seed);
    Object value = value(random, 0);
    assertThat(PlainJson.text(value)).as("seed %d writes directly", seed).isNotNull();
    assertThat(Json.compact(value)).isEqualTo(Json.jackson(value));
  }

  @Test
  void everyCharacterOfTheAlphabetIsEscapedAsTheMapperEscapesIt() {
    for (int i = 0; i < ALPHABET.length(); i++) {
      String s = "a" + ALPHABET.charAt(i) + "b";
      assertThat(Json.compact(s)).as("char %04x", (int) ALPHABET.charAt(i)).isEqualTo(Json.jackson(s));
      assertThat(Json.compact(Map.of(s, s))).isEqualTo(Json.jackson(Map.of(s, s)));
    }
  }

  @Test
  void numbersAtTheirEdgesAreWrittenAsTheMapperWritesThem() {
    List<Object> numbers = List.of(0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE,
        0.0, -0.0, 1.0, 0.1, 1e-7, 1e-3, 1e7, 1e21, 1e22, 123456789.125, Double.MIN_VALUE, Double.MAX_VALUE,
        -Double.MIN_NORMAL, 2.5e-300, 1.0 / 3);
    for (Object n : numbers) {
      assertThat(Json.compact(n)).as("%s", n).isEqualTo(Json.jackson(n));
      assertThat(Json.compact(List.of(n))).isEqualTo(Json.jackson(List.of(n)));
    }
  }

  static Stream<Arguments> notPlain() {
    Map<Object, Object> intKey = new LinkedHashMap<>();
    intKey.put(1, "one");
    Map<String, Object> nullKey = new HashMap<>();
    nullKey.put(null, "x");
    Object deep = "leaf";
    for (int i = 0; i < PlainJson.MAX_DEPTH + 5; i++) {
      deep = List.of(deep);
    }
    return Stream.of(Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1.5f, (short) 3, (byte) 4,
        new BigDecimal("1.10"), new BigInteger("123456789012345678901234567890"), 'c', new StringBuilder("sb"),
        Instant.parse("2026-11-24T10:00:00Z"), new int[] {1, 2}, new Object[] {"a"}, intKey, nullKey,
        Map.of("n", Double.NaN), List.of(1, List.of(2.5f)), deep)
        .map(v -> Arguments.of(v)); // one argument each: JUnit would spread an Object[] into several
  }

  @ParameterizedTest
  @MethodSource("notPlain")
  void valuesTheDirectWriterDoesNotKnowGoToTheMapper(Object value) {
    assertThat(PlainJson.text(value)).isNull();
    assertThat(Json.compact(value)).isEqualTo(Json.jackson(value));
  }

  @Test
  void mapsKeepTheirOwnIterationOrder() {
    Map<String, Object> linked = new LinkedHashMap<>();
    for (String k : List.of("zeta", "alpha", "mid", "", "Alpha")) {
      linked.put(k, k.length());
    }
    assertThat(Json.compact(linked)).isEqualTo(Json.jackson(linked)).startsWith("{\"zeta\"");
    Map<String, Object> sorted = new TreeMap<>(linked);
    assertThat(Json.compact(sorted)).isEqualTo(Json.jackson(sorted));
    assertThat(Json.compact(Collections.unmodifiableMap(linked))).isEqualTo(Json.jackson(linked));
    java.util.Set<Object> set = new LinkedHashSet<>(List.of("b", "a", 3));
    assertThat(PlainJson.text(set)).isEqualTo(Json.jackson(set)).isEqualTo("[\"b\",\"a\",3]");
  }

  @Test
  void theJournalsHooksRewriteStringValuesButNotKeysAndWriteTheirOwnTypes() {
    StringBuilder sb = new StringBuilder();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("k", "v");
    m.put("frame", new StringBuilder("custom"));
    assertThat(Json.appendPlain(sb, m, s -> s.toUpperCase(), (out, v) -> {
      out.append("\"<").append(v).append(">\"");
      return true;
    })).isTrue();
    assertThat(sb.toString()).isEqualTo("{\"k\":\"V\",\"frame\":\"<custom>\"}");
    assertThat(Json.appendPlain(new StringBuilder(), m, null, null)).isFalse();
  }

  private static Object value(Random r, int depth) {
    int kind = r.nextInt(depth > 5 ? 7 : 9);
    return switch (kind) {
      case 0 -> null;
      case 1 -> text(r);
      case 2 -> r.nextInt();
      case 3 -> r.nextLong();
      case 4 -> r.nextBoolean();
      case 5 -> r.nextInt(3) == 0 ? (double) r.nextInt(1000) : Double.longBitsToDouble(r.nextLong()) % 1e30;
      case 6 -> r.nextInt(100) - 50;
      case 7 -> {
        Map<String, Object> m = r.nextBoolean() ? new LinkedHashMap<>() : new HashMap<>();
        for (int i = r.nextInt(5); i > 0; i--) {
          m.put(text(r), value(r, depth + 1));
        }
        yield r.nextBoolean() ? m : Collections.unmodifiableMap(m);
      }
      default -> {
        List<Object> l = new ArrayList<>();
        for (int i = r.nextInt(5); i > 0; i--) {
          l.add(value(r, depth + 1));
        }
        yield r.nextBoolean() ? l : r.nextBoolean() ? List.copyOf(Arrays.asList(l.stream()
            .map(x -> x == null ? "" : x).toArray())) : Collections.unmodifiableList(l);
      }
    };
  }

  private static String text(Random r) {
    StringBuilder sb = new StringBuilder();
    for (int i = r.nextInt(12); i > 0; i--) {
      sb.append(ALPHABET.charAt(r.nextInt(ALPHABET.length())));
    }
    return sb.toString();
  }
}
