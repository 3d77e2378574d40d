package dev.loopflow.core.similarity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.commons.text.similarity.LevenshteinDistance;
import org.junit.jupiter.api.Test;

/**
 * Checks the bit-parallel distance against the textbook dynamic program of Commons Text on many generated pairs.
 * The generators aim at the places a bit-parallel implementation breaks: block boundaries (63/64/65, 127/128/129),
 * long runs of matches (tiny alphabets), chars outside Latin-1 (hashed match table) and many distinct chars (sparse
 * match table), near-duplicates (a narrow window succeeds), pairs whose differences sit at the end (a narrow window
 * fails late), alignments far from the main diagonal (the window must follow them), and limits on both sides of
 * the true distance (early stop).
 */
class LevenshteinTest {
  private static final LevenshteinDistance REFERENCE = LevenshteinDistance.getDefaultInstance();

  private static final String[] ALPHABETS = {
    "ab",
    "abc",
    "acgt",
    "abcdefghijklmnopqrstuvwxyz ",
    printableAscii(),
    "aé ü\u00ff\u0100\u03b1\u03b2\u4e00\u4e01\uac00\u0416",
    // surrogate pairs (emoji, CJK extension B) mixed with a few BMP chars
    "\ud83d\ude00\ud83d\ude01\ud840\udc00\ud840\udc01x\u00e9",
  };

  @Test
  void knownValues() {
    assertThat(Levenshtein.distance("kitten", "sitting")).isEqualTo(3);
    assertThat(Levenshtein.distance("flaw", "lawn")).isEqualTo(2);
    assertThat(Levenshtein.distance("", "")).isZero();
    assertThat(Levenshtein.distance("", "abc")).isEqualTo(3);
    assertThat(Levenshtein.distance("abc", "")).isEqualTo(3);
    assertThat(Levenshtein.distance("same", "same")).isZero();
    // one supplementary char is two UTF-16 chars
    assertThat(Levenshtein.distance("\ud83d\ude00", "")).isEqualTo(2);
    assertThat(Levenshtein.distance("\ud83d\ude00", "\ud83d\ude01")).isEqualTo(1);
  }

  @Test
  void emptyStrings() {
    Random rnd = new Random(11);
    for (int len : new int[] {0, 1, 63, 64, 65, 128, 129, 1000}) {
      String s = random(rnd, len, ALPHABETS[3]);
      assertThat(Levenshtein.distance("", s)).isEqualTo(len);
      assertThat(Levenshtein.distance(s, "")).isEqualTo(len);
      assertThat(Levenshtein.distanceAtMost(s, "", len)).isEqualTo(len);
      if (len > 0) {
        assertThat(Levenshtein.distanceAtMost(s, "", len - 1)).isEqualTo(len);
      }
      assertThat(Levenshtein.similarity(s, "")).isEqualTo(len == 0 ? 1.0 : 0.0);
    }
  }

  @Test
  void blockBoundaryLengths() {
    int[] lengths = {1, 2, 62, 63, 64, 65, 66, 127, 128, 129, 191, 192, 193, 255, 256, 257};
    Random rnd = new Random(64);
    for (String alphabet : ALPHABETS) {
      for (int a : lengths) {
        for (int b : lengths) {
          String x = random(rnd, a, alphabet);
          checkPair(x, random(rnd, b, alphabet), rnd);
          // same length class, few differences: exercises the bottom row of a full or partial last block
          if (a == b) {
            checkPair(x, edit(rnd, x, 1 + rnd.nextInt(3), alphabet), rnd);
          }
        }
      }
    }
  }

  @Test
  void boundaryLengthsWithDifferencesAtBothEnds() {
    // differences at the first and last char defeat prefix/suffix stripping, so the full length is computed
    Random rnd = new Random(65);
    for (int len : new int[] {63, 64, 65, 127, 128, 129}) {
      for (String alphabet : ALPHABETS) {
        String x = random(rnd, len, alphabet);
        char[] c = x.toCharArray();
        c[0] = c[0] == 'z' ? 'y' : 'z';
        c[len - 1] = c[len - 1] == 'z' ? 'y' : 'z';
        checkPair(x, new String(c), rnd);
        checkPair(x, "z" + x.substring(1, len - 1) + "zz", rnd);
      }
    }
  }

