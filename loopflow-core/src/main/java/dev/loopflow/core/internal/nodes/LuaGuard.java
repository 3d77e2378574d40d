package dev.loopflow.core.internal.nodes;

import java.util.Arrays;
import org.luaj.vm2.Globals;
import org.luaj.vm2.Lua;
import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaFunction;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.DebugLib;

/*
 * Design notes.
 *
 * One guard per thread, reused by every script execution on it (LuaState) and readied by begin() for each, installed
 * as the globals' debug library: luaj's interpreter calls
 * onCall/onInstruction/onReturn of `globals.debuglib` for every Lua call and every VM instruction. The guard does
 * not use luaj's own debug machinery (no Lua hook function, no call-stack bookkeeping); it overrides every method
 * the interpreter calls and keeps the few things it needs itself.
 *
 * What it enforces, each failing with a Stop (an Error: pcall catches only LuaError and Exception, and the xpcall
 * scripts get, LuaBoundedLibrary's, never catches an Error either):
 *  - the instruction limit, counting VM instructions and the steps library functions report through work() (pattern
 *    matching, table.sort comparisons, table.concat items);
 *  - interruption: cancellation, the node's timeout and the run's timeout all interrupt the node's thread, and the
 *    guard checks for it every CHECK_EVERY instructions or pattern steps;
 *  - the string size limit: before a CONCAT instruction runs, the sum of its operands' lengths; library functions
 *    check their own results (LuaBoundedLibrary, LuaPatterns). An operand with a __concat metamethod makes a Lua
 *    call in the middle of the instruction: until the instruction is over, the strings such a call receives are
 *    checked, and so is the instruction's result, so no string over the limit reaches the script;
 *  - the memory limit: instructions and library calls that can make the script hold more memory (a new table or
 *    table key, a closure, a string, a call deeper than any before) charge an estimate of what they allocate. Charges only pace the
 *    measurement: once they add up to what is left under the limit, LuaFootprint measures what the script holds (all
 *    that is reachable from its globals and active frames); over the limit, the script stops. Garbage is therefore
 *    not counted, so a script that builds a string by repeated `..` pays for the final string, not for every copy.
 *    measure() paces the measurements so that their cost stays proportional to the charges, at the price of a lag:
 *    a script is stopped at the latest when it holds one and a half times the limit.
 * A guard is sticky: once it has stopped the script, every later check throws again, until begin() readies it for
 * the next execution.
 *
 * The guard is also reachable from library functions through a thread-local (current()): a script runs entirely
 * on the thread that called LuaSandbox.run (the sandbox has no coroutines).
 */
final class LuaGuard extends DebugLib {
  /** Instructions between two checks for interruption. */
  static final int CHECK_EVERY = 1024;

  // Estimated heap bytes, used for charges and by LuaFootprint.
  static final long TABLE_BYTES = 64;
  static final long ENTRY_BYTES = 48;
  static final long STRING_BYTES = 48;
  static final long CLOSURE_BYTES = 48;
  static final long UPVALUE_BYTES = 32;
  static final long FRAME_BYTES = 64;
  /** The longest text a number converts to ({@code -1.7976931348623157E308} and the like). */
  private static final int NUMBER_TEXT = 32;

  private static final ThreadLocal<LuaGuard> CURRENT = new ThreadLocal<>();

  // The limits of the execution under way; set by begin().
  long maxInstructions;
  int maxStringBytes;
  long maxMemory;
  final Globals globals;
  private final Thread thread;
  private StringBuilder printed;

  private long instructions;
  private long nextCheck;
  private Stop stopped;

  private long charged;
  private long chargeLimit;

  // Active frames: the closure, its registers and its varargs; a null closure marks a pcall.
  private LuaClosure[] closures = new LuaClosure[16];
  private LuaValue[][] stacks = new LuaValue[16][];
  private Varargs[] varargs = new Varargs[16];
  /** Per frame, the register a CONCAT with a metamethod operand writes to, or -1. */
  private int[] pendingConcat = new int[16];
  private int pendingFrames;
  private int depth;
  /** The deepest the call stack has been: only a deeper call holds more memory than calls before it did. */
  private int deepest;
  /** The most frames in use at once since the last clearFrames(): the slots it has to clear. */
  private int used;
  private int[] code;
  private LuaValue[] stack;
  private LuaClosure closure;

  /** A guard for the thread that creates it; begin() readies it for each execution. */
  LuaGuard(Globals globals) {
    this.globals = globals;
    this.thread = Thread.currentThread();
    globals.debuglib = this;
  }

