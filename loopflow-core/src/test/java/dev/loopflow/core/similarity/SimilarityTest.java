package dev.loopflow.core.similarity;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SimilarityTest {
  private static final String LETTERS = "abcdefghijklmnopqrstuvwxyz ";

  record Point(int y, int x) {}

  @Test
  void stringsAreComparedAsTheyAre() {
    assertThat(Similarity.text("{\"b\":1,\"a\":2}")).isEqualTo("{\"b\":1,\"a\":2}");
    assertThat(Similarity.text(null)).isEmpty();
    assertThat(Similarity.of("abcd", "abce")).isEqualTo(0.75);
    assertThat(Similarity.of(null, null)).isEqualTo(1.0);
    assertThat(Similarity.of("", null)).isEqualTo(1.0);
    assertThat(Similarity.of("abc", null)).isEqualTo(0.0);
  }

  @Test
  void otherValuesAreCompactJsonWithSortedKeys() {
    Map<String, Object> inner = new LinkedHashMap<>();
    inner.put("z", List.of(3, 1, 2));
    inner.put("m", null);
    Map<String, Object> outer = new LinkedHashMap<>();
    outer.put("b", 1);
    outer.put("a", inner);
    assertThat(Similarity.text(outer)).isEqualTo("{\"a\":{\"m\":null,\"z\":[3,1,2]},\"b\":1}");
    assertThat(Similarity.text(List.of(Map.of("y", 1, "x", 2)))).isEqualTo("[{\"x\":2,\"y\":1}]");
    assertThat(Similarity.text(new Point(1, 2))).isEqualTo("{\"x\":2,\"y\":1}");
    assertThat(Similarity.text(42)).isEqualTo("42");
    assertThat(Similarity.text(true)).isEqualTo("true");

    ObjectNode tree = new ObjectMapper().createObjectNode();
    tree.put("b", "two").putObject("a").put("d", 4).put("c", 3);
    assertThat(Similarity.text(tree)).isEqualTo("{\"a\":{\"c\":3,\"d\":4},\"b\":\"two\"}");
  }

  @Test
  void keyOrderDoesNotMatter() {
    Map<String, Object> ba = new LinkedHashMap<>();
    ba.put("b", 1);
    ba.put("a", 2);
    Map<String, Object> ab = new LinkedHashMap<>();
    ab.put("a", 2);
    ab.put("b", 1);
    assertThat(Similarity.of(ba, ab)).isEqualTo(1.0);
    assertThat(Similarity.atLeast(ba, ab, 1.0)).isTrue();
    assertThat(Similarity.of(Map.of("outer", ba), Map.of("outer", ab))).isEqualTo(1.0);
  }

  @Test
  void onlyTheFirstTenThousandCharsCount() {
    Random rnd = new Random(1);
    String head = LevenshteinTest.random(rnd, Similarity.MAX_CHARS, LETTERS);
    String x = head + LevenshteinTest.random(rnd, 5000, LETTERS);
    String y = head + LevenshteinTest.random(rnd, 7000, LETTERS);
    assertThat(Similarity.of(x, y)).isEqualTo(1.0);
    assertThat(Similarity.of(head, x)).isEqualTo(1.0);
    assertThat(Similarity.atLeast(x, y, 1.0)).isTrue();

    // one difference inside the window, among 10,000 compared chars
    String z = "#" + x.substring(1);
    assertThat(Similarity.of(x, z)).isEqualTo(1.0 - 1.0 / Similarity.MAX_CHARS);

    // JSON text is cut the same way
    List<Integer> numbers = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      numbers.add(i);
    }
    List<Integer> changedAtTheEnd = new ArrayList<>(numbers);
    changedAtTheEnd.set(4999, -1);
    assertThat(Similarity.text(numbers).length()).isGreaterThan(Similarity.MAX_CHARS);
    assertThat(Similarity.of(numbers, changedAtTheEnd)).isEqualTo(1.0);
  }

  @Test
  void atLeastAgreesWithOfOnRandomPairs() {
    Random rnd = new Random(95);
    for (int i = 0; i < 3000; i++) {
      String x = LevenshteinTest.random(rnd, rnd.nextInt(i % 50 == 0 ? 3000 : 300), i % 3 == 0 ? "ab" : LETTERS);
      String y = switch (rnd.nextInt(3)) {
        case 0 -> LevenshteinTest.random(rnd, rnd.nextInt(300), LETTERS);
        case 1 -> LevenshteinTest.edit(rnd, x, rnd.nextInt(5), LETTERS);
        default -> LevenshteinTest.edit(rnd, x, rnd.nextInt(40), LETTERS);
      };
      double of = Similarity.of(x, y);
      for (double t : new double[] {0.95, 0.9, 0.5, 0.0, 1.0, rnd.nextDouble(), of, Math.nextUp(of),
          Math.nextDown(of), -0.5, 1.5, Double.NaN}) {
        assertThat(Similarity.atLeast(x, y, t))
            .as("threshold %s, similarity %s, lengths %d and %d", t, of, x.length(), y.length())
            .isEqualTo(of >= t);
      }
    }
  }

  @Test
  void exceedsIsStrictlyAboveTheThreshold_bugStableOutputStoppedWhenTheSimilarityEqualedIt() {
    assertThat(Similarity.of("aaaa", "aabb")).isEqualTo(0.5);
    assertThat(Similarity.exceeds("aaaa", "aabb", 0.5)).isFalse();
    assertThat(Similarity.exceeds("aaaa", "aabb", Math.nextDown(0.5))).isTrue();
    assertThat(Similarity.exceeds("same", "same", 1.0)).isFalse();
    assertThat(Similarity.exceeds("", "", 0.999)).isTrue();
    Random rnd = new Random(77);
    for (int i = 0; i < 300; i++) {
      String x = LevenshteinTest.random(rnd, rnd.nextInt(60), LETTERS);
      String y = rnd.nextBoolean() ? LevenshteinTest.edit(rnd, x, rnd.nextInt(8), LETTERS)
          : LevenshteinTest.random(rnd, rnd.nextInt(60), LETTERS);
      double of = Similarity.of(x, y);
      for (double t : new double[] {0.95, 0.5, 0.0, 1.0, of, Math.nextUp(of), Math.nextDown(of), -0.5, 1.5,
          Double.NaN}) {
        assertThat(Similarity.exceeds(x, y, t)).as("threshold %s, similarity %s", t, of).isEqualTo(of > t);
      }
    }
  }

  @Test
  void atLeastAgreesWithOfAtTheDefaultThresholdOnLongNearDuplicates() {
    Random rnd = new Random(9500);
    for (int i = 0; i < 40; i++) {
      String x = LevenshteinTest.random(rnd, 9000 + rnd.nextInt(2000), LETTERS);
      String y = LevenshteinTest.edit(rnd, x, rnd.nextInt(1000), LETTERS);
      double of = Similarity.of(x, y);
      assertThat(Similarity.atLeast(x, y, 0.95)).as("similarity %s", of).isEqualTo(of >= 0.95);
      assertThat(Similarity.atLeast(x, y, of)).isTrue();
      assertThat(Similarity.atLeast(x, y, Math.nextUp(of))).isFalse();
    }
  }

  @Test
  void allowedDistanceIsTheExactBoundary() {
    Random rnd = new Random(3);
    for (int i = 0; i < 20000; i++) {
      int longest = 1 + rnd.nextInt(i % 10 == 0 ? 10_000 : 200);
      double t = switch (i % 4) {
        case 0 -> rnd.nextDouble();
        case 1 -> 1.0 - (double) rnd.nextInt(longest + 1) / longest; // lands on an achievable similarity
        case 2 -> Math.nextUp(1.0 - (double) rnd.nextInt(longest + 1) / longest);
        default -> 0.95;
      };
      int allowed = Similarity.allowedDistance(longest, t);
      int brute = -1;
      for (int d = 0; d <= longest; d++) {
        if (1.0 - (double) d / longest >= t) {
          brute = d;
        }
      }
      assertThat(allowed).as("longest %d, threshold %s", longest, t).isEqualTo(brute);
    }
  }
}