  @Test
  void randomShortPairs() {
    Random rnd = new Random(2024);
    for (int i = 0; i < 4000; i++) {
      String alphabet = ALPHABETS[rnd.nextInt(ALPHABETS.length)];
      String x = random(rnd, rnd.nextInt(301), alphabet);
      String y = switch (rnd.nextInt(3)) {
        case 0 -> random(rnd, rnd.nextInt(301), alphabet);
        case 1 -> edit(rnd, x, rnd.nextInt(8), alphabet);
        default -> edit(rnd, x, rnd.nextInt(60), alphabet);
      };
      checkPair(x, y, rnd);
    }
  }

  @Test
  void randomLongPairs() {
    // from 2048 chars on, narrow windows are tried before the whole table
    Random rnd = new Random(3000);
    for (int i = 0; i < 32; i++) {
      String alphabet = ALPHABETS[rnd.nextInt(ALPHABETS.length)];
      int len = 1000 + rnd.nextInt(2001);
      String x = random(rnd, len, alphabet);
      String y = switch (i % 4) {
        case 0 -> random(rnd, 1000 + rnd.nextInt(2001), alphabet);
        case 1 -> edit(rnd, x, 1 + rnd.nextInt(40), alphabet);
        case 2 -> edit(rnd, x, 100 + rnd.nextInt(400), alphabet);
        // alike for most of the way, different at the end: a narrow window only fails near the last column
        default -> edit(rnd, x.substring(0, len - len / 8), 5, alphabet) + random(rnd, len / 8, alphabet);
      };
      checkPair(x, y, rnd);
    }
  }

  @Test
  void pathsFarFromTheDiagonal() {
    // the best alignment runs along a diagonal far from the main one for part of the way, so the window of
    // computed blocks has to follow it up and down
    Random rnd = new Random(808);
    for (int i = 0; i < 24; i++) {
      String alphabet = ALPHABETS[i % 4];
      int len = 1200 + rnd.nextInt(1000);
      String x = random(rnd, len, alphabet);
      int at = rnd.nextInt(len);
      String y = switch (i % 6) {
        case 0 -> x.substring(at) + x.substring(0, at); // rotation
        case 1 -> random(rnd, 1 + rnd.nextInt(900), alphabet) + edit(rnd, x, 5, alphabet);
        case 2 -> edit(rnd, x, 5, alphabet) + random(rnd, 1 + rnd.nextInt(900), alphabet);
        case 3 -> x.substring(0, at) + x.substring(Math.min(len, at + 1 + rnd.nextInt(900)));
        case 4 -> edit(rnd, x.substring(0, at) + random(rnd, 1 + rnd.nextInt(600), alphabet) + x.substring(at), 10,
            alphabet);
        default -> x.substring(len / 3) + random(rnd, len / 3, alphabet) + x.substring(0, len / 3);
      };
      checkPair(x, y, rnd);
    }
  }

  @Test
  void manyDistinctChars() {
    // thousands of distinct chars make the dense match table too large, so the sparse form is used
    Random rnd = new Random(5000);
    for (int i = 0; i < 10; i++) {
      int len = 2000 + rnd.nextInt(1001);
      String x = randomWide(rnd, len, 5000);
      String y = i % 2 == 0 ? randomWide(rnd, 2000 + rnd.nextInt(1001), 5000) : editWide(rnd, x, 1 + rnd.nextInt(200));
      checkPair(x, y, rnd);
    }
    for (int i = 0; i < 200; i++) {
      String x = randomWide(rnd, rnd.nextInt(400), 60000);
      String y = i % 2 == 0 ? randomWide(rnd, rnd.nextInt(400), 60000) : editWide(rnd, x, rnd.nextInt(20));
      checkPair(x, y, rnd);
    }
  }

