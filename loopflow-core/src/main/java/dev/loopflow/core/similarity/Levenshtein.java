package dev.loopflow.core.similarity;

import java.util.Arrays;
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
 * up to 64 chars fits one {@code long}; a longer one is cut into 64-row blocks stepped top to bottom, each handing
 * its horizontal delta at its bottom row (+1, 0 or -1) to the block below as a carry. Two text columns are
 * stepped together, block by block: a block's vectors are loaded and stored once per pair, and the two carry
 * chains are independent, so the processor overlaps them.
 *
 * <p>Around that core:
 *
 * <ul>
 *   <li>A common prefix and suffix never change the distance and are stripped first.
 *   <li>Match masks ({@code Peq}) are built per call for the pattern's distinct chars only: Latin-1 chars index a
 *       256-entry table directly, other chars go through a small open-addressing hash, so neither ASCII nor CJK
 *       text pays for a 65,536-entry table. A char absent from the pattern maps to index 0, whose masks are zero.
 *       When distinct chars times blocks would make a large dense table (long texts in scripts with many distinct
 *       chars), each char keeps only its non-zero blocks, scattered into a scratch column for the step.
 *   <li>Only a window of blocks is stepped (Ukkonen's cut-off, per block). With a bound {@code k} and
 *       {@code d = n - m >= 0}, call cell {@code (i, j)} (pattern row {@code i}, text column {@code j})
 *       <em>promising</em> when its value plus {@code |d - (j - i)|}, the least cost of the length difference
 *       left, is at most {@code k}. Every cell of a path of cost at most {@code k} is promising, and the window
 *       always holds every promising cell: a block joins below while the bottom cell of the last block is within
 *       {@code k + 2w} ({@code w} = columns about to be stepped; a path reaches a lower row only through that row,
 *       and over {@code w} columns the tracked values can be off by at most {@code 2w}); rows above the diagonal
 *       band {@code i >= j - (k + d) / 2} are dropped; and every 64 columns, block-bottom values are recovered
 *       from the tracked one by popcounts, and a block at either end whose cells cannot be promising (bottom
 *       value minus block height, plus the least distance term) is dropped.
 *   <li>A joining block starts with all vertical deltas +1 and the top block is always fed a horizontal delta of
 *       +1. Both over-estimate, so every computed value is an upper bound of the true one, while every promising
 *       cell, computed from promising predecessors, is exact. So the corner is exact when the distance is at most
 *       {@code k} and greater than {@code k} otherwise, and once the window holds no possibly promising cell the
 *       distance is known to exceed {@code k}: dissimilar inputs are rejected after a few hundred columns.
 *   <li>Every 64 columns {@code k} is also lowered to the best upper bound in sight (a block's bottom value plus
 *       the longer remaining length), which shrinks the window further. A run with {@code k = n} therefore
 *       computes the exact distance of two random 10,000-char texts on well under two thirds of the table.
 *   <li>{@link #distance} first tries narrow bounds ({@code k = d + 256}, then four times larger) while the bound
 *       is at most an eighth of the pattern, then runs with {@code k = n}. Near duplicates finish inside the
 *       first narrow window; dissimilar inputs pay a few percent for the failed tries.
 * </ul>
 *
 * <p>What must stay true: the pattern is the shorter string; the window never loses a promising cell (each rule
 * above that drops or withholds a block must prove its cells are not promising); the first stepped block is
 * always fed a horizontal delta of +1 (row 0 holds {@code D[0][j] = j}, and above the window +1 is the safe
 * over-estimate); {@code k} is only ever lowered to a proven upper bound of the distance; the tracked score is
 * the value at the bottom row of the last stepped block, and the final block's bottom is row {@code m}, not bit
 * 63 (bits past the pattern hold garbage that only moves upward, never into valid rows);
 * {@link #similarity(int, int)} is the only place the ratio is computed, so that {@link Similarity#atLeast} and
 * {@link Similarity#of} can never disagree.
 */
public final class Levenshtein {
  /** Larger dense match tables (in longs) cost more to clear than the sparse scatter costs per column. */
  private static final int DENSE_TABLE_LIMIT = 1 << 15;

  /** The first bound tried by {@link #distance} (plus the length difference): a handful of blocks wide. */
  private static final int FIRST_GUESS = 256;

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
      d = new Blocks(p, start, m, t, start, n).distance(limit);
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

  /** The multi-block state for one call: pattern of more than 64 chars, match masks, and the column. */
  private static final class Blocks {
    private final CharSequence t;
    private final int ts;
    private final int m;
    private final int n;
    private final int blocks;
    private final CharTable table;
    /** Dense masks, {@code [index * blocks + block]}; null when the sparse form is used. */
    private final long[] dense;
    /** Sparse masks: entries {@code start[index] .. start[index + 1]} of {@code blockOf} and {@code mask}. */
    private final int[] start;
    private final int[] blockOf;
    private final long[] mask;
    private final long[] scratch;
    private final long[] scratch2;
    private final long[] pv;
    private final long[] mv;
    private final int[] bottoms;

    Blocks(CharSequence p, int ps, int m, CharSequence t, int ts, int n) {
      this.t = t;
      this.ts = ts;
      this.m = m;
      this.n = n;
      this.blocks = (m + 63) >>> 6;
      this.table = new CharTable(p, ps, m);
      this.pv = new long[blocks];
      this.mv = new long[blocks];
      this.bottoms = new int[blocks];
      int rows = table.size() + 1;
      if ((long) rows * blocks <= DENSE_TABLE_LIMIT) {
        dense = new long[rows * blocks];
        for (int i = 0; i < m; i++) {
          dense[table.indexOf(p.charAt(ps + i)) * blocks + (i >>> 6)] |= 1L << i;
        }
        start = null;
        blockOf = null;
        mask = null;
        scratch = null;
        scratch2 = null;
      } else {
        dense = null;
        int[] index = new int[m];
        int[] lastBlock = new int[rows];
        int[] count = new int[rows + 1];
        Arrays.fill(lastBlock, -1);
        int entries = 0;
        for (int i = 0; i < m; i++) {
          int x = table.indexOf(p.charAt(ps + i));
          index[i] = x;
          if (lastBlock[x] != i >>> 6) {
            lastBlock[x] = i >>> 6;
            count[x + 1]++;
            entries++;
          }
        }
        start = new int[rows + 1];
        for (int x = 0; x < rows; x++) {
          start[x + 1] = start[x] + count[x + 1];
        }
        blockOf = new int[entries];
        mask = new long[entries];
        int[] fill = Arrays.copyOf(start, rows);
        Arrays.fill(lastBlock, -1);
        for (int i = 0; i < m; i++) {
          int x = index[i];
          if (lastBlock[x] != i >>> 6) {
            lastBlock[x] = i >>> 6;
            blockOf[fill[x]++] = i >>> 6;
          }
          mask[fill[x] - 1] |= 1L << i;
        }
        scratch = new long[blocks];
        scratch2 = new long[blocks];
      }
    }

    int distance(int limit) {
      int lengthGap = n - m;
      long k = (long) lengthGap + FIRST_GUESS;
      // a narrow window costs little next to the whole table, and one that is too narrow is soon abandoned
      while (k < limit && k < n && k * 8 <= m) {
        int d = window((int) k);
        if (d <= k) {
          return d;
        }
        k *= 4;
      }
      return window(Math.min(limit, n));
    }

    /** The distance if it is at most {@code k}, otherwise some value greater than {@code k}. */
    private int window(int k) {
      final long[] pv = this.pv;
      final long[] mv = this.mv;
      final int blocks = this.blocks;
      final int lastIndex = blocks - 1;
      final int finalBottom = (m - 1) & 63;
      final long gap = n - m;
      int first = 0;
      int last = -1;
      int score = 0; // value at the bottom row of block `last`; row 0 before any block
      // columns go in pairs (the design notes say why); an odd last column goes alone
      for (int j = 1; j <= n; ) {
        final boolean two = j < n;
        final int jEnd = two ? j + 1 : j;
        // grow the window before stepping (see the design notes for why k + 2w is enough)
        final long slack = (long) k + 2 * (jEnd - j + 1);
        while (last < lastIndex
            && (last < 0 || score + Math.abs(gap - (j - 1) + bottomRow(last)) <= slack)) {
          last++;
          pv[last] = -1L;
          mv[last] = 0L;
          score += last == lastIndex ? m - (last << 6) : 64;
        }
        long lo = j - ((long) k + gap) / 2;
        if (lo > 1) {
          int bandFirst = (int) ((lo - 1) >>> 6);
          if (bandFirst > last) {
            return k + 1; // no stepped row is in the band, so no path within k passes this column
          }
          first = Math.max(first, bandFirst);
        }
        final int x1 = table.indexOf(t.charAt(ts + j - 1));
        final int x2 = two ? table.indexOf(t.charAt(ts + j)) : 0;
        final long[] eqs1;
        final long[] eqs2;
        final int base1;
        final int base2;
        if (dense != null) {
          eqs1 = dense;
          eqs2 = dense;
          base1 = x1 * blocks;
          base2 = x2 * blocks;
        } else {
          eqs1 = scratch;
          eqs2 = scratch2;
          base1 = 0;
          base2 = 0;
          scatter(scratch, x1, true);
          scatter(scratch2, x2, true);
        }
        // the score follows the bottom row of the last block, which is row m (not bit 63) in the final block
        final int bottom = last == lastIndex ? finalBottom : 63;
        if (two) {
          int carries = stepPair(pv, mv, eqs1, base1, eqs2, base2, first, last);
          long hp1 = carries & 1;
          long hm1 = (carries >>> 1) & 1;
          long hp2 = (carries >>> 2) & 1;
          long hm2 = (carries >>> 3) & 1;
          long p = pv[last];
          long q = mv[last];
          long eq = eqs1[base1 + last];
          long xv = eq | q;
          eq |= hm1;
          long xh = (((eq & p) + p) ^ p) | eq;
          long ph = q | ~(xh | p);
          long mh = p & xh;
          score += (int) ((ph >>> bottom) & 1L) - (int) ((mh >>> bottom) & 1L);
          ph = (ph << 1) | hp1;
          mh = (mh << 1) | hm1;
          p = mh | ~(xv | ph);
          q = ph & xv;
          eq = eqs2[base2 + last];
          xv = eq | q;
          eq |= hm2;
          xh = (((eq & p) + p) ^ p) | eq;
          ph = q | ~(xh | p);
          mh = p & xh;
          score += (int) ((ph >>> bottom) & 1L) - (int) ((mh >>> bottom) & 1L);
          ph = (ph << 1) | hp2;
          mh = (mh << 1) | hm2;
          pv[last] = mh | ~(xv | ph);
          mv[last] = ph & xv;
        } else {
          long hp = 1L; // horizontal delta entering the block: +1 as hp = 1, -1 as hm = 1, 0 as neither
          long hm = 0L;
          for (int b = first; b <= last; b++) {
            long p = pv[b];
            long q = mv[b];
            long eq = eqs1[base1 + b];
            long xv = eq | q;
            eq |= hm;
            long xh = (((eq & p) + p) ^ p) | eq;
            long ph = q | ~(xh | p);
            long mh = p & xh;
            int out = b == last ? bottom : 63;
            long outP = (ph >>> out) & 1L;
            long outM = (mh >>> out) & 1L;
            ph = (ph << 1) | hp;
            mh = (mh << 1) | hm;
            hp = outP;
            hm = outM;
            pv[b] = mh | ~(xv | ph);
            mv[b] = ph & xv;
          }
          score += (int) hp - (int) hm;
        }
        if (dense == null) {
          scatter(scratch, x1, false);
          scatter(scratch2, x2, false);
        }
        // every 64 columns, which costs about as much as one column: lower k and shrink the window
        if ((jEnd >>> 6) != ((j - 1) >>> 6)) {
          long s = score;
          long bound = k;
          for (int b = last; b >= first; b--) {
            bottoms[b] = (int) s;
            bound = Math.min(bound, s + Math.max(m - bottomRow(b), n - jEnd));
            long valid = b == lastIndex ? -1L >>> (63 - finalBottom) : -1L;
            s -= Long.bitCount(pv[b] & valid) - Long.bitCount(mv[b] & valid);
          }
          k = (int) bound;
          while (first < last && least(first, jEnd) > k) {
            first++;
          }
          while (last > first && least(last, jEnd) > k) {
            last--;
            score = bottoms[last];
          }
          if (least(first, jEnd) > k) {
            return k + 1; // not one possibly promising cell left in this column
          }
        }
        j = jEnd + 1;
      }
      return last == lastIndex ? score : k + 1; // the corner never joined: it is not promising
    }

    /**
     * Steps blocks {@code first .. last - 1} through two columns. Kept apart so that the hottest loop compiles on
     * its own, whatever the rest of the call has seen. Returns the carries out of the lowest block: bit 0 = +1
     * and bit 1 = -1 of the first column, bits 2 and 3 of the second.
     */
    private static int stepPair(long[] pv, long[] mv, long[] eqs1, int base1, long[] eqs2, int base2, int first,
        int last) {
      long hp1 = 1L;
      long hm1 = 0L;
      long hp2 = 1L;
      long hm2 = 0L;
      for (int b = first; b < last; b++) {
        long p = pv[b];
        long q = mv[b];
        long eq = eqs1[base1 + b];
        long xv = eq | q;
        eq |= hm1;
        long xh = (((eq & p) + p) ^ p) | eq;
        long ph = q | ~(xh | p);
        long mh = p & xh;
        long outP = ph >>> 63;
        long outM = mh >>> 63;
        ph = (ph << 1) | hp1;
        mh = (mh << 1) | hm1;
        hp1 = outP;
        hm1 = outM;
        p = mh | ~(xv | ph);
        q = ph & xv;
        eq = eqs2[base2 + b];
        xv = eq | q;
        eq |= hm2;
        xh = (((eq & p) + p) ^ p) | eq;
        ph = q | ~(xh | p);
        mh = p & xh;
        outP = ph >>> 63;
        outM = mh >>> 63;
        ph = (ph << 1) | hp2;
        mh = (mh << 1) | hm2;
        hp2 = outP;
        hm2 = outM;
        pv[b] = mh | ~(xv | ph);
        mv[b] = ph & xv;
      }
      return (int) (hp1 | hm1 << 1 | hp2 << 2 | hm2 << 3);
    }

    private int bottomRow(int b) {
      return b == blocks - 1 ? m : (b + 1) << 6;
    }

    /**
     * A lower bound, over the rows {@code i} of block {@code b} at column {@code j}, of value + |d - (j - i)|. A
     * value is at least the bottom value minus the rows below it, so the bound is the minimum of
     * {@code bottom - bot + i + |d - j + i|} over the block, reached at its top row or where the second term is 0.
     * Needs {@code bottoms[b]} for column {@code j}.
     */
    private long least(int b, int j) {
      long top = ((long) b << 6) + 1;
      long gap = n - m;
      return (long) bottoms[b] - bottomRow(b) + Math.max(j - gap, 2 * top + gap - j);
    }

    private void scatter(long[] column, int x, boolean set) {
      for (int e = start[x], end = start[x + 1]; e < end; e++) {
        column[blockOf[e]] = set ? mask[e] : 0L;
      }
    }
  }

  /**
   * Numbers the pattern's distinct chars 1..size (0 = not in the pattern). Latin-1 is a direct table; other
   * chars use linear probing at load factor at most one half, sized from the pattern so it never grows.
   */
  private static final class CharTable {
    private final int[] latin = new int[256];
    private final char[] keys;
    private final int[] values;
    private final int shift;
    private final int slotMask;
    private int size;

    CharTable(CharSequence p, int ps, int m) {
      int wide = 0;
      for (int i = 0; i < m; i++) {
        if (p.charAt(ps + i) >= 256) {
          wide++;
        }
      }
      if (wide == 0) {
        keys = null;
        values = null;
        shift = 0;
        slotMask = 0;
      } else {
        int capacity = Integer.highestOneBit(Math.max(8, wide * 2 - 1)) << 1;
        keys = new char[capacity];
        values = new int[capacity];
        shift = 32 - Integer.numberOfTrailingZeros(capacity);
        slotMask = capacity - 1;
      }
      for (int i = 0; i < m; i++) {
        add(p.charAt(ps + i));
      }
    }

    int size() {
      return size;
    }

    private void add(char c) {
      if (c < 256) {
        if (latin[c] == 0) {
          latin[c] = ++size;
        }
        return;
      }
      int slot = (c * 0x9E3779B1) >>> shift;
      while (values[slot] != 0) {
        if (keys[slot] == c) {
          return;
        }
        slot = (slot + 1) & slotMask;
      }
      keys[slot] = c;
      values[slot] = ++size;
    }

    int indexOf(char c) {
      if (c < 256) {
        return latin[c];
      }
      if (keys == null) {
        return 0;
      }
      int slot = (c * 0x9E3779B1) >>> shift;
      int v;
      while ((v = values[slot]) != 0) {
        if (keys[slot] == c) {
          return v;
        }
        slot = (slot + 1) & slotMask;
      }
      return 0;
    }
  }
}
