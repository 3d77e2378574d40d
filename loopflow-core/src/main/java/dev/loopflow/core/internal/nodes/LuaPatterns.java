package dev.loopflow.core.internal.nodes;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

/*
 * Design notes.
 *
 * string.find, match, gmatch and gsub as scripts see them: Lua 5.2 patterns (the reference manual's "Patterns") over
 * the bytes of a LuaString. They replace luaj's own because a backtracking match can run for longer than any timeout
 * (`s:find('.-.-.-.-b')` on a long subject) and luaj's matcher never returns to the VM while it runs, so neither the
 * instruction hook nor an interrupt could stop it. The matcher (LuaPatternMatcher) counts its steps and reports them to
 * the script's LuaGuard, which counts them against the instruction limit and stops the script when it is cancelled or
 * timed out.
 *
 * Scripts keep what luaj 3.0.1 gave them where it departs from the manual without failing: a start position past
 * the end searches at the end, and '%x' in a replacement string is 'x'. Where luaj fails, the manual wins: %g is a
 * class (luaj never matched it), %f works at the start of the subject and a '%' that ends a replacement is an error
 * (luaj threw internal exceptions), and gmatch moves on after an empty match (luaj repeated it forever). Everything
 * else is checked against luaj by LuaPatternsDifferentialTest.
 */
final class LuaPatterns {
  private LuaPatterns() {}

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
    LuaPatternMatcher m = new LuaPatternMatcher(s, p, LuaGuard.current());
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
        if (e != LuaPatternMatcher.END) {
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
      LuaPatternMatcher m = new LuaPatternMatcher(subject, pattern, LuaGuard.current());
      try {
        for (int src = position; src <= m.srcLen; src++) {
          m.reset();
          int e = m.match(src, 0);
          if (e != LuaPatternMatcher.END) {
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
    LuaPatternMatcher m = new LuaPatternMatcher(src, p, guard);
    LuaBoundedLibrary.Builder out = new LuaBoundedLibrary.Builder(guard, srcl);
    LuaString replacement = type == LuaValue.TNUMBER || type == LuaValue.TSTRING ? repl.strvalue() : null;
    int n = 0;
    int s = 0;
    try {
      while (n < max) {
        m.reset();
        int e = m.match(s, start);
        if (e != LuaPatternMatcher.END) {
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
        if (e != LuaPatternMatcher.END && e > s) {
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
  private static void appendReplacement(LuaPatternMatcher m, LuaBoundedLibrary.Builder out, LuaString src,
      LuaString repl, int s, int e) {
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
