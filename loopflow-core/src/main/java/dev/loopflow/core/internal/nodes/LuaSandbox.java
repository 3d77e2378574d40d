package dev.loopflow.core.internal.nodes;

import dev.loopflow.core.expr.Values;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.luaj.vm2.Globals;
import org.luaj.vm2.LoadState;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.compiler.LuaC;
import org.luaj.vm2.lib.Bit32Lib;
import org.luaj.vm2.lib.PackageLib;
import org.luaj.vm2.lib.StringLib;
import org.luaj.vm2.lib.TableLib;
import org.luaj.vm2.lib.VarArgFunction;
import org.luaj.vm2.lib.jse.JseBaseLib;
import org.luaj.vm2.lib.jse.JseMathLib;

/*
 * Design notes.
 *
 * Scripts get globals as new for every execution (LuaState reuses them per thread and puts them back as new), offering
 * only base, string, table, math and bit32 — never
 * JsePlatform.standardGlobals(). The escape hatches are removed by name (os, io, luajava, require, package,
 * load, loadstring, dofile, loadfile, collectgarbage, debug; reading one raises an error naming it), and the
 * string metatable is shared by all Lua states in the JVM, so it is never handed out (see STRING_METATABLE).
 * Every execution runs under a LuaGuard (its debug hook): it stops the script when the node's thread is interrupted
 * (cancellation, the node's or the run's timeout), past the instruction limit, and when a string or what the script
 * holds would exceed its limits (Limits). Library functions that could run long or build large results in Java
 * are replaced by bounded ones (LuaBoundedLibrary, LuaPatterns). Code is compiled once at load time (the Prototype
 * is immutable); each run only binds it to its thread's globals with a new closure.
 */
final class LuaSandbox {
  static final long DEFAULT_MAX_INSTRUCTIONS = 10_000_000L;
  /** 16 MiB: far above what a script builds for a prompt or a report, far below what strains the JVM. */
  static final int DEFAULT_MAX_STRING_BYTES = 16 << 20;
  /** 64 MiB of data held at once (tables, strings, closures, frames; garbage is not counted). */
  static final long DEFAULT_MAX_MEMORY = 64L << 20;
  private static final Globals COMPILER = new Globals();

  static {
    LoadState.install(COMPILER);
    LuaC.install(COMPILER);
  }

  private LuaSandbox() {}

  /** Compiles; throws LuaError with the compiler's message (which includes the line). */
  static Prototype compile(String code, String name) {
    try {
      return COMPILER.compilePrototype(new StringReader(code), name);
    } catch (IOException e) {
      throw new LuaError(e.getMessage());
    }
  }

  record Result(Object value, String printed) {}

  /** Per-execution limits; see LuaGuard for how each is enforced. */
  record Limits(long maxInstructions, int maxStringBytes, long maxMemory) {
    static final Limits DEFAULT = new Limits(DEFAULT_MAX_INSTRUCTIONS, DEFAULT_MAX_STRING_BYTES, DEFAULT_MAX_MEMORY);
  }

  /** A script went past one of its limits; {@code limit} is the node field that sets it. */
  static final class LimitExceeded extends RuntimeException {
    final String limit;
    final long value;

    LimitExceeded(String limit, long value, String message) {
      super(message, null, false, false);
      this.limit = limit;
      this.value = value;
    }
  }

  /** Globals removed from the sandbox; reading one raises an error that names it. */
  static final List<String> REMOVED = List.of("debug", "os", "io", "luajava", "require", "package", "load",
      "loadstring", "dofile", "loadfile", "collectgarbage", "module");

  /*
   * Strings share one metatable per JVM (LuaString.s_metatable), and loading StringLib replaces it with one whose
   * __index is that run's `string` table, so a script that changed `string` or getmetatable('') changed strings
   * for every other script. Instead the metatable is built once: its __index is a function over a table of the
   * library functions that no script can reach, and __metatable hides it from getmetatable. Each run gets its own
   * copy of `string`.
   */
  private static final LuaTable STRING_FUNCTIONS = new LuaTable();
  private static final LuaTable STRING_METATABLE = new LuaTable();

