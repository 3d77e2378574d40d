package dev.loopflow.core.similarity;

import java.util.Arrays;

/**
 * The distance for a pattern of more than 64 chars: the pattern's rows are cut into 64-row blocks stepped top to
 * bottom, each handing its horizontal delta at its bottom row (+1, 0 or -1) to the block below as a carry. Two
 * text columns are stepped together, block by block: a block's vectors are loaded and stored once per pair, and
 * the two carry chains are independent, so the processor overlaps them. One instance holds the state of one call.
 *
 * <h2>Design notes</h2>
 *
 * <ul>
 *   <li>Match masks: when distinct chars times blocks would make a large dense table (long texts in scripts with
 *       many distinct chars), each char keeps only its non-zero blocks, scattered into a scratch column for the
 *       step.
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
 * <p>What must stay true: the window never loses a promising cell (each rule above that drops or withholds a
 * block must prove its cells are not promising); the first stepped block is always fed a horizontal delta of +1
 * (row 0 holds {@code D[0][j] = j}, and above the window +1 is the safe over-estimate); {@code k} is only ever
 * lowered to a proven upper bound of the distance; the tracked score is the value at the bottom row of the last
 * stepped block, and the final block's bottom is row {@code m}, not bit 63 (bits past the pattern hold garbage
 * that only moves upward, never into valid rows).
 */
final class BlockDistance {
  /** Larger dense match tables (in longs) cost more to clear than the sparse scatter costs per column. */
  private static final int DENSE_TABLE_LIMIT = 1 << 15;

  /** The first bound tried by {@link #distance} (plus the length difference): a handful of blocks wide. */
  private static final int FIRST_GUESS = 256;

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

  BlockDistance(CharSequence p, int ps, int m, CharSequence t, int ts, int n) {
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
