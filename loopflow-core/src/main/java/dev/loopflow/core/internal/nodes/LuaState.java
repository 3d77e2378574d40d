package dev.loopflow.core.internal.nodes;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.luaj.vm2.Globals;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

/*
 * Design notes.
 *
 * What every script execution needs and that costs more to build than to put back: the globals table (sized once),
 * the script's own `string`, `table`, `math` and `bit32` tables, `print`, the guard with its frame arrays and the
 * print buffer. One LuaState per thread holds them; each execution on the thread borrows it (acquire) and gives it
 * back (release), which puts it back exactly as a new one is built, or drops it:
 *  - bindings (state, input, loop, ...) are removed, so nothing of a run's data stays reachable from the thread;
 *  - globals the script created are removed; when it replaced or removed a fixed global (`_G`, `print`, a library)
 *    or made the table grow (its shape: the capacity of its array and hash parts, which decide how keys are stored
 *    and iterated), the state is dropped and the next execution builds a new one;
 *  - a library table the script wrote into is replaced by a new empty one;
 *  - the guard drops its frames and starts every counter from zero in begin(); the print buffer is emptied (or
 *    replaced when it grew large, so a thread does not keep it);
 *  - an execution that ended in a way that may have left a table half changed (StackOverflowError, any Java error
 *    other than a Lua error or the guard's stop) drops the state.
 * Everything else a script could reach is shared read-only by all scripts already (the library functions, their
 * protected metatables, the string metatable) or belongs to the one execution (the chunk's closure and its _ENV
 * upvalue, lazy tables, every table it builds), so a script can leave nothing for the next one to see. The metatable
 * of the globals is protected, so no script can change it; the sandbox has no coroutines and no debug library.
 *
 * A state is used by its own thread only (a ThreadLocal; virtual threads get one each). A nested execution on the
 * same thread while one is running (no script can start one; kept safe anyway) gets a state of its own.
 */
final class LuaState {
  private static final ThreadLocal<LuaState> CURRENT = new ThreadLocal<>();
  private static final AtomicLong CREATED = new AtomicLong();
  /** Slots of the globals' hash part: the fixed globals, the bindings and a few globals of the script's own. */
  private static final int GLOBALS_CAPACITY = 32;
  /** A print buffer larger than this is not kept for the next execution. */
  private static final int KEPT_PRINT_CAPACITY = 1 << 13;
  private static final LuaTable[] LIBRARY_METATABLES = LuaSandbox.LIBRARY_KEYS.values().toArray(new LuaTable[0]);

  final Globals globals = new Globals();
  final LuaGuard guard = new LuaGuard(globals);
  private final LuaValue print;
  private final LuaTable[] libraries = new LuaTable[LuaSandbox.LIBRARY_KEYS.size()];
  private final LuaString[] libraryKeys = LuaSandbox.LIBRARY_KEYS.keySet().toArray(new LuaString[0]);
  private final long shape;
  private StringBuilder printed = new StringBuilder();
  private boolean busy;
  // Short keys decoded to Java text, by the key's identity: a script's constants are the same LuaStrings each time.
  private final LuaString[] names = new LuaString[64];
  private final String[] texts = new String[64];

  private LuaState() {
    CREATED.incrementAndGet();
    globals.presize(0, GLOBALS_CAPACITY);
    for (int i = 0; i < libraryKeys.length; i++) {
      libraries[i] = library(i);
      globals.rawset(libraryKeys[i], libraries[i]);
    }
    globals.rawset(LuaSandbox.G, globals);
    print = new VarArgFunction() {
      @Override
      public Varargs invoke(Varargs args) {
        for (int i = 1; i <= args.narg(); i++) {
          String text = args.arg(i).tojstring();
          guard.checkString((long) printed.length() + text.length() + 1);
          guard.charge(2L * text.length());
          if (i > 1) {
            printed.append('\t');
          }
          printed.append(text);
        }
        printed.append('\n');
        return NONE;
      }
    };
    globals.rawset(LuaSandbox.PRINT, print);
    globals.setmetatable(LuaSandbox.GLOBALS_METATABLE);
    shape = LuaFootprint.shape(globals);
  }

