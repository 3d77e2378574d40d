package dev.loopflow.core.internal.nodes;

import java.util.Arrays;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

/*
 * Design notes.
 *
 * The library functions scripts see that could, in one call, build a string past the string size limit, allocate
 * an unbounded array, or run Java code the instruction hook cannot interrupt. Each is replaced or wrapped here and
 * installed once into the shared library tables (install):
 *  - string.find/match/gmatch/gsub: LuaPatterns (stoppable, counted);
 *  - string.rep, format, char, table.concat, gsub and print: the result's size is known or bounded before anything
 *    is built, and a result over the limit stops the script (LuaGuard.checkString), so no such call allocates more
 *    than the limit;
 *  - string.byte and table.unpack: at most MAX_RESULTS values, as Lua's own stack limit allows;
 *  - table.sort: without an order function, luaj's sort is given one that compares as luaj does (lt) and counts
 *    each comparison as a step, so sorting a large table is stoppable and counted like a pattern match;
 *  - string.upper/lower/reverse/sub/dump, tostring, table.insert/pack and rawset: unchanged, but charge what they
 *    allocate to the memory limit (as do the captures the pattern functions return): LuaGuard measures what a
 *    script holds only once its charges could have filled the limit, so everything a script can keep must charge;
 *  - xpcall: luaj's keeps its handler in the shared library's state (so scripts running at the same time shared it)
 *    and catches any Throwable around the handler; this one calls the handler after the error and never catches an
 *    Error, so a limit or a cancellation cannot be swallowed.
 * Outside a script (no current guard) the functions behave the same without limits.
 */
final class LuaBoundedLibrary {
  /** Lua's own limit on the values one call can return (LUAI_MAXSTACK). */
  static final int MAX_RESULTS = 1_000_000;
  /** The longest text one numeric format directive produces (width and precision are at most 99). */
  private static final int NUMBER_DIRECTIVE = 420;

  private LuaBoundedLibrary() {}

  /** A library function with the name tostring() shows. */
  abstract static class Fn extends VarArgFunction {
    Fn(String name) {
      this.name = name;
    }
  }

  /** Replaces and wraps the functions above in the shared tables. */
  static void install(LuaTable string, LuaTable table, LuaTable base) {
    for (String name : new String[] {"find", "match", "gmatch", "gsub"}) {
      string.set(name, LuaPatterns.function(name));
    }
    string.set("rep", new Fn("rep") {
      @Override
      public Varargs invoke(Varargs args) {
        return LuaBoundedLibrary.rep(args);
      }
    });
    LuaValue format = string.get("format");
    string.set("format", new Fn("format") {
      @Override
      public Varargs invoke(Varargs args) {
        check(formatBound(args));
        return charged(format.invoke(args));
      }
    });
    LuaValue chars = string.get("char");
    string.set("char", new Fn("char") {
      @Override
      public Varargs invoke(Varargs args) {
        check(args.narg());
        return charged(chars.invoke(args));
      }
    });
    LuaValue bytes = string.get("byte");
    string.set("byte", new Fn("byte") {
      @Override
      public Varargs invoke(Varargs args) {
        LuaString s = args.checkstring(1);
        long i = relative(args.optlong(2, 1), s.m_length);
        long j = Math.min(relative(args.optlong(3, i), s.m_length), s.m_length);
        if (j - Math.max(i, 1) + 1 > MAX_RESULTS) {
          throw new LuaError("string slice too long");
        }
        return bytes.invoke(args);
      }
    });
    for (String name : new String[] {"upper", "lower", "reverse", "sub", "dump"}) {
      string.set(name, chargingResult(name, string.get(name)));
    }
    base.set("tostring", chargingResult("tostring", base.get("tostring")));
    table.set("concat", new Fn("concat") {
      @Override
      public Varargs invoke(Varargs args) {
        return LuaBoundedLibrary.concat(args);
      }
    });
    LuaValue unpack = table.get("unpack");
    table.set("unpack", new Fn("unpack") {
      @Override
      public Varargs invoke(Varargs args) {
        LuaTable t = args.checktable(1);
        long i = args.optlong(2, 1);
        long j = args.isnoneornil(3) ? t.length() : args.checklong(3);
        if (j - i + 1 > MAX_RESULTS) {
          throw new LuaError("too many results to unpack");
        }
        return unpack.invoke(args);
      }
    });
    LuaValue sort = table.get("sort");
    LuaValue lessThan = new Fn("lt") {
      @Override
      public Varargs invoke(Varargs args) {
        LuaGuard g = LuaGuard.current();
        if (g != null) {
          g.work(1);
        }
        return valueOf(args.arg1().lt_b(args.arg(2)));
      }
    };
    table.set("sort", new Fn("sort") {
      @Override
      public Varargs invoke(Varargs args) {
        return sort.invoke(args.isnoneornil(2) ? LuaValue.varargsOf(args.arg1(), lessThan) : args);
      }
    });
    LuaValue insert = table.get("insert");
    table.set("insert", new Fn("insert") {
      @Override
      public Varargs invoke(Varargs args) {
        Varargs r = insert.invoke(args);
        LuaGuard g = LuaGuard.current();
        if (g != null) {
          g.charge(LuaGuard.ENTRY_BYTES);
        }
        return r;
      }
    });
    LuaValue pack = table.get("pack");
    table.set("pack", new Fn("pack") {
      @Override
      public Varargs invoke(Varargs args) {
        LuaGuard g = LuaGuard.current();
        if (g != null) {
          g.charge(LuaGuard.TABLE_BYTES + LuaGuard.ENTRY_BYTES * args.narg());
        }
        return pack.invoke(args);
      }
    });
    LuaValue rawset = base.get("rawset");
    base.set("rawset", new Fn("rawset") {
      @Override
      public Varargs invoke(Varargs args) {
        LuaGuard g = LuaGuard.current();
        if (g != null) {
          g.charge(LuaGuard.ENTRY_BYTES);
        }
        return rawset.invoke(args);
      }
    });
    base.set("xpcall", new Fn("xpcall") {
      @Override
      public Varargs invoke(Varargs args) {
        return LuaBoundedLibrary.xpcall(args);
      }
    });
  }

