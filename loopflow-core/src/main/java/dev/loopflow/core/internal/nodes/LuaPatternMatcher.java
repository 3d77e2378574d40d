package dev.loopflow.core.internal.nodes;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

/*
 * Design notes.
 *
 * One attempt to match a Lua 5.2 pattern (the reference manual's "Patterns") against a subject: the backtracking
 * matcher behind LuaPatterns. Positions are offsets into the subject (0..srcLen) and the pattern (0..patLen); reading
 * at the end yields 0, as C reads a string's terminating NUL, which is what %f and %b see there.
 *
 * Every unit of work is a step: entering a pattern item, one more repetition tried, one subject byte scanned by %b,
 * a byte compared by a back-reference or a plain search, a set element tried. Every STEP_BATCH steps are reported
 * to the script's LuaGuard (work()), which counts them against the instruction limit and throws when the script
 * must stop, so no pattern runs unstoppably. Nesting is bounded as in Lua ("pattern too complex" past MAX_DEPTH
 * nested items), so no pattern can overflow the Java stack either. Classes are those of the C locale.
 */
final class LuaPatternMatcher {
  static final int MAX_CAPTURES = 32;
  static final int MAX_DEPTH = 200;
  /** Steps between two reports to the guard: small enough that a stop request is seen within microseconds. */
  static final int STEP_BATCH = 1024;
  private static final int CAP_UNFINISHED = -1;
  private static final int CAP_POSITION = -2;
  static final int END = -1;

  // Character classes of the C locale, one bit per class.
  private static final int ALPHA = 1;
  private static final int DIGIT = 2;
  private static final int LOWER = 4;
  private static final int UPPER = 8;
  private static final int SPACE = 16;
  private static final int CNTRL = 32;
  private static final int PUNCT = 64;
  private static final int XDIGIT = 128;
  private static final int[] CLASSES = new int[256];

  static {
    for (int c = 0; c < 256; c++) {
      int m = 0;
      if (c >= 'a' && c <= 'z') {
        m |= ALPHA | LOWER;
      }
      if (c >= 'A' && c <= 'Z') {
        m |= ALPHA | UPPER;
      }
      if (c >= '0' && c <= '9') {
        m |= DIGIT | XDIGIT;
      }
      if (c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
        m |= XDIGIT;
      }
      if (c == ' ' || c >= '\t' && c <= '\r') {
        m |= SPACE;
      }
      if (c < 32 || c == 127) {
        m |= CNTRL;
      }
      if (c > 32 && c < 127 && (m & (ALPHA | DIGIT)) == 0) {
        m |= PUNCT;
      }
      CLASSES[c] = m;
    }
  }

  /** Whether byte {@code c} is in class {@code %cl} (or, for a non-letter {@code cl}, equals it). */
  static boolean matchClass(int c, int cl) {
    int lower = cl >= 'A' && cl <= 'Z' ? cl + 32 : cl;
    int m = CLASSES[c];
    boolean res;
    switch (lower) {
      case 'a' -> res = (m & ALPHA) != 0;
      case 'c' -> res = (m & CNTRL) != 0;
      case 'd' -> res = (m & DIGIT) != 0;
      case 'g' -> res = c > 32 && c < 127;
      case 'l' -> res = (m & LOWER) != 0;
      case 'p' -> res = (m & PUNCT) != 0;
      case 's' -> res = (m & SPACE) != 0;
      case 'u' -> res = (m & UPPER) != 0;
      case 'w' -> res = (m & (ALPHA | DIGIT)) != 0;
      case 'x' -> res = (m & XDIGIT) != 0;
      case 'z' -> res = c == 0;
      default -> {
        return cl == c;
      }
    }
    return lower == cl ? res : !res;
  }

  private final byte[] src;
  private final int srcOff;
  final int srcLen;
  private final byte[] pat;
  private final int patOff;
  final int patLen;
  private final LuaString subject;
  private final LuaGuard guard;
  int level;
  private final int[] capInit = new int[MAX_CAPTURES];
  private final int[] capLen = new int[MAX_CAPTURES];
  private int depth;
  private int steps;

  LuaPatternMatcher(LuaString subject, LuaString pattern, LuaGuard guard) {
    this.subject = subject;
    this.src = subject.m_bytes;
    this.srcOff = subject.m_offset;
    this.srcLen = subject.m_length;
    this.pat = pattern.m_bytes;
    this.patOff = pattern.m_offset;
    this.patLen = pattern.m_length;
    this.guard = guard;
  }

  private int s(int i) {
    return i < srcLen ? src[srcOff + i] & 0xFF : 0;
  }

