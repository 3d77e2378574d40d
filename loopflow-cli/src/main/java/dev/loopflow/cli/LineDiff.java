package dev.loopflow.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * A unified line diff of two texts, as {@code loopflow diff} prints text outputs: lines only in the left text with
 * {@code -}, only in the right with {@code +}, shared ones with a space, unchanged stretches cut to
 * {@value #CONTEXT} lines around each change.
 *
 * <p>Bounded: texts longer than {@value #MAX_LINES} lines are compared on their first {@value #MAX_LINES} lines
 * (the longest common subsequence table is quadratic), and the diff says so.
 */
final class LineDiff {
  static final int MAX_LINES = 2000;
  static final int CONTEXT = 2;

  private LineDiff() {}

  static List<String> of(String left, String right) {
    List<String> a = lines(left);
    List<String> b = lines(right);
    boolean cut = a.size() > MAX_LINES || b.size() > MAX_LINES;
    a = a.subList(0, Math.min(a.size(), MAX_LINES));
    b = b.subList(0, Math.min(b.size(), MAX_LINES));
    int[][] lcs = new int[a.size() + 1][b.size() + 1];
    for (int i = a.size() - 1; i >= 0; i--) {
      for (int j = b.size() - 1; j >= 0; j--) {
        lcs[i][j] = a.get(i).equals(b.get(j)) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
      }
    }
    List<String> all = new ArrayList<>();
    int i = 0;
    int j = 0;
    while (i < a.size() || j < b.size()) {
      if (i < a.size() && j < b.size() && a.get(i).equals(b.get(j))) {
        all.add("  " + a.get(i++));
        j++;
      } else if (i < a.size() && (j == b.size() || lcs[i + 1][j] >= lcs[i][j + 1])) {
        all.add("- " + a.get(i++));
      } else {
        all.add("+ " + b.get(j++));
      }
    }
    List<String> out = new ArrayList<>();
    int lastShown = -1;
    for (int k = 0; k < all.size(); k++) {
      if (all.get(k).startsWith("  ") && !nearChange(all, k)) {
        continue;
      }
      if (lastShown >= 0 && k > lastShown + 1) {
        out.add("  ...");
      }
      out.add(all.get(k));
      lastShown = k;
    }
    if (cut) {
      out.add("  (compared on the first " + MAX_LINES + " lines of each side)");
    }
    return out;
  }

  private static boolean nearChange(List<String> all, int k) {
    for (int d = Math.max(0, k - CONTEXT); d <= Math.min(all.size() - 1, k + CONTEXT); d++) {
      if (!all.get(d).startsWith("  ")) {
        return true;
      }
    }
    return false;
  }

  private static List<String> lines(String s) {
    return s.isEmpty() ? List.of() : List.of(s.split("\r?\n", -1));
  }
}