  static {
    Globals lib = new Globals();
    lib.load(new JseBaseLib());
    lib.load(new PackageLib());
    lib.load(new StringLib());
    copyInto(lib.get("string"), STRING_FUNCTIONS);
    STRING_METATABLE.set(LuaValue.INDEX, new org.luaj.vm2.lib.TwoArgFunction() {
      @Override
      public LuaValue call(LuaValue self, LuaValue key) {
        return STRING_FUNCTIONS.get(key);
      }
    });
    STRING_METATABLE.set(LuaValue.METATABLE, LuaValue.FALSE);
  }

  private static void copyInto(LuaValue from, LuaTable to) {
    LuaValue k = LuaValue.NIL;
    while (true) {
      Varargs e = from.next(k);
      if ((k = e.arg1()).isnil()) {
        break;
      }
      to.set(k, e.arg(2));
    }
  }

  /*
   * The libraries are loaded once per JVM. A run sees them through tables of its own: `string`, `table`, `math`
   * and `bit32` are fresh empty tables whose __index is the shared library table, and the base functions are
   * reached through the globals' __index. Assigning to a library field (string.upper = f) or to a global stores
   * into the run's own table, which is emptied or replaced after the run (LuaState), so no script can change what
   * another sees; the metatables are protected (__metatable), so getmetatable cannot reach the shared tables either.
   * What a script can tell: pairs() over a library table or _G lists only what it assigned itself.
   */
  private static final LuaTable BASE = new LuaTable();
  private static final List<String> LIBRARIES = List.of("string", "table", "math", "bit32");
  static final LuaTable GLOBALS_METATABLE = new LuaTable();
  // Keys set on every run's globals, interned once: LuaValue.valueOf(String) encodes and hashes the name each time.
  static final LuaString G = LuaString.valueOf("_G");
  static final LuaString PRINT = LuaString.valueOf("print");
  /** Each library's name and the protected metatable through which a script's own table reaches it. */
  static final Map<LuaString, LuaTable> LIBRARY_KEYS = new LinkedHashMap<>();
  private static final Map<String, LuaString> BINDING_NAMES = Map.of("state", LuaString.valueOf("state"), "input",
      LuaString.valueOf("input"), "loop", LuaString.valueOf("loop"));

  /** A binding's name as a Lua string; the usual ones are encoded once. */
  static LuaString name(String binding) {
    LuaString n = BINDING_NAMES.get(binding);
    return n != null ? n : LuaString.valueOf(binding);
  }

  static {
    Globals lib = new Globals();
    lib.load(new JseBaseLib());
    lib.load(new PackageLib());
    lib.load(new Bit32Lib());
    lib.load(new TableLib());
    lib.load(new JseMathLib());
    copyInto(lib, BASE);
    LuaBoundedLibrary.install(STRING_FUNCTIONS, (LuaTable) lib.get("table"), BASE);
    for (String name : LIBRARIES) {
      LuaTable functions = name.equals("string") ? STRING_FUNCTIONS : (LuaTable) lib.get(name);
      LuaTable meta = new LuaTable();
      meta.set(LuaValue.INDEX, functions);
      meta.set(LuaValue.METATABLE, LuaValue.FALSE);
      LIBRARY_KEYS.put(LuaString.valueOf(name), meta);
      BASE.set(name, LuaValue.NIL);
    }
    for (String name : REMOVED) {
      BASE.set(name, LuaValue.NIL);
    }
    BASE.set("_G", LuaValue.NIL);
    BASE.set("print", LuaValue.NIL);
    GLOBALS_METATABLE.set(LuaValue.INDEX, new org.luaj.vm2.lib.TwoArgFunction() {
      @Override
      public LuaValue call(LuaValue self, LuaValue key) {
        LuaValue v = BASE.rawget(key);
        if (v.isnil() && key.isstring() && REMOVED.contains(key.tojstring())) {
          throw new LuaError("'" + key.tojstring() + "' is not available in scripts (the sandbox offers the base "
              + "functions, string, table, math and bit32)");
        }
        return v;
      }
    });
    GLOBALS_METATABLE.set(LuaValue.METATABLE, LuaValue.FALSE);
  }