  /** How many states were ever built in this JVM (each is built once per thread unless dropped). */
  static long created() {
    return CREATED.get();
  }

  /** The state the next execution on this thread will use, or null when it will build one. */
  static LuaState ofThisThread() {
    return CURRENT.get();
  }

  /** This thread's state, ready for an execution under {@code limits}; give it back with {@link #release}. */
  static LuaState acquire(LuaSandbox.Limits limits) {
    LuaState s = CURRENT.get();
    if (s == null || s.busy) {
      LuaState fresh = new LuaState();
      if (s == null) {
        CURRENT.set(fresh);
      }
      s = fresh;
    }
    s.busy = true;
    s.guard.begin(limits.maxInstructions(), limits.maxStringBytes(), limits.maxMemory(), s.printed);
    return s;
  }

  /** A key's Java text; short ones are decoded once per thread (their String also keeps its hash code). */
  String text(LuaValue key) {
    if (key instanceof LuaString s && s.m_length <= 32) {
      int i = s.hashCode() & (names.length - 1);
      if (names[i] == s) {
        return texts[i];
      }
      String t = s.tojstring();
      names[i] = s;
      texts[i] = t;
      return t;
    }
    return key.tojstring();
  }

  String printed() {
    return printed.toString();
  }

  /** The own, empty table of library {@code i}: reads reach the shared library through its protected metatable. */
  private static LuaTable library(int i) {
    LuaTable own = new LuaTable();
    own.setmetatable(LIBRARY_METATABLES[i]);
    return own;
  }

  /**
   * Puts the state back as new for the next execution on this thread, or drops it. {@code bindings}: the keys the
   * execution was given; {@code intact}: false when the execution ended in a way that may have left a table half
   * changed.
   */
  void release(Map<String, ?> bindings, boolean intact) {
    busy = false;
    for (String name : bindings.keySet()) {
      globals.rawset(LuaSandbox.name(name), LuaValue.NIL);
    }
    guard.clearFrames();
    if (printed.capacity() > KEPT_PRINT_CAPACITY) {
      printed = new StringBuilder();
    } else {
      printed.setLength(0);
    }
    if (!(intact && restore()) && CURRENT.get() == this) {
      CURRENT.remove();
    }
  }

  /** Removes the script's own globals and empties the libraries; false when the state cannot be made as new. */
  private boolean restore() {
    if (shape < 0 || LuaFootprint.shape(globals) != shape || globals.rawget(LuaSandbox.G) != globals
        || globals.rawget(LuaSandbox.PRINT) != print) {
      return false;
    }
    for (int i = 0; i < libraries.length; i++) {
      if (globals.rawget(libraryKeys[i]) != libraries[i]) {
        return false;
      }
      if (LuaFootprint.shape(libraries[i]) != 0) {
        libraries[i] = library(i);
        globals.rawset(libraryKeys[i], libraries[i]); // an existing key: its value is replaced in place
      }
    }
    if (LuaFootprint.hashEntries(globals) == libraries.length + 2) {
      return true; // the fixed globals, checked above, and nothing else
    }
    List<LuaValue> added = null;
    LuaValue k = LuaValue.NIL;
    int fixed = 0;
    while (true) {
      Varargs e = globals.next(k);
      if ((k = e.arg1()).isnil()) {
        break;
      }
      if (isFixed(k)) {
        fixed++;
      } else {
        if (added == null) {
          added = new ArrayList<>();
        }
        added.add(k);
      }
    }
    if (added != null) {
      for (LuaValue key : added) {
        globals.rawset(key, LuaValue.NIL);
      }
    }
    return fixed == libraries.length + 2 && LuaFootprint.shape(globals) == shape;
  }

  private boolean isFixed(LuaValue key) {
    if (key == LuaSandbox.G || key == LuaSandbox.PRINT) {
      return true;
    }
    for (LuaString lib : libraryKeys) {
      if (key == lib) {
        return true;
      }
    }
    return false;
  }
}
