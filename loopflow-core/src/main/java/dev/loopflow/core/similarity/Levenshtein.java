package dev.loopflow.core.similarity;

import java.util.Objects;

/**
 * Levenshtein distance (unit-cost insert, delete, substitute) over UTF-16 chars.
 *
 * <h2>Design notes</h2>
 *
 * <p>{@code stable_output} compares two pass outputs of up to 10,000 chars after every pass of a loop, so the
 * textbook table (10^8 cells) is far too slow. This class uses the bit-parallel algorithm of Myers (1999) in
 * Hyyrö's formulation (2001, 2003): the table is walked column by column along the longer string (the text), and
 * a column is held as two bit vectors of vertical deltas, {@code P} (+1) and {@code M} (-1), over the rows of the
 * shorter string (the pattern), so one column step costs about twenty word operations per 64 rows. A pattern of
 * up to 64 chars fits one {@code long} and is stepped here; a longer one is cut into 64-row blocks, stepped by
 * {@link BlockDistance} only inside a window of cells that can still matter (its notes say how the window is
 * kept exact).
 *
 * <p>Around that core: a common prefix and suffix never change the distance and are stripped first; match masks
 * ({@code Peq}) are built per call for the pattern's distinct chars only, numbered by {@link CharTable}, so
 * neither ASCII nor CJK text pays for a 65,536-entry table (a char absent from the pattern maps to index 0, whose
 * masks are zero).
 *
 * <p>What must stay true: the pattern is the shorter string; the top row is always fed a horizontal delta of +1
 * (row 0 holds {@code D[0][j] = j}); {@link #similarity(int, int)} is the only place the ratio is computed, so
 * that {@link Similarity#atLeast} and {@link Similarity#of} can never disagree.
 */
public final class Levenshtein {
  private Levenshtein() {}

  /** The exact Levenshtein distance between {@code a} and {@code b}, counted in UTF-16 chars. */
  public static int distance(CharSequence a, CharSequence b) {
    return compute(a, b, Integer.MAX_VALUE);
  }

  /**
   * The exact distance when it is at most {@code limit}, otherwise {@code limit + 1}. Only cells that could lie on
   * a path within the limit are computed, and the work stops once the limit can no longer be met, so this is much
   * cheaper than {@link #distance} for a small limit or dissimilar inputs.
   *
   * @throws IllegalArgumentException if {@code limit} is negative
   */
  public static int distanceAtMost(CharSequence a, CharSequence b, int limit) {
    if (limit < 0) {
      throw new IllegalArgumentException("limit must be >= 0, was " + limit);
    }
    return compute(a, b, limit);
  }

  /** {@code 1 - distance / max(length)}, and 1.0 when both are empty. */
  public static double similarity(CharSequence a, CharSequence b) {
    int longest = Math.max(a.length(), b.length());
    return longest == 0 ? 1.0 : similarity(distance(a, b), longest);
  }

  /** The one place the ratio is computed; see the design notes. */
  static double similarity(int distance, int longest) {
    return 1.0 - (double) distance / longest;
  }

  private static int compute(CharSequence a, CharSequence b, int limit) {
    Objects.requireNonNull(a, "a");
    Objects.requireNonNull(b, "b");
    CharSequence p = a.length() <= b.length() ? a : b;
    CharSequence t = p == a ? b : a;
    int pLen = p.length();
    int tLen = t.length();
    // the distance is at least the length difference
    if (tLen - pLen > limit) {
      return limit + 1;
    }
    int start = 0;
    while (start < pLen && p.charAt(start) == t.charAt(start)) {
      start++;
    }
    int pEnd = pLen;
    int tEnd = tLen;
    while (pEnd > start && p.charAt(pEnd - 1) == t.charAt(tEnd - 1)) {
      pEnd--;
      tEnd--;
    }
    int m = pEnd - start;
    int n = tEnd - start;
    if (m == 0) {
      return n; // n == tLen - pLen, already known to be within the limit
    }
    int d;
    if (m <= 64) {
      d = singleWord(p, start, m, t, start, n);
    } else {
      d = new BlockDistance(p, start, m, t, start, n).distance(limit);
    }
    return d > limit ? limit + 1 : d;
  }

  private static int singleWord(CharSequence p, int ps, int m, CharSequence t, int ts, int n) {
    CharTable table = new CharTable(p, ps, m);
    long[] peq = new long[table.size() + 1];
    for (int i = 0; i < m; i++) {
      peq[table.indexOf(p.charAt(ps + i))] |= 1L << i;
    }
    long pv = -1L;
    long mv = 0L;
    int score = m;
    int bottom = m - 1;
    for (int j = 0; j < n; j++) {
      long eq = peq[table.indexOf(t.charAt(ts + j))];
      long xv = eq | mv;
      long xh = (((eq & pv) + pv) ^ pv) | eq;
      long ph = mv | ~(xh | pv);
      long mh = pv & xh;
      score += (int) ((ph >>> bottom) & 1L) - (int) ((mh >>> bottom) & 1L);
      // row 0 is D[0][j] = j: the horizontal delta entering the top is always +1
      ph = (ph << 1) | 1L;
      mh <<= 1;
      pv = mh | ~(xv | ph);
      mv = ph & xv;
    }
    return score;
  }
}