  /**
   * Readies the guard for a new execution: every counter, the stop, the frames and the measurements start from
   * nothing, so what an earlier execution did (however it ended) cannot count against this one or stop it.
   */
  void begin(long maxInstructions, int maxStringBytes, long maxMemory, StringBuilder printed) {
    this.maxInstructions = maxInstructions;
    this.maxStringBytes = maxStringBytes;
    this.maxMemory = maxMemory;
    this.printed = printed;
    instructions = 0;
    nextCheck = Math.min(CHECK_EVERY, maxInstructions + 1);
    stopped = null;
    charged = 0;
    chargeLimit = maxMemory;
    deepest = 0;
    if (depth != 0 || used != 0) {
      clearFrames(); // released without clearing (a new guard never has frames)
    }
  }

  /** Drops every frame reference (a stopped script never returned from its frames), so nothing of it is kept. */
  void clearFrames() {
    if (closures.length > 256) {
      // a deep recursion grew them: a thread's guard does not keep that much for later executions
      closures = new LuaClosure[16];
      stacks = new LuaValue[16][];
      varargs = new Varargs[16];
      pendingConcat = new int[16];
    } else {
      Arrays.fill(closures, 0, used, null);
      Arrays.fill(stacks, 0, used, null);
      Arrays.fill(varargs, 0, used, null);
    }
    used = 0;
    pendingFrames = 0;
    depth = 0;
    deepest = 0;
    code = null;
    stack = null;
    closure = null;
  }

  /** The guard of the script running on this thread, or null outside a script. */
  static LuaGuard current() {
    return CURRENT.get();
  }

  /** Makes this guard current for the calling thread; the returned previous guard goes back with {@link #leave}. */
  LuaGuard enter() {
    LuaGuard previous = CURRENT.get();
    CURRENT.set(this);
    return previous;
  }

  static void leave(LuaGuard previous) {
    CURRENT.set(previous); // not remove(): the thread runs its next script with the same entry
  }

  /** Stops a script; an Error, so that the script's pcall cannot catch it. {@code limit} is null for interruption. */
  static final class Stop extends Error {
    final String limit;
    final long value;

    Stop(String limit, long value, String message) {
      super(message, null, false, false);
      this.limit = limit;
      this.value = value;
    }
  }

  private Stop stop(Stop s) {
    stopped = s;
    return s;
  }

  /** Throws when the script must stop: after an earlier stop, when interrupted, or past the instruction limit. */
  private void checkpoint() {
    if (stopped != null) {
      throw stopped;
    }
    if (thread.isInterrupted()) {
      throw stop(new Stop(null, 0, "interrupted"));
    }
    if (instructions > maxInstructions) {
      throw stop(new Stop("max_instructions", maxInstructions,
          "script exceeded its instruction limit (" + maxInstructions + " instructions)"));
    }
    nextCheck = Math.min(instructions + CHECK_EVERY, maxInstructions + 1);
  }

  /** Work done in library functions (pattern-matching steps, sort comparisons), counted like instructions. */
  void work(int steps) {
    instructions += steps;
    if (instructions >= nextCheck) {
      checkpoint();
    } else if (stopped != null) {
      throw stopped;
    }
  }

  /** Throws when a string of {@code length} bytes would exceed the string size limit. */
  void checkString(long length) {
    if (length > maxStringBytes) {
      throw stop(new Stop("max_string_bytes", maxStringBytes, "script exceeded its string size limit (a string of "
          + length + " bytes; max_string_bytes is " + maxStringBytes + ")"));
    }
  }

  /** Records an allocation the script may keep; measures what it holds once the charges reach the limit. */
  void charge(long bytes) {
    charged += bytes;
    if (charged > chargeLimit) {
      measure();
    }
  }

  /** Measures what the script holds now and fails when that is over the memory limit. */
  void measure() {
    if (stopped != null) {
      throw stopped;
    }
    long held = LuaFootprint.measure(this, maxMemory);
    if (held > maxMemory) {
      throw stop(new Stop("max_memory", maxMemory, "script exceeded its memory limit (it holds more than "
          + maxMemory + " bytes; max_memory is " + maxMemory + ")"));
    }
    charged = 0;
    // Measure again once the charges could have filled what is left. Never sooner than after half of what the script
    // holds (and a sixteenth of the limit): a measurement costs in proportion to what it holds, so measuring stays a
    // bounded share of the work, and a script is stopped at the latest when it holds one and a half times the limit.
    chargeLimit = Math.max(maxMemory - held, Math.max(held / 2, maxMemory / 16));
  }

  int printedLength() {
    return printed.length();
  }

  int depth() {
    return depth;
  }

  LuaClosure closure(int frame) {
    return closures[frame];
  }

  LuaValue[] stack(int frame) {
    return stacks[frame];
  }

  Varargs varargs(int frame) {
    return varargs[frame];
  }

  // ---- the interpreter's hooks ----

