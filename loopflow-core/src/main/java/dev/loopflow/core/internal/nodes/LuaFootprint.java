package dev.loopflow.core.internal.nodes;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayDeque;
import java.util.IdentityHashMap;
import java.util.Map;
import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.UpValue;
import org.luaj.vm2.Varargs;

/*
 * Design notes.
 *
 * An estimate of the heap a running script holds: everything reachable from its globals, its active frames
 * (registers, varargs, the running closures and their upvalues) and its print output, never the libraries shared by
 * all scripts (LuaSandbox.isShared) nor the Java data its lazy tables convert from. Each distinct table, closure and
 * string buffer is counted once (identity), so a string stored a thousand times costs its bytes once, and a
 * substring that shares its string's buffer (luaj shares it when the substring is at least half as long) costs that
 * whole buffer. Table sizes include the capacity of their array and hash parts
 * (read from luaj's fields), since a table emptied after growing keeps both.
 *
 * The walk is iterative (a deep nesting of tables cannot overflow the Java stack) and stops as soon as the total
 * passes `stopAbove`. Its cost is proportional to what the script holds; LuaGuard paces it so that it runs only
 * after the script has charged allocations worth a good share of its limit.
 */
final class LuaFootprint {
  // Getters of LuaTable's protected fields, typed (LuaTable)Object[] and (LuaTable)int for invokeExact.
  private static final MethodHandle ARRAY;
  private static final MethodHandle HASH;
  private static final MethodHandle HASH_ENTRIES;

  static {
    MethodHandle array = null;
    MethodHandle hash = null;
    MethodHandle entries = null;
    try {
      MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(LuaTable.class, MethodHandles.lookup());
      MethodType arrayGetter = MethodType.methodType(Object[].class, LuaTable.class);
      array = lookup.findGetter(LuaTable.class, "array", LuaValue[].class).asType(arrayGetter);
      hash = lookup.findGetter(LuaTable.class, "hash", Class.forName("[Lorg.luaj.vm2.LuaTable$Slot;"))
          .asType(arrayGetter);
      entries = lookup.findGetter(LuaTable.class, "hashEntries", int.class);
    } catch (ReflectiveOperationException | RuntimeException e) {
      // Another luaj layout: tables are then estimated from their entries alone.
    }
    ARRAY = array;
    HASH = hash;
    HASH_ENTRIES = entries;
  }

  private LuaFootprint() {}

  /** How many keys a table's hash part holds, or -1 when this luaj's layout cannot be read. */
  static int hashEntries(LuaTable t) {
    if (HASH_ENTRIES == null) {
      return -1;
    }
    try {
      return (int) HASH_ENTRIES.invokeExact(t);
    } catch (Throwable e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The capacity of a table's array and hash parts as one number, or -1 when this luaj's layout cannot be read: two
   * tables with the same keys and the same shape store, grow and iterate alike.
   */
  static long shape(LuaTable t) {
    if (ARRAY == null) {
      return -1;
    }
    try {
      Object[] array = (Object[]) ARRAY.invokeExact(t);
      Object[] hash = (Object[]) HASH.invokeExact(t);
      return ((long) (array == null ? 0 : array.length) << 32) | (hash == null ? 0 : hash.length);
    } catch (Throwable e) {
      throw new IllegalStateException(e);
    }
  }

  /** The bytes the guarded script holds, or some value above {@code stopAbove} once that is passed. */
  static long measure(LuaGuard guard, long stopAbove) {
    Walk w = new Walk(stopAbove);
    w.total += 2L * guard.printedLength();
    w.add(guard.globals);
    for (int f = 0; f < guard.depth() && w.total <= stopAbove; f++) {
      LuaValue[] stack = guard.stack(f);
      if (stack != null) {
        w.total += LuaGuard.FRAME_BYTES + 4L * stack.length;
        for (LuaValue v : stack) {
          w.add(v);
        }
      }
      Varargs args = guard.varargs(f);
      if (args != null) {
        for (int i = 1, n = args.narg(); i <= n; i++) {
          w.add(args.arg(i));
        }
      }
      w.add(guard.closure(f));
      w.drain();
    }
    w.drain();
    return w.total;
  }

  private static final class Walk {
    final long stopAbove;
    long total;
    final Map<Object, Boolean> seen = new IdentityHashMap<>();
    final ArrayDeque<LuaValue> pending = new ArrayDeque<>();

    Walk(long stopAbove) {
      this.stopAbove = stopAbove;
    }

    /** Counts a value; tables and closures are queued to be walked. */
    void add(LuaValue v) {
      if (v == null) {
        return;
      }
      if (v instanceof LuaString s) {
        if (seen.put(s.m_bytes, Boolean.TRUE) == null) {
          total += LuaGuard.STRING_BYTES + s.m_bytes.length;
        }
      } else if (v.isnumber()) {
        total += 16;
      } else if (v instanceof LuaTable t) {
        if (!LuaSandbox.isShared(t) && seen.put(t, Boolean.TRUE) == null) {
          pending.push(t);
        }
      } else if (v instanceof LuaClosure c) {
        if (seen.put(c, Boolean.TRUE) == null) {
          pending.push(c);
        }
      } else if (v instanceof LuaPatterns.GmatchIterator it) {
        add(it.subject);
        add(it.pattern);
      }
    }

    void drain() {
      while (!pending.isEmpty() && total <= stopAbove) {
        LuaValue v = pending.pop();
        if (v instanceof LuaTable t) {
          walk(t);
        } else if (v instanceof LuaClosure c) {
          total += LuaGuard.CLOSURE_BYTES;
          for (UpValue u : c.upValues) {
            if (u != null) {
              total += LuaGuard.UPVALUE_BYTES;
              add(u.getValue());
            }
          }
        }
      }
    }

    private void walk(LuaTable t) {
      total += LuaGuard.TABLE_BYTES;
      int entries = 0;
      LuaValue k = LuaValue.NIL;
      while (total <= stopAbove) {
        Varargs e = t.next(k);
        if ((k = e.arg1()).isnil()) {
          break;
        }
        entries++;
        add(k);
        add(e.arg(2));
      }
      if (ARRAY != null) {
        Object[] array;
        Object[] hash;
        int hashEntries;
        try {
          array = (Object[]) ARRAY.invokeExact(t);
          hash = (Object[]) HASH.invokeExact(t);
          hashEntries = (int) HASH_ENTRIES.invokeExact(t);
        } catch (Throwable e) {
          throw new IllegalStateException(e);
        }
        total += 16 + 4L * (array == null ? 0 : array.length) + 16 + 4L * (hash == null ? 0 : hash.length)
            + LuaGuard.ENTRY_BYTES * hashEntries;
      } else {
        total += LuaGuard.ENTRY_BYTES * entries;
      }
      LuaValue mt = t.getmetatable();
      if (mt != null) {
        add(mt);
      }
    }
  }
}