  /**
   * {@code lazy}: bindings converted key by key on first read instead of all at once. The {@code loop} variable
   * reaches the enclosing loops' previous passes ({@code loop.prev}, {@code loop.parent}) and {@code state} may
   * hold long lists, which a script rarely reads in full and which would otherwise be converted on every pass.
   * Throws LuaError for an error in the script, LimitExceeded past a limit, InterruptedException when the thread is
   * interrupted (cancellation or a timeout).
   */
  static Result run(Prototype proto, Map<String, Object> bindings, Limits limits, Set<String> lazy)
      throws InterruptedException {
    LuaState state = LuaState.acquire(limits);
    boolean intact = false;
    try {
      Object value = execute(state, proto, bindings, lazy);
      intact = true;
      return new Result(value, state.printed());
    } catch (StackOverflow e) {
      throw e;
    } catch (LuaError | InterruptedException | LimitExceeded e) {
      intact = true; // thrown at an instruction or a library call's own check, never inside a table's update
      throw e;
    } finally {
      state.release(bindings, intact);
    }
  }

  private static Object execute(LuaState state, Prototype proto, Map<String, Object> bindings,
      Set<String> lazy) throws InterruptedException {
    Globals g = state.globals;
    LuaGuard guard = state.guard;
    LuaString.s_metatable = STRING_METATABLE;
    bindings.forEach((k, v) -> g.rawset(name(k),
        lazy.contains(k) && v instanceof Map<?, ?> m ? new LazyTable(m, state) : toLua(Values.plain(v))));
    // A new closure per execution: its _ENV upvalue is the script's to reassign.
    LuaValue chunk = new org.luaj.vm2.LuaClosure(proto, g);
    // The script runs on the node's own thread (a luaj coroutine would run it on a separate platform thread that an
    // interrupt cannot reach). The guard stops it with an Error, which pcall cannot catch, so a script cannot
    // swallow its own cancellation or limit.
    Thread self = Thread.currentThread();
    LuaGuard previous = guard.enter();
    Varargs result;
    Object value;
    try {
      result = chunk.invoke(LuaValue.NONE);
      guard.work(0); // a stop the script never came back to see still ends it
      // Converted under the guard: a returned table's metamethods (__len, __index) run Lua code.
      value = toJava(result.arg1(), new Conversion(state, guard.maxMemory), 0);
    } catch (LuaGuard.Stop stop) {
      if (stop.limit == null) {
        throw new InterruptedException();
      }
      throw new LimitExceeded(stop.limit, stop.value, stop.getMessage());
    } catch (StackOverflowError e) {
      throw new StackOverflow();
    } catch (LuaError e) {
      if (self.isInterrupted()) {
        throw new InterruptedException();
      }
      throw new LuaError(cleanError(e.getMessage()));
    } finally {
      LuaGuard.leave(previous);
    }
    if (self.isInterrupted()) {
      throw new InterruptedException();
    }
    return value;
  }

  /** A stack overflow: reported as a Lua error, but the state it happened in is not reused (see LuaState). */
  private static final class StackOverflow extends LuaError {
    StackOverflow() {
      super("stack overflow (functions nested too deeply)");
    }
  }

  private static final Pattern POSITION = Pattern.compile("(?s)^[^\\s:]+:(\\d+):? (.*)");

  /** Drops luaj's stack traceback and turns its {@code chunk:LINE} prefix into {@code line LINE:}. */
  static String cleanError(String message) {
    String m = message == null ? "error" : message;
    int tb = m.indexOf("\nstack traceback:");
    if (tb >= 0) {
      m = m.substring(0, tb);
    }
    Matcher pos = POSITION.matcher(m.strip());
    return pos.matches() ? "line " + pos.group(1) + ": " + pos.group(2) : m.strip();
  }

  /*
   * A lazy table starts empty; its __index converts the Java map's entry on first read and stores it (rawset), so
   * each key is converted at most once and later writes by the script win; its __newindex marks a key written
   * before it was read, so that write wins too. pairs() and next() (replaced in BASE) first convert every key not
   * yet read, so iteration sees the whole map. What differs from a plain table: rawget, rawset and rawlen before the
   * key was read.
   */
  private static final LuaTable LAZY_METATABLE = new LuaTable();