  @Override
  public void onCall(LuaClosure c, Varargs args, LuaValue[] registers) {
    push(c, args, registers);
    if (pendingFrames != 0) {
      // Inside a __concat metamethod: a partial concatenation it received must not outgrow the limit either.
      for (int i = 0, n = c.p.numparams; i < n && i < registers.length; i++) {
        checkValue(registers[i]);
      }
      for (int i = 1, n = args.narg(); i <= n; i++) {
        checkValue(args.arg(i));
      }
    }
    if (depth > deepest) {
      deepest = depth;
      charge(FRAME_BYTES + 4L * registers.length);
    }
  }

  @Override
  public void onCall(LuaFunction f) {
    push(null, null, null);
  }

  @Override
  public void onReturn() {
    if (depth == 0) {
      return;
    }
    if (pendingConcat[depth - 1] >= 0) {
      pendingConcat[depth - 1] = -1;
      pendingFrames--;
    }
    closures[depth - 1] = null;
    stacks[depth - 1] = null;
    varargs[depth - 1] = null;
    depth--;
    select();
  }

  @Override
  public String traceback(int level) {
    return "stack traceback:";
  }

  @Override
  public void onInstruction(int pc, Varargs v, int top) {
    if (++instructions >= nextCheck) {
      checkpoint();
    }
    if (pendingFrames != 0 && pendingConcat[depth - 1] >= 0) {
      int a = pendingConcat[depth - 1];
      pendingConcat[depth - 1] = -1;
      pendingFrames--;
      checkValue(stack[a]);
    }
    int i = code[pc];
    switch (i & 0x3F) {
      case Lua.OP_CONCAT -> concat(i);
      case Lua.OP_NEWTABLE -> charge(TABLE_BYTES + 4L * (i >>> 23) + ENTRY_BYTES * ((i >> 14) & 0x1FF));
      case Lua.OP_SETTABLE -> newKey(stack[(i >> 6) & 0xFF], i);
      case Lua.OP_SETTABUP -> newKey(closure.upValues[(i >> 6) & 0xFF].getValue(), i);
      case Lua.OP_SETLIST -> {
        int b = i >>> 23;
        int n = b != 0 ? b : top - ((i >> 6) & 0xFF) - 1;
        charge(ENTRY_BYTES * Math.max(n, 0));
      }
      case Lua.OP_CLOSURE -> charge(CLOSURE_BYTES + UPVALUE_BYTES * closure.p.p[i >>> 14].upvalues.length);
      default -> {
        // no allocation the script can keep
      }
    }
  }

  private void push(LuaClosure c, Varargs args, LuaValue[] registers) {
    if (depth == closures.length) {
      int n = depth * 2;
      closures = Arrays.copyOf(closures, n);
      stacks = Arrays.copyOf(stacks, n);
      varargs = Arrays.copyOf(varargs, n);
      pendingConcat = Arrays.copyOf(pendingConcat, n);
    }
    closures[depth] = c;
    stacks[depth] = registers;
    varargs[depth] = args;
    pendingConcat[depth] = -1;
    depth++;
    if (depth > used) {
      used = depth;
    }
    select();
  }

  /** Points code/stack/closure at the innermost Lua frame. */
  private void select() {
    LuaClosure c = depth == 0 ? null : closures[depth - 1];
    closure = c;
    code = c == null ? null : c.p.code;
    stack = depth == 0 ? null : stacks[depth - 1];
  }

  /** {@code R(A) := R(B) .. ... .. R(C)}: checked before it runs, from its operands' lengths. */
  private void concat(int i) {
    int b = i >>> 23;
    int c = (i >> 14) & 0x1FF;
    long total = 0;
    boolean meta = false;
    for (int k = b; k <= c; k++) {
      LuaValue v = stack[k];
      if (v instanceof LuaString s) {
        total += s.m_length;
      } else if (v.isnumber()) {
        total += NUMBER_TEXT;
      } else {
        meta = true;
      }
    }
    if (total > maxStringBytes) {
      total = 0;
      for (int k = b; k <= c; k++) {
        LuaValue v = stack[k];
        total += v instanceof LuaString s ? s.m_length : v.isnumber() ? v.strvalue().m_length : 0;
      }
      checkString(total);
    }
    if (meta) {
      // A __concat metamethod runs in the middle of this instruction: check what it is given, and the result.
      pendingConcat[depth - 1] = (i >> 6) & 0xFF;
      pendingFrames++;
    }
    charge(STRING_BYTES + total);
  }

  private void checkValue(LuaValue v) {
    if (v instanceof LuaString s) {
      checkString(s.m_length);
    }
  }

  /** SETTABLE/SETTABUP: a new key grows the table; overwriting one does not. */
  private void newKey(LuaValue target, int i) {
    if (target instanceof LuaTable t) {
      int b = i >>> 23;
      LuaValue key = b > 0xFF ? closure.p.k[b & 0xFF] : stack[b];
      if (!key.isnil() && t.rawget(key).isnil()) {
        charge(ENTRY_BYTES);
      }
    }
  }
}