  private int p(int i) {
    return i < patLen ? pat[patOff + i] & 0xFF : 0;
  }

  private void step() {
    if (++steps >= STEP_BATCH) {
      flush();
    }
  }

  private void steps(int n) {
    steps += n;
    if (steps >= STEP_BATCH) {
      flush();
    }
  }

  /** Reports the steps taken so far; the guard throws when the script must stop. */
  void flush() {
    int n = steps;
    steps = 0;
    if (guard != null) {
      guard.work(n);
    }
  }

  /** Starts a new attempt: no captures, full nesting budget. */
  void reset() {
    level = 0;
    depth = MAX_DEPTH;
  }

  /** The end of the match of pattern[p..] at subject position s, or END. */
  int match(int s, int p) {
    if (depth-- == 0) {
      throw new LuaError("pattern too complex");
    }
    step();
    loop:
    while (p != patLen) {
      int pc = p(p);
      switch (pc) {
        case '(' -> {
          s = p(p + 1) == ')' ? startCapture(s, p + 2, CAP_POSITION) : startCapture(s, p + 1, CAP_UNFINISHED);
          break loop;
        }
        case ')' -> {
          s = endCapture(s, p + 1);
          break loop;
        }
        case '$' -> {
          if (p + 1 == patLen) {
            s = s == srcLen ? s : END;
            break loop;
          }
        }
        case '%' -> {
          int next = p(p + 1);
          if (next == 'b') {
            s = matchBalance(s, p + 2);
            if (s != END) {
              p += 4;
              continue;
            }
            break loop;
          }
          if (next == 'f') {
            p += 2;
            if (p(p) != '[') {
              throw new LuaError("missing '[' after '%f' in pattern");
            }
            int ep = classEnd(p);
            int previous = s == 0 ? 0 : s(s - 1);
            if (!matchBracketClass(previous, p, ep - 1) && matchBracketClass(s(s), p, ep - 1)) {
              p = ep;
              continue;
            }
            s = END;
            break loop;
          }
          if (next >= '0' && next <= '9') {
            s = matchCapture(s, next);
            if (s != END) {
              p += 2;
              continue;
            }
            break loop;
          }
        }
        default -> {
          // a single character class
        }
      }
      int ep = classEnd(p);
      int suffix = p(ep);
      if (!singleMatch(s, p, ep)) {
        if (suffix == '*' || suffix == '?' || suffix == '-') {
          p = ep + 1;
          continue;
        }
        s = END;
        break;
      }
      switch (suffix) {
        case '?' -> {
          int res = match(s + 1, ep + 1);
          if (res != END) {
            s = res;
            break loop;
          }
          p = ep + 1;
        }
        case '+' -> {
          s = maxExpand(s + 1, p, ep);
          break loop;
        }
        case '*' -> {
          s = maxExpand(s, p, ep);
          break loop;
        }
        case '-' -> {
          s = minExpand(s, p, ep);
          break loop;
        }
        default -> {
          s++;
          p = ep;
        }
      }
    }
    depth++;
    return s;
  }

  /** The position just after the single-character class that starts at p. */
  private int classEnd(int p) {
    int c = p(p++);
    if (c == '%') {
      if (p >= patLen) {
        throw new LuaError("malformed pattern (ends with '%')");
      }
      return p + 1;
    }
    if (c == '[') {
      if (p(p) == '^') {
        p++;
      }
      do {
        if (p >= patLen) {
          throw new LuaError("malformed pattern (missing ']')");
        }
        int cc = p(p++);
        if (cc == '%' && p < patLen) {
          p++;
        }
      } while (p(p) != ']');
      return p + 1;
    }
    return p;
  }

  private boolean singleMatch(int s, int p, int ep) {
    if (s >= srcLen) {
      return false;
    }
    int c = s(s);
    return switch (p(p)) {
      case '.' -> true;
      case '%' -> matchClass(c, p(p + 1));
      case '[' -> matchBracketClass(c, p, ep - 1);
      default -> p(p) == c;
    };
  }

  /** {@code [set]} from p (at '[') to ec (at the closing ']'). */
  private boolean matchBracketClass(int c, int p, int ec) {
    boolean sig = true;
    if (p(p + 1) == '^') {
      sig = false;
      p++;
    }
    steps(ec - p);
    while (++p < ec) {
      if (p(p) == '%') {
        p++;
        if (matchClass(c, p(p))) {
          return sig;
        }
      } else if (p(p + 1) == '-' && p + 2 < ec) {
        p += 2;
        if (p(p - 2) <= c && c <= p(p)) {
          return sig;
        }
      } else if (p(p) == c) {
        return sig;
      }
    }
    return !sig;
  }