  @Test
  void lengthGapsLargerThanTheLimit() {
    Random rnd = new Random(7);
    String x = random(rnd, 500, "abc");
    String y = x + random(rnd, 300, "abc");
    assertThat(Levenshtein.distance(x, y)).isEqualTo(300);
    assertThat(Levenshtein.distanceAtMost(x, y, 299)).isEqualTo(300);
    assertThat(Levenshtein.distanceAtMost(x, y, 300)).isEqualTo(300);
    assertThat(Levenshtein.distanceAtMost(x, y, 0)).isEqualTo(1);
    assertThat(Levenshtein.distanceAtMost(x, x, 0)).isZero();
  }

  @Test
  void negativeLimitIsRejected() {
    assertThatThrownBy(() -> Levenshtein.distanceAtMost("a", "b", -1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void similarityIsOneMinusDistanceOverLongerLength() {
    assertThat(Levenshtein.similarity("", "")).isEqualTo(1.0);
    assertThat(Levenshtein.similarity("abcd", "abcd")).isEqualTo(1.0);
    assertThat(Levenshtein.similarity("abcd", "abce")).isEqualTo(0.75);
    assertThat(Levenshtein.similarity("ab", "abcd")).isEqualTo(0.5);
    assertThat(Levenshtein.similarity("abc", "xyz")).isEqualTo(0.0);
  }

  @Test
  void acceptsAnyCharSequence() {
    assertThat(Levenshtein.distance(new StringBuilder("kitten"), "sitting")).isEqualTo(3);
  }

  /** Distance (both argument orders) and bounded distance at several limits against the reference. */
  private static void checkPair(String x, String y, Random rnd) {
    int expected = REFERENCE.apply(x, y);
    assertThat(Levenshtein.distance(x, y)).as(describe(x, y)).isEqualTo(expected);
    assertThat(Levenshtein.distance(y, x)).as(describe(y, x)).isEqualTo(expected);
    List<Integer> limits = new ArrayList<>(List.of(0, expected, expected + 1, rnd.nextInt(expected + 64)));
    if (expected > 0) {
      limits.add(expected - 1);
      limits.add(rnd.nextInt(expected));
    }
    for (int limit : limits) {
      int want = expected <= limit ? expected : limit + 1;
      assertThat(Levenshtein.distanceAtMost(x, y, limit)).as("limit %d, %s", limit, describe(x, y)).isEqualTo(want);
    }
  }

  private static String describe(String x, String y) {
    return x.length() <= 80 && y.length() <= 80 ? "'" + x + "' vs '" + y + "'"
        : "lengths " + x.length() + " and " + y.length();
  }

  static String random(Random rnd, int len, String alphabet) {
    StringBuilder sb = new StringBuilder(len);
    while (sb.length() < len) {
      int i = rnd.nextInt(alphabet.length());
      if (Character.isHighSurrogate(alphabet.charAt(i)) && i + 1 < alphabet.length() && sb.length() + 2 <= len) {
        sb.append(alphabet, i, i + 2);
      } else {
        sb.append(alphabet.charAt(i));
      }
    }
    return sb.toString();
  }

  /** A few random insertions, deletions and substitutions (may split a surrogate pair: these are UTF-16 chars). */
  static String edit(Random rnd, String s, int edits, String alphabet) {
    StringBuilder sb = new StringBuilder(s);
    for (int e = 0; e < edits; e++) {
      char c = alphabet.charAt(rnd.nextInt(alphabet.length()));
      int op = sb.length() == 0 ? 0 : rnd.nextInt(3);
      if (op == 0) {
        sb.insert(rnd.nextInt(sb.length() + 1), c);
      } else if (op == 1) {
        sb.deleteCharAt(rnd.nextInt(sb.length()));
      } else {
        sb.setCharAt(rnd.nextInt(sb.length()), c);
      }
    }
    return sb.toString();
  }

  private static String randomWide(Random rnd, int len, int range) {
    StringBuilder sb = new StringBuilder(len);
    for (int i = 0; i < len; i++) {
      sb.append((char) (0x3400 + rnd.nextInt(range)));
    }
    return sb.toString();
  }

  private static String editWide(Random rnd, String s, int edits) {
    return edit(rnd, s, edits, randomWide(rnd, 64, 5000));
  }

  private static String printableAscii() {
    StringBuilder sb = new StringBuilder();
    for (char c = 32; c < 127; c++) {
      sb.append(c);
    }
    return sb.toString();
  }
}