  static {
    LAZY_METATABLE.set(LuaValue.INDEX, new org.luaj.vm2.lib.TwoArgFunction() {
      @Override
      public LuaValue call(LuaValue self, LuaValue key) {
        if (!(self instanceof LazyTable lazy) || !key.isstring()) {
          return NIL;
        }
        String k = lazy.state.text(key);
        if (!lazy.first(k)) {
          return NIL;
        }
        LuaValue v = toLua(Values.plain(lazy.source.get(k)));
        self.rawset(key, v);
        return v;
      }
    });
    // A write before the first read wins over the Java value, even a nil (state.x = nil; then state.x is nil).
    LAZY_METATABLE.set(LuaValue.NEWINDEX, new org.luaj.vm2.lib.ThreeArgFunction() {
      @Override
      public LuaValue call(LuaValue self, LuaValue key, LuaValue value) {
        if (self instanceof LazyTable lazy && key.isstring()) {
          lazy.first(lazy.state.text(key));
        }
        self.rawset(key, value);
        return NONE;
      }
    });
    LAZY_METATABLE.set(LuaValue.METATABLE, LuaValue.FALSE);
    LuaValue next = BASE.get("next");
    BASE.set("next", new VarArgFunction() {
      @Override
      public Varargs invoke(Varargs args) {
        force(args.arg1());
        return next.invoke(args);
      }
    });
    BASE.set("pairs", new VarArgFunction() {
      @Override
      public Varargs invoke(Varargs args) {
        LuaTable t = args.checktable(1);
        force(t);
        return LuaValue.varargsOf(BASE.get("next"), t, LuaValue.NIL);
      }
    });
  }

  private static final class LazyTable extends LuaTable {
    final Map<?, ?> source;
    final LuaState state;
    /** The keys read or written so far; made on the first (most bindings of a pass are never read). */
    private Set<String> done;

    LazyTable(Map<?, ?> source, LuaState state) {
      this.source = source;
      this.state = state;
      setmetatable(LAZY_METATABLE);
    }

    /** True the first time {@code key} is read or written: its Java value is converted then or never. */
    boolean first(String key) {
      if (done == null) {
        done = new HashSet<>();
      }
      return done.add(key);
    }
  }

  private static void force(LuaValue t) {
    if (t instanceof LazyTable lazy) {
      for (Object k : lazy.source.keySet()) {
        String key = String.valueOf(k);
        if (lazy.first(key)) {
          t.rawset(key, toLua(Values.plain(lazy.source.get(k))));
        }
      }
    }
  }

  static LuaValue toLua(Object v) {
    if (v == null) {
      return LuaValue.NIL;
    }
    if (v instanceof Boolean b) {
      return LuaValue.valueOf(b);
    }
    if (v instanceof Integer || v instanceof Long || v instanceof Short) {
      long l = ((Number) v).longValue();
      return l == (int) l ? LuaValue.valueOf((int) l) : LuaValue.valueOf((double) l);
    }
    if (v instanceof Number n) {
      return LuaValue.valueOf(n.doubleValue());
    }
    if (v instanceof String s) {
      return LuaValue.valueOf(s);
    }
    if (v instanceof Map<?, ?> m) {
      LuaTable t = new LuaTable();
      m.forEach((k, val) -> t.set(String.valueOf(k), toLua(val)));
      return t;
    }
    if (v instanceof List<?> l) {
      LuaTable t = new LuaTable();
      for (int i = 0; i < l.size(); i++) {
        t.set(i + 1, toLua(l.get(i)));
      }
      return t;
    }
    return LuaValue.valueOf(Values.text(v));
  }

  /** Returned tables nested deeper than this are refused: each level is a Java call. */
  static final int MAX_RETURNED_DEPTH = 200;