  private int maxExpand(int s, int p, int ep) {
    int i = 0;
    while (singleMatch(s + i, p, ep)) {
      i++;
      step();
    }
    while (i >= 0) {
      int res = match(s + i, ep + 1);
      if (res != END) {
        return res;
      }
      i--;
    }
    return END;
  }

  private int minExpand(int s, int p, int ep) {
    while (true) {
      int res = match(s, ep + 1);
      if (res != END) {
        return res;
      }
      if (!singleMatch(s, p, ep)) {
        return END;
      }
      s++;
    }
  }

  private int startCapture(int s, int p, int what) {
    if (level >= MAX_CAPTURES) {
      throw new LuaError("too many captures");
    }
    capInit[level] = s;
    capLen[level] = what;
    level++;
    int res = match(s, p);
    if (res == END) {
      level--;
    }
    return res;
  }

  private int endCapture(int s, int p) {
    int l = captureToClose();
    capLen[l] = s - capInit[l];
    int res = match(s, p);
    if (res == END) {
      capLen[l] = CAP_UNFINISHED;
    }
    return res;
  }

  private int captureToClose() {
    for (int l = level - 1; l >= 0; l--) {
      if (capLen[l] == CAP_UNFINISHED) {
        return l;
      }
    }
    throw new LuaError("invalid pattern capture");
  }

  private int matchBalance(int s, int p) {
    if (p >= patLen - 1) {
      throw new LuaError("malformed pattern (missing arguments to '%b')");
    }
    if (s(s) != p(p)) {
      return END;
    }
    int open = p(p);
    int close = p(p + 1);
    int depthCount = 1;
    while (++s < srcLen) {
      step();
      int c = s(s);
      if (c == close) {
        if (--depthCount == 0) {
          return s + 1;
        }
      } else if (c == open) {
        depthCount++;
      }
    }
    return END;
  }

  /** A back-reference {@code %1}..{@code %9}: the text of that (closed) capture again. */
  private int matchCapture(int s, int digit) {
    int l = digit - '1';
    if (l < 0 || l >= level || capLen[l] == CAP_UNFINISHED) {
      throw new LuaError("invalid capture index %" + (l + 1));
    }
    int len = capLen[l];
    if (len < 0 || srcLen - s < len) {
      return END;
    }
    steps(len);
    for (int i = 0; i < len; i++) {
      if (src[srcOff + capInit[l] + i] != src[srcOff + s + i]) {
        return END;
      }
    }
    return s + len;
  }

  /** Capture i of the match [s, e) (the whole match when there are no captures and i is 0). */
  LuaValue capture(int i, int s, int e) {
    if (i >= level) {
      if (i == 0) {
        return copy(s, e);
      }
      throw new LuaError("invalid capture index %" + (i + 1));
    }
    int l = capLen[i];
    if (l == CAP_UNFINISHED) {
      throw new LuaError("unfinished capture");
    }
    if (l == CAP_POSITION) {
      return LuaValue.valueOf(capInit[i] + 1);
    }
    return copy(capInit[i], capInit[i] + l);
  }

  /** A captured substring: a new string, so charged to the memory limit like every string a script can keep. */
  private LuaString copy(int from, int to) {
    if (guard != null) {
      guard.charge(LuaGuard.STRING_BYTES + to - from);
    }
    return subject.substring(from, to);
  }

  /** All captures of the match [s, e); the whole match when there are none and {@code whole} is set. */
  Varargs captures(int s, int e, boolean whole) {
    int n = level == 0 && whole ? 1 : level;
    if (n == 1) {
      return capture(0, s, e);
    }
    LuaValue[] values = new LuaValue[n];
    for (int i = 0; i < n; i++) {
      values[i] = capture(i, s, e);
    }
    return LuaValue.varargsOf(values);
  }

  /** Plain substring search from {@code from}; the index found or -1. */
  int plainFind(int from, LuaString needle) {
    int n = needle.m_length;
    if (n == 0) {
      return from;
    }
    byte[] nb = needle.m_bytes;
    int no = needle.m_offset;
    byte first = nb[no];
    for (int i = from, last = srcLen - n; i <= last; i++) {
      step();
      if (src[srcOff + i] != first) {
        continue;
      }
      int j = 1;
      while (j < n && src[srcOff + i + j] == nb[no + j]) {
        j++;
      }
      steps(j);
      if (j == n) {
        return i;
      }
    }
    return -1;
  }
}
