package dev.loopflow.core.secrets;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Masks pieces of known credentials, for excerpts that cut through one: every run of {@value #MIN_PIECE} or more
 * characters that is a substring of a known credential, wherever it stands, and at every cut mark ({@code ...},
 * {@code …}, {@code [cut}) the start of a credential of {@value #MIN_EDGE} or more characters just before the mark
 * and the end of one just after it.
 *
 * <p>Which credentials count for the first rule: opaque ones only, those without whitespace that are neither a file
 * path ({@code /…}, {@code ~/…}, {@code ./…}, {@code C:\…}) nor a URL ({@code …://…}). A path or URL held by a
 * credential-named variable shares its pieces ({@code /home/}, {@code https:}) with ordinary text, which would be
 * masked everywhere; such values are masked whole and at cut marks. Nor does a piece that is a word of lower-case
 * letters inside a credential ({@code secret} in {@code one-secret-value}).
 *
 * <p>What must stay true: a pure function of the text and the known values; text with nothing to mask comes back
 * as the same instance. Built once per list of known values (the redactor's knowledge), immutable, thread-safe.
 */
final class SecretPieces {
  /** The shortest piece of a credential masked anywhere in a text. */
  static final int MIN_PIECE = 6;
  /** The shortest start or end of a credential masked at a cut mark. */
  static final int MIN_EDGE = 4;
  private static final List<String> CUT_BEFORE = List.of("...", "…", "[cut");
  private static final List<String> CUT_AFTER = List.of("...", "…");
  private static final long BASE = 1_000_003L;

  final List<String> known;
  private final Set<String> pieces = new HashSet<>();
  /** Open addressing over the pieces' rolling hashes (0 = empty), to scan a text without building substrings. */
  private final long[] table;
  private final long topPower;

  SecretPieces(List<String> known) {
    this.known = known;
    for (String v : known) {
      if (opaque(v)) {
        for (int i = 0; i + MIN_PIECE <= v.length(); i++) {
          if (!insideWord(v, i)) {
            pieces.add(v.substring(i, i + MIN_PIECE));
          }
        }
      }
    }
    int size = Integer.highestOneBit(Math.max(16, pieces.size() * 4 - 1)) << 1;
    table = new long[size];
    for (String p : pieces) {
      long h = nonZero(hash(p, 0));
      int slot = (int) (h ^ (h >>> 32)) & (size - 1);
      while (table[slot] != 0 && table[slot] != h) {
        slot = (slot + 1) & (size - 1);
      }
      table[slot] = h;
    }
    long p = 1;
    for (int i = 0; i < MIN_PIECE - 1; i++) {
      p *= BASE;
    }
    topPower = p;
  }

  /**
   * Whether the piece at {@code from} lies inside a word of lower-case letters only ({@code secret} in
   * {@code one-secret-value}): such a piece is ordinary text as often as it is part of a credential, so it is
   * masked only at cut marks and with the whole value.
   */
  private static boolean insideWord(String v, int from) {
    int start = from;
    while (start > 0 && Character.isLetterOrDigit(v.charAt(start - 1))) {
      start--;
    }
    int end = from + MIN_PIECE;
    while (end < v.length() && Character.isLetterOrDigit(v.charAt(end))) {
      end++;
    }
    for (int i = start; i < end; i++) {
      char c = v.charAt(i);
      if (c < 'a' || c > 'z') {
        return false;
      }
    }
    return true;
  }

  /** Whether pieces of {@code v} are masked wherever they stand (see the class comment). */
  static boolean opaque(String v) {
    if (v.isEmpty() || v.contains("://") || v.startsWith("/") || v.startsWith("~/") || v.startsWith("./")
        || v.startsWith("../") || v.length() > 2 && Character.isLetter(v.charAt(0)) && v.charAt(1) == ':'
        && (v.charAt(2) == '\\' || v.charAt(2) == '/')) {
      return false;
    }
    for (int i = 0; i < v.length(); i++) {
      if (Character.isWhitespace(v.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  /** {@code s} with the pieces of known credentials masked by {@code mask}; the same instance when none. */
  String mask(String s, String mask) {
    if (known.isEmpty() || s.isEmpty()) {
      return s;
    }
    boolean[] hide = null;
    hide = edges(s, hide);
    hide = anywhere(s, hide);
    if (hide == null) {
      return s;
    }
    StringBuilder out = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); ) {
      if (hide[i]) {
        out.append(mask);
        while (i < s.length() && hide[i]) {
          i++;
        }
      } else {
        out.append(s.charAt(i++));
      }
    }
    return out.toString();
  }

  private boolean[] edges(String s, boolean[] hide) {
    for (String mark : CUT_BEFORE) {
      for (int at = s.indexOf(mark); at >= 0; at = s.indexOf(mark, at + 1)) {
        // A cut note on its own line ("\n[cut: ...]") follows the cut text after the line break.
        int end = at > 0 && s.charAt(at - 1) == '\n' ? at - 1 : at;
        int k = longest(s.substring(Math.max(0, end - 512), end), true);
        if (k > 0) {
          hide = mark(hide, s.length(), end - k, end);
        }
      }
    }
    for (String mark : CUT_AFTER) {
      for (int at = s.indexOf(mark); at >= 0; at = s.indexOf(mark, at + 1)) {
        int from = at + mark.length();
        int k = longest(s.substring(from, Math.min(s.length(), from + 512)), false);
        if (k > 0) {
          hide = mark(hide, s.length(), from, from + k);
        }
      }
    }
    return hide;
  }

  /** The longest start of a known value {@code body} ends with ({@code tail}), or end it starts with; 0: none. */
  private int longest(String body, boolean tail) {
    int best = 0;
    for (String v : known) {
      for (int k = Math.min(v.length() - 1, body.length()); k >= MIN_EDGE && k > best; k--) {
        if (tail ? body.regionMatches(body.length() - k, v, 0, k) : body.regionMatches(0, v, v.length() - k, k)) {
          best = k;
          break;
        }
      }
    }
    return best;
  }

  private boolean[] anywhere(String s, boolean[] hide) {
    if (pieces.isEmpty() || s.length() < MIN_PIECE) {
      return hide;
    }
    long h = hash(s, 0);
    for (int i = 0; ; i++) {
      if (present(nonZero(h)) && pieces.contains(s.substring(i, i + MIN_PIECE))) {
        hide = mark(hide, s.length(), i, i + MIN_PIECE);
      }
      if (i + MIN_PIECE >= s.length()) {
        return hide;
      }
      h = (h - s.charAt(i) * topPower) * BASE + s.charAt(i + MIN_PIECE);
    }
  }

  private boolean present(long h) {
    int slot = (int) (h ^ (h >>> 32)) & (table.length - 1);
    while (table[slot] != 0) {
      if (table[slot] == h) {
        return true;
      }
      slot = (slot + 1) & (table.length - 1);
    }
    return false;
  }

  private static long hash(String s, int from) {
    long h = 0;
    for (int i = from; i < from + MIN_PIECE && i < s.length(); i++) {
      h = h * BASE + s.charAt(i);
    }
    return h;
  }

  private static long nonZero(long h) {
    return h == 0 ? 1 : h;
  }

  private static boolean[] mark(boolean[] hide, int length, int from, int to) {
    boolean[] out = hide == null ? new boolean[length] : hide;
    for (int i = Math.max(0, from); i < to && i < length; i++) {
      out[i] = true;
    }
    return out;
  }
}