  /*
   * What converting a returned value may take. A table the value reaches twice is copied twice, so a few lines
   * (`local t = {} for i = 1, 40 do t = {t, t} end return t`) reach 2^40 values; a script can hold at most
   * maxMemory / 16 values (a number is the smallest), so a value reaching more is refused instead of converted.
   */
  private static final class Conversion {
    private final LuaState state;
    private final long limit;
    private long left;

    Conversion(LuaState state, long maxMemory) {
      this.state = state;
      this.limit = Math.max(maxMemory / 16, 1024);
      this.left = limit;
    }

    void count() {
      if (--left < 0) {
        throw new LuaError("the returned value is too large (it reaches more than " + limit + " values; a table it "
            + "reaches more than once counts each time)");
      }
      if ((left & 1023) == 0 && Thread.currentThread().isInterrupted()) {
        throw new LuaGuard.Stop(null, 0, "interrupted");
      }
    }
  }

  /**
   * Tables with keys 1..n become lists; other tables become maps; integral numbers become Long; inf and nan are an
   * error.
   */
  private static Object toJava(LuaValue v, Conversion conversion, int depth) {
    conversion.count();
    if (v.isnil()) {
      return null;
    }
    if (v.isboolean()) {
      return v.toboolean();
    }
    if (v.type() == LuaValue.TNUMBER) {
      double d = v.todouble();
      if (!Double.isFinite(d)) {
        // JSON has no infinity or NaN: the journal, events and every consumer would get text or an error instead.
        throw new LuaError("the returned value holds " + (Double.isNaN(d) ? "nan (0/0)" : d > 0 ? "inf (a division "
            + "by zero or math.huge)" : "-inf (a division by zero or -math.huge)")
            + ", which is not a number a workflow can carry");
      }
      return d == Math.rint(d) && Math.abs(d) < 9.007199254740992E15 ? (Object) (long) d : (Object) d;
    }
    if (v.isstring()) {
      return v.tojstring();
    }
    if (v.istable()) {
      if (depth >= MAX_RETURNED_DEPTH) {
        throw new LuaError("the returned value nests tables more than " + MAX_RETURNED_DEPTH
            + " deep (or a table contains itself)");
      }
      force(v); // a returned lazy table (return state) must carry every key, read or not
      LuaTable t = (LuaTable) v;
      int n = t.length();
      int count = 0;
      LuaValue k = LuaValue.NIL;
      while (true) {
        Varargs e = t.next(k);
        if ((k = e.arg1()).isnil()) {
          break;
        }
        count++;
      }
      if (n > 0 && n == count) {
        List<Object> out = new ArrayList<>(n);
        for (int i = 1; i <= n; i++) {
          out.add(toJava(t.get(i), conversion, depth + 1));
        }
        return out;
      }
      Map<String, Object> out = LinkedHashMap.newLinkedHashMap(count);
      k = LuaValue.NIL;
      while (true) {
        Varargs e = t.next(k);
        if ((k = e.arg1()).isnil()) {
          break;
        }
        out.put(conversion.state.text(k), toJava(e.arg(2), conversion, depth + 1));
      }
      return out;
    }
    return v.tojstring();
  }

  /*
   * Every table shared by all scripts (the libraries and the metatables of the sandbox): LuaFootprint does not count
   * them as memory a script holds. Built last, after every static table above exists.
   */
  private static final Set<LuaValue> SHARED = Collections.newSetFromMap(
      new IdentityHashMap<>());

  static {
    ArrayDeque<LuaValue> todo = new ArrayDeque<>(List.of(BASE, STRING_FUNCTIONS, STRING_METATABLE,
        GLOBALS_METATABLE, LAZY_METATABLE));
    todo.addAll(LIBRARY_KEYS.values());
    while (!todo.isEmpty()) {
      LuaValue v = todo.pop();
      if (v instanceof LuaTable t && SHARED.add(t)) {
        LuaValue k = LuaValue.NIL;
        while (true) {
          Varargs e = t.next(k);
          if ((k = e.arg1()).isnil()) {
            break;
          }
          todo.push(e.arg(2));
        }
        LuaValue mt = t.getmetatable();
        if (mt != null) {
          todo.push(mt);
        }
      }
    }
  }

  static boolean isShared(LuaValue table) {
    return SHARED.contains(table);
  }
}
