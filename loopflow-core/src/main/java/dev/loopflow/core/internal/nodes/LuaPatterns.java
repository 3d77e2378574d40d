package dev.loopflow.core.internal.nodes;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

/*
 * Design notes.
 *
 * string.find, match, gmatch and gsub as scripts see them: Lua 5.2 patterns (reference manual §6.4.1) over the
 * bytes of a LuaString. They replace luaj's own because a backtracking match can run for longer than any timeout
 * (`s:find('.-.-.-.-b')` on a long subject) and luaj's matcher never returns to the VM while it runs, so neither
 * the instruction hook nor an interrupt could stop it. Here every unit of work (entering a pattern item, one more
 * repetition tried, one subject byte scanned by %b, a plain search or a back-reference) is a step, and every
 * STEP_BATCH steps are reported to the script's LuaGuard, which counts them against the instruction limit and stops
 * the script when it is cancelled or timed out. Recursion is bounded as in Lua ("pattern too complex" past
 * MAX_DEPTH nested items), so no pattern can overflow the Java stack.
 *
 * Scripts keep what luaj 3.0.1 gave them where it departs from the manual without failing: a start position past
 * the end searches at the end, and '%x' in a replacement string is 'x'. Where luaj fails, the manual wins: %g is a
 * class (luaj never matched it), %f works at the start of the subject and a '%' that ends a replacement is an error
 * (luaj threw internal exceptions), and gmatch moves on after an empty match (luaj repeated it forever). Everything
 * else is checked against luaj by LuaPatternsDifferentialTest.
 */
final class LuaPatterns {
  static final int MAX_CAPTURES = 32;
  static final int MAX_DEPTH = 200;
  /** Steps between two reports to the guard: small enough that a stop request is seen within microseconds. */
  static final int STEP_BATCH = 1024;
  private static final int CAP_UNFINISHED = -1;
  private static final int CAP_POSITION = -2;
  private static final int END = -1;

  private LuaPatterns() {}

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

  /**
   * One match attempt's state. Positions are offsets into the subject (0..srcLen) and the pattern (0..patLen);
   * reading at the end yields 0, as C reads the terminating NUL.
   */
  static final class Matcher {
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