  private static LuaValue chargingResult(String name, LuaValue f) {
    return new Fn(name) {
      @Override
      public Varargs invoke(Varargs args) {
        return charged(f.invoke(args));
      }
    };
  }

  /** Charges a returned string to the memory limit. */
  private static Varargs charged(Varargs result) {
    LuaGuard g = LuaGuard.current();
    if (g != null && result.arg1() instanceof LuaString s) {
      g.charge(LuaGuard.STRING_BYTES + s.m_length);
    }
    return result;
  }

  /** Stops the script when a string of {@code length} bytes would exceed its string size limit. */
  private static void check(long length) {
    LuaGuard g = LuaGuard.current();
    if (g != null) {
      g.checkString(length);
    }
  }

  private static long relative(long pos, int len) {
    if (pos >= 0) {
      return pos;
    }
    return -pos > len ? 0 : len + pos + 1;
  }

  /** string.rep(s, n [, sep]) as in Lua 5.2: n copies of s separated by sep; empty when n < 1. */
  static Varargs rep(Varargs args) {
    LuaString s = args.checkstring(1);
    long n = args.checklong(2);
    LuaString sep = args.optstring(3, LuaValue.EMPTYSTRING);
    if (n <= 0) {
      return LuaValue.EMPTYSTRING;
    }
    long unit = (long) s.m_length + sep.m_length;
    // Computed without overflow: n can be anything up to 2^63.
    long total = unit == 0 ? 0 : n > (Long.MAX_VALUE / 2) / unit ? Long.MAX_VALUE / 2 : n * unit - sep.m_length;
    check(total);
    if (total > Integer.MAX_VALUE - 16) {
      throw new LuaError("resulting string too large");
    }
    if (total == 0) {
      return LuaValue.EMPTYSTRING;
    }
    // s, then n - 1 blocks of sep .. s, filled by doubling the part already written.
    byte[] out = new byte[(int) total];
    System.arraycopy(s.m_bytes, s.m_offset, out, 0, s.m_length);
    if (n > 1) {
      System.arraycopy(sep.m_bytes, sep.m_offset, out, s.m_length, sep.m_length);
      System.arraycopy(s.m_bytes, s.m_offset, out, s.m_length + sep.m_length, s.m_length);
      long blocks = (int) total - s.m_length;
      int filled = (int) unit;
      while (filled < blocks) {
        int copy = (int) Math.min(filled, blocks - filled);
        System.arraycopy(out, s.m_length, out, s.m_length + filled, copy);
        filled += copy;
      }
    }
    return charged(LuaString.valueUsing(out));
  }

