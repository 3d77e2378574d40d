package dev.loopflow.core.error;

import java.util.Collection;
import java.util.Locale;

/** "Did you mean" suggestions by edit distance. */
public final class Names {
  private Names() {}

  /**
   * The closest candidate within a distance that scales with the word, or null. Equally close candidates are
   * decided alphabetically, never by the collection's order: a set's order can change from one start to the next,
   * and the same mistake must get the same suggestion every time.
   */
  public static String closest(String word, Collection<String> candidates) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    int limit = Math.max(1, Math.min(3, word.length() / 3 + 1));
    String w = word.toLowerCase(Locale.ROOT);
    for (String c : candidates) {
      String lc = c.toLowerCase(Locale.ROOT);
      // The distance is at least the difference in length: such a candidate cannot be within the limit.
      if (Math.abs(lc.length() - w.length()) > limit) {
        continue;
      }
      int d = distance(w, lc);
      if (d <= limit && (d < bestDistance || d == bestDistance && c.compareTo(best) < 0)) {
        best = c;
        bestDistance = d;
      }
    }
    return best;
  }

  /** " (did you mean 'x'?)" or "". */
  public static String suggest(String word, Collection<String> candidates) {
    String c = closest(word, candidates);
    return c == null ? "" : " (did you mean '" + c + "'?)";
  }

  /** Edit distance with adjacent transpositions (optimal string alignment): "retyr" is one edit from "retry". */
  static int distance(String a, String b) {
    int[] prev2 = new int[b.length() + 1];
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
        if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
          cur[j] = Math.min(cur[j], prev2[j - 2] + 1);
        }
      }
      int[] t = prev2;
      prev2 = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