    Matcher(LuaString subject, LuaString pattern, LuaGuard guard) {
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
          return subject.substring(s, e);
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
      return subject.substring(capInit[i], capInit[i] + l);
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

  /** Lua's posrelat: a negative position counts from the end; the result is 0 when before the start. */
  private static long relative(long pos, int len) {
    if (pos >= 0) {
      return pos;
    }
    return -pos > len ? 0 : len + pos + 1;
  }

  private static boolean noSpecials(LuaString p) {
    for (int i = 0; i < p.m_length; i++) {
      switch (p.m_bytes[p.m_offset + i]) {
        case '^', '$', '*', '+', '?', '.', '(', '[', '%', '-' -> {
          return false;
        }
        default -> {
          // an ordinary byte
        }
      }
    }
    return true;
  }

  private static boolean anchored(LuaString p) {
    return p.m_length > 0 && p.m_bytes[p.m_offset] == '^';
  }

  /** string.find ({@code find}) and string.match. */
  static Varargs find(Varargs args, boolean find) {
    LuaString s = args.checkstring(1);
    LuaString p = args.checkstring(2);
    int ls = s.m_length;
    long init = relative(args.optlong(3, 1), ls);
    if (init < 1) {
      init = 1;
    } else if (init > ls + 1) {
      init = ls + 1; // as luaj (and Lua 5.1): a start past the end searches at the end
    }
    Matcher m = new Matcher(s, p, LuaGuard.current());
    try {
      if (find && (args.arg(4).toboolean() || noSpecials(p))) {
        int at = m.plainFind((int) init - 1, p);
        return at < 0 ? LuaValue.NIL : LuaValue.varargsOf(LuaValue.valueOf(at + 1), LuaValue.valueOf(at + p.m_length));
      }
      boolean anchor = anchored(p);
      int start = anchor ? 1 : 0;
      int s1 = (int) init - 1;
      do {
        m.reset();
        int e = m.match(s1, start);
        if (e != END) {
          if (find) {
            return LuaValue.varargsOf(LuaValue.valueOf(s1 + 1), LuaValue.valueOf(e), m.captures(s1, e, false));
          }
          return m.captures(s1, e, true);
        }
      } while (s1++ < ls && !anchor);
      return LuaValue.NIL;
    } finally {
      m.flush();
    }
  }

  /** string.gmatch: an iterator over the matches; as in Lua 5.2 a leading '^' is an ordinary character here. */
  static LuaValue gmatch(Varargs args) {
    return new GmatchIterator(args.checkstring(1), args.checkstring(2));
  }

  /** The iterator string.gmatch returns; LuaFootprint counts the strings it holds. */
  static final class GmatchIterator extends VarArgFunction {
    final LuaString subject;
    final LuaString pattern;
    private int position;

    GmatchIterator(LuaString subject, LuaString pattern) {
      this.subject = subject;
      this.pattern = pattern;
      this.name = "gmatch_aux";
    }

    @Override
    public Varargs invoke(Varargs args) {
      Matcher m = new Matcher(subject, pattern, LuaGuard.current());
      try {
        for (int src = position; src <= m.srcLen; src++) {
          m.reset();
          int e = m.match(src, 0);
          if (e != END) {
            position = e == src ? e + 1 : e;
            return m.captures(src, e, true);
          }
        }
        position = m.srcLen + 1;
        return NIL;
      } finally {
        m.flush();
      }
    }
  }

  /** string.gsub with a string, table or function replacement and an optional maximum count. */
  static Varargs gsub(Varargs args) {
    LuaString src = args.checkstring(1);
    LuaString p = args.checkstring(2);
    LuaValue repl = args.arg(3);
    int type = repl.type();
    int srcl = src.m_length;
    long max = args.optlong(4, srcl + 1L);
    if (type != LuaValue.TNUMBER && type != LuaValue.TSTRING && type != LuaValue.TFUNCTION
        && type != LuaValue.TTABLE) {
      LuaValue.argerror(3, "string/function/table expected");
    }
    LuaGuard guard = LuaGuard.current();
    boolean anchor = anchored(p);
    int start = anchor ? 1 : 0;
    Matcher m = new Matcher(src, p, guard);
    LuaBoundedLibrary.Builder out = new LuaBoundedLibrary.Builder(guard, srcl);
    LuaString replacement = type == LuaValue.TNUMBER || type == LuaValue.TSTRING ? repl.strvalue() : null;
    int n = 0;
    int s = 0;
    try {
      while (n < max) {
        m.reset();
        int e = m.match(s, start);
        if (e != END) {
          n++;
          if (replacement != null) {
            appendReplacement(m, out, src, replacement, s, e);
          } else {
            LuaValue value = type == LuaValue.TFUNCTION ? repl.invoke(m.captures(s, e, true)).arg1()
                : repl.get(m.capture(0, s, e));
            if (!value.toboolean()) {
              out.append(src, s, e - s);
            } else if (!value.isstring()) {
              throw new LuaError("invalid replacement value (a " + value.typename() + ")");
            } else {
              out.append(value.strvalue());
            }
          }
        }
        if (e != END && e > s) {
          s = e;
        } else if (s < srcl) {
          out.append(src, s++, 1);
        } else {
          break;
        }
        if (anchor) {
          break;
        }
      }
      out.append(src, s, srcl - s);
      return LuaValue.varargsOf(n == 0 ? src : out.result(), LuaValue.valueOf(n));
    } finally {
      m.flush();
    }
  }

  /** A replacement string: {@code %0}-{@code %9} insert the match or a capture, {@code %%} a percent sign. */
  private static void appendReplacement(Matcher m, LuaBoundedLibrary.Builder out, LuaString src, LuaString repl, int s,
      int e) {
    byte[] r = repl.m_bytes;
    int off = repl.m_offset;
    int len = repl.m_length;
    for (int i = 0; i < len; i++) {
      byte c = r[off + i];
      if (c != '%') {
        out.append(c);
        continue;
      }
      i++;
      int d = i < len ? r[off + i] & 0xFF : 0;
      if (d < '0' || d > '9') {
        if (i >= len) {
          throw new LuaError("invalid use of '%' in replacement string");
        }
        out.append((byte) d); // %% is a percent sign; as in luaj, %x is x
      } else if (d == '0') {
        out.append(src, s, e - s);
      } else {
        out.append(m.capture(d - '1', s, e).strvalue());
      }
    }
  }

  /** The four pattern functions, named as in the string library. */
  static LuaValue function(String name) {
    return switch (name) {
      case "find" -> new LuaBoundedLibrary.Fn(name) {
        @Override
        public Varargs invoke(Varargs args) {
          return find(args, true);
        }
      };
      case "match" -> new LuaBoundedLibrary.Fn(name) {
        @Override
        public Varargs invoke(Varargs args) {
          return find(args, false);
        }
      };
      case "gmatch" -> new LuaBoundedLibrary.Fn(name) {
        @Override
        public Varargs invoke(Varargs args) {
          return gmatch(args);
        }
      };
      case "gsub" -> new LuaBoundedLibrary.Fn(name) {
        @Override
        public Varargs invoke(Varargs args) {
          return gsub(args);
        }
      };
      default -> throw new IllegalArgumentException(name);
    };
  }
}