  /**
   * An upper bound of string.format's result: the literal text plus, per directive, its width or the length of
   * the value it formats (strings as they are, %q at most four bytes per byte, numbers at most NUMBER_DIRECTIVE).
   * Malformed formats are left to luaj's format, which reports them.
   */
  static long formatBound(Varargs args) {
    LuaString f = args.checkstring(1);
    byte[] b = f.m_bytes;
    int end = f.m_offset + f.m_length;
    long total = 0;
    int arg = 2;
    for (int i = f.m_offset; i < end; i++) {
      if (b[i] != '%') {
        total++;
        continue;
      }
      if (++i >= end) {
        break;
      }
      if (b[i] == '%') {
        total++;
        continue;
      }
      while (i < end && "-+ #0123456789.".indexOf(b[i]) >= 0) {
        i++;
      }
      if (i >= end) {
        break;
      }
      LuaValue v = args.arg(arg++);
      total += switch (b[i]) {
        case 's' -> 99 + (v instanceof LuaString s ? s.m_length : v.isnumber() ? 40 : 0);
        case 'q' -> 2 + 4L * (v instanceof LuaString s ? s.m_length : 40);
        default -> NUMBER_DIRECTIVE;
      };
    }
    return total;
  }

  /** table.concat(t [, sep [, i [, j]]]): sizes are summed before anything is built. */
  static Varargs concat(Varargs args) {
    LuaTable t = args.checktable(1);
    LuaString sep = args.optstring(2, LuaValue.EMPTYSTRING);
    long i = args.optlong(3, 1);
    long j = args.isnoneornil(4) ? t.length() : args.checklong(4);
    if (i > j) {
      return LuaValue.EMPTYSTRING;
    }
    LuaGuard g = LuaGuard.current();
    long total = 0;
    for (long k = i; k <= j; k++) {
      LuaValue v = item(t, k);
      total += v.strvalue().m_length + (k < j ? sep.m_length : 0);
      if (g != null) {
        g.checkString(total);
        g.work(1);
      }
    }
    byte[] out = new byte[(int) total];
    int at = 0;
    for (long k = i; k <= j; k++) {
      LuaString s = item(t, k).strvalue();
      System.arraycopy(s.m_bytes, s.m_offset, out, at, s.m_length);
      at += s.m_length;
      if (k < j) {
        System.arraycopy(sep.m_bytes, sep.m_offset, out, at, sep.m_length);
        at += sep.m_length;
      }
    }
    return charged(LuaString.valueUsing(out));
  }

  private static LuaValue item(LuaTable t, long k) {
    LuaValue v = k == (int) k ? t.get((int) k) : t.get(LuaValue.valueOf((double) k));
    if (!v.isstring()) {
      throw new LuaError("invalid value (at index " + k + ") in table for 'concat'");
    }
    return v;
  }

  /** xpcall(f, handler, ...): f's results after true, or false and what the handler makes of the error. */
  static Varargs xpcall(Varargs args) {
    LuaValue handler = args.checkvalue(2);
    try {
      return LuaValue.varargsOf(LuaValue.TRUE, args.arg1().invoke(args.subargs(3)));
    } catch (LuaError e) {
      LuaValue m = e.getMessageObject();
      try {
        return LuaValue.varargsOf(LuaValue.FALSE, handler.invoke(m == null ? LuaValue.NIL : m));
      } catch (LuaError inHandler) {
        return LuaValue.varargsOf(LuaValue.FALSE, LuaValue.valueOf("error in error handling"));
      }
    }
  }

  /**
   * A growing byte buffer for results built piece by piece (gsub): every append is checked against the string size
   * limit first, so the buffer never grows past it.
   */
  static final class Builder {
    private final LuaGuard guard;
    private byte[] bytes;
    private int length;

    Builder(LuaGuard guard, int expected) {
      this.guard = guard;
      this.bytes = new byte[Math.max(16, Math.min(expected, 1 << 20))];
    }

    private void reserve(int n) {
      long needed = (long) length + n;
      if (guard != null) {
        guard.checkString(needed);
      }
      if (needed > bytes.length) {
        if (needed > Integer.MAX_VALUE - 16) {
          throw new LuaError("resulting string too large");
        }
        bytes = Arrays.copyOf(bytes, (int) Math.min(Integer.MAX_VALUE - 16, Math.max(needed, 2L * bytes.length)));
      }
    }

    void append(byte b) {
      reserve(1);
      bytes[length++] = b;
    }

    void append(LuaString s) {
      append(s, 0, s.m_length);
    }

    void append(LuaString s, int from, int n) {
      reserve(n);
      System.arraycopy(s.m_bytes, s.m_offset + from, bytes, length, n);
      length += n;
    }

    LuaString result() {
      if (guard != null) {
        guard.charge(LuaGuard.STRING_BYTES + length);
      }
      return LuaString.valueUsing(length == bytes.length ? bytes : Arrays.copyOf(bytes, length));
    }
  }
}
