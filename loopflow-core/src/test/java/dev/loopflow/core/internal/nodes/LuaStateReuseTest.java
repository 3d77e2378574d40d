package dev.loopflow.core.internal.nodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.luaj.vm2.LuaError;

/**
 * Every script execution on a thread reuses that thread's Lua state (globals, library tables, guard, print buffer),
 * put back as new afterwards. Whatever a script does to it, the next script on the thread sees exactly what a
 * script sees on a thread that never ran one, and starts with its own limits from zero.
 */
class LuaStateReuseTest {
  private static final LuaSandbox.Limits DEFAULT = LuaSandbox.Limits.DEFAULT;
  private static final Set<String> LAZY = Set.of("state", "input", "loop");

  /**
   * Describes everything a script can observe of its environment: the globals and library tables (keys in their
   * iteration order, types, metatables), what the library functions and metatables do, and the bindings. It runs
   * under small limits, so counters or memory left by an earlier script would stop it.
   */
  private static final String PROBE = """
      local keys = {}
      for k, v in pairs(_G) do keys[#keys + 1] = tostring(k) .. '=' .. type(v) end
      local libs = {}
      for _, name in ipairs({'string', 'table', 'math', 'bit32'}) do
        local lib = _G[name]
        local own = {}
        for k in pairs(lib) do own[#own + 1] = tostring(k) end
        libs[#libs + 1] = name .. ':' .. type(lib) .. ':' .. table.concat(own, '+') .. ':'
            .. tostring(getmetatable(lib)) .. ':' .. type(lib.upper or lib.insert or lib.floor or lib.band)
      end
      local held = {}
      for i = 1, 3000 do held[i] = { i } end
      local s = string.rep('s', 900)
      local t = {}
      table.insert(t, 'v')
      local words = {}
      for w in ('a bb ccc'):gmatch('%a+') do words[#words + 1] = w end
      local ok, err = pcall(error, 'e')
      return {
        keys = table.concat(keys, ','), libs = table.concat(libs, ';'),
        up = ('x'):upper(), fn = string.upper('y'), rep = #s, floor = math.floor(2.5), ins = t[1],
        concat = table.concat({1, 2}, '-'), band = bit32.band(6, 3), fmt = ('%d'):format(7),
        find = string.find('abc', 'b'), words = table.concat(words, '/'), gsub = (('a b'):gsub(' ', '_')),
        smt = tostring(getmetatable('')), gmt = tostring(getmetatable(_G)), env = tostring(_G == _ENV),
        pc = tostring(ok) .. ':' .. tostring(err), xp = tostring(xpcall(error, function(m) return 'h' end)),
        print = type(print), next = type(next), tostr = tostring(nil), held = #held,
        leaked = tostring(leaked), leaked2 = tostring(rawget(_G, 'leaked2')), one = tostring(_G[1]),
        count = state and state.count, input = input and input.n, loop = tostring(loop),
        raw = tostring(state and rawget(state, 'count')), extra = state and tostring(state.extra),
      }
      """;
  private static final LuaSandbox.Limits PROBE_LIMITS = new LuaSandbox.Limits(200_000, 1000, 1 << 20);
  private static final Map<String, Object> PROBE_BINDINGS = Map.of("state", Map.of("count", 1L), "input",
      Map.of("n", 3L));

  private static LuaSandbox.Result probe() throws InterruptedException {
    return LuaSandbox.run(LuaSandbox.compile(PROBE, "probe"), new LinkedHashMap<>(PROBE_BINDINGS), PROBE_LIMITS,
        LAZY);
  }

  /** The probe as a thread that never ran a script sees it. */
  private static List<Object> pristine() throws Exception {
    AtomicReference<List<Object>> seen = new AtomicReference<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread t = Thread.ofPlatform().start(() -> {
      try {
        assertThat(LuaState.ofThisThread()).isNull();
        LuaSandbox.Result r = probe();
        seen.set(List.of(r.value(), r.printed()));
      } catch (Throwable e) {
        failure.set(e);
      }
    });
    t.join();
    assertThat(failure.get()).isNull();
    return seen.get();
  }

  static List<String> adversaries() {
    return List.of(
        "leaked = 'yes'",
        "_G.leaked = 1 rawset(_G, 'leaked2', 2)",
        "for i = 1, 200 do _G['g' .. i] = i end leaked = 1",
        "_G[1] = 'x' _G[2.5] = 'y' _G[true] = 'z' _G[print] = 1",
        "_G = nil leaked = 1",
        "_G = { leaked = 1 }",
        "rawset(_G, '_G', { leaked = 1 })",
        "print = function() return 'mine' end",
        "print = nil",
        "string = nil",
        "string = { upper = function() return 'hacked' end }",
        "rawset(_G, 'string', nil)",
        "string.upper = function() return 'hacked' end math.floor = nil rawset(table, 'insert', 1) bit32.band = print",
        "function string.trim(s) return s end string.upper = nil string.upper = 'x'",
        "for i = 1, 100 do string['k' .. i] = i end for i = 1, 100 do string['k' .. i] = nil end",
        "local t = _G for k in pairs(t) do t[k] = nil end",
        "next = nil pairs = nil tostring = function() return 'x' end type = nil",
        "error = nil pcall = nil xpcall = function() return 'mine' end",
        "setmetatable(_G, { __index = function() return 'x' end })",
        "setmetatable(string, { __index = function() return 'x' end })",
        "getmetatable('').__index = { upper = function() return 'hacked' end }",
        "local m = getmetatable(string) m.__index = {}",
        "_ENV = { leaked = 1 }",
        "local _ENV = { print = print } leaked = 1",
        "local secret = 'old' counter = function() secret = secret .. 'x' return secret end return { f = counter }",
        "leaked = 1 string.x = 1 return function() return leaked end",
        "it = ('a b c'):gmatch('%a') it() leaked = it",
        "leaked = 1 string.x = 1 error('boom')",
        "leaked = 1 error({ leaked = 2 })",
        "pcall(function() leaked = 1 error('x') end)",
        "xpcall(function() leaked = 1 error('x') end, function() leaked2 = 2 end)",
        "leaked = 1 string.upper = nil while true do end",
        "leaked = {} local t = leaked while true do t[#t + 1] = { string.rep('m', 100) } end",
        "leaked = string.rep('x', 1000) leaked2 = leaked .. leaked",
        "leaked = 1 local s = string.rep('x', 1e9)",
        "for i = 1, 2000 do print(string.rep('p', 100)) end leaked = 1",
        "local function f(n) return 1 + f(n + 1) end leaked = 1 return { f(1) }",
        "local function f(n) leaked = n return f(n + 1) + 1 end f(1)",
        "coroutine.create(function() leaked = 1 end)",
        "collectgarbage() leaked = 1",
        "state.count = 99 state.extra = 'x' input.n = 0 loop = 'mine'",
        "state = nil input = nil leaked = 1",
        "rawset(state, 'count', 99) setmetatable(state, nil)",
        "return state",
        "return { t = _G }",
        "local t = setmetatable({}, { __gc = function() leaked = 1 end, __mode = 'k' }) leaked2 = t");
  }

  @ParameterizedTest(name = "{index}: {0}")
  @MethodSource("adversaries")
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aScriptLeavesNothingForTheNextScriptOnItsThread(String adversary) throws Exception {
    List<Object> expected = pristine();
    Map<String, Object> bindings = new LinkedHashMap<>();
    bindings.put("state", Map.of("count", 5L));
    bindings.put("input", Map.of("n", 9L));
    bindings.put("loop", Map.of("iteration", 2L));
    runExpectingAnyScriptOutcome(adversary, bindings,
        new LuaSandbox.Limits(1_000_000, 1 << 20, 4L << 20));

    LuaSandbox.Result r = probe();

    assertThat(List.of(r.value(), r.printed())).isEqualTo(expected);
  }

  @Test
  void aStopByInterruptionLeavesNothingEither() throws Exception {
    List<Object> expected = pristine();
    Thread.currentThread().interrupt();
    assertThatThrownBy(() -> LuaSandbox.run(LuaSandbox.compile("leaked = 1 string.x = 1 while true do end", "a"),
        Map.of(), DEFAULT, LAZY)).isInstanceOf(InterruptedException.class);
    Thread.interrupted();

    LuaSandbox.Result r = probe();

    assertThat(List.of(r.value(), r.printed())).isEqualTo(expected);
  }

  /** A script that only reads, or creates globals of its own, leaves the thread's state in use: none is rebuilt. */
  @Test
  void theThreadsStateIsReusedByTheNextExecution() throws Exception {
    String[] scripts = {"return { count = state.count + 1 }", "count = state.count return { count = count + 1 }",
        "local t = {} for i = 1, 100 do t[i] = i end string.x = 1 print('p') return { count = #t }",
        "error('boom')", "while true do end"};
    LuaSandbox.run(LuaSandbox.compile("return {}", "first"), Map.of(), DEFAULT, LAZY);
    LuaState state = LuaState.ofThisThread();
    assertThat(state).isNotNull();
    for (int i = 0; i < 200; i++) {
      runExpectingAnyScriptOutcome(scripts[i % scripts.length], new LinkedHashMap<>(Map.of("state",
          Map.of("count", (long) i))), new LuaSandbox.Limits(100_000, 1 << 20, 1 << 20));
      assertThat(LuaState.ofThisThread()).as("after " + scripts[i % scripts.length]).isSameAs(state);
    }
  }

  /** What cannot be put back exactly (a fixed global replaced, the globals grown) is dropped and built anew. */
  @Test
  void aStateThatCannotBePutBackAsNewIsReplaced() throws Exception {
    for (String script : List.of("_G = nil", "for i = 1, 200 do _G['g' .. i] = i end", "string = nil",
        "print = function() end", "local function f() return 1 + f() end f()")) {
      LuaSandbox.run(LuaSandbox.compile("return {}", "first"), Map.of(), DEFAULT, LAZY);
      LuaState before = LuaState.ofThisThread();
      runExpectingAnyScriptOutcome(script, Map.of(), DEFAULT);
      LuaSandbox.run(LuaSandbox.compile("return {}", "next"), Map.of(), DEFAULT, LAZY);
      assertThat(LuaState.ofThisThread()).as(script).isNotNull().isNotSameAs(before);
    }
  }

  /** The limits hold on a reused state: each execution counts from zero, so it gets its whole allowance. */
  @Test
  void everyExecutionOnAReusedStateGetsItsWholeLimits() throws Exception {
    LuaSandbox.Limits limits = new LuaSandbox.Limits(20_000, 5000, 1 << 20);
    String nearTheLimits = """
        local held = {}
        for i = 1, 3000 do held[i] = { i } end
        local s = string.rep('x', 4000)
        return { n = #held, s = #s }
        """;
    for (int i = 0; i < 50; i++) {
      assertThat(LuaSandbox.run(LuaSandbox.compile(nearTheLimits, "near"), Map.of(), limits, LAZY).value())
          .isEqualTo(Map.of("n", 3000L, "s", 4000L));
    }
    assertThatThrownBy(() -> LuaSandbox.run(LuaSandbox.compile("for i = 1, 30000 do end", "over"), Map.of(), limits,
        LAZY)).isInstanceOfSatisfying(LuaSandbox.LimitExceeded.class, e -> assertThat(e.limit)
        .isEqualTo("max_instructions"));
    assertThatThrownBy(() -> LuaSandbox.run(LuaSandbox.compile("local s = string.rep('x', 6000)", "over"), Map.of(),
        limits, LAZY)).isInstanceOfSatisfying(LuaSandbox.LimitExceeded.class, e -> assertThat(e.limit)
        .isEqualTo("max_string_bytes"));
    assertThatThrownBy(() -> LuaSandbox.run(LuaSandbox.compile("local t = {} while true do t[#t + 1] = {} end",
        "over"), Map.of(), new LuaSandbox.Limits(100_000_000, 5000, 1 << 20), LAZY))
        .isInstanceOfSatisfying(LuaSandbox.LimitExceeded.class, e -> assertThat(e.limit).isEqualTo("max_memory"));
    assertThat(LuaSandbox.run(LuaSandbox.compile(nearTheLimits, "near"), Map.of(), limits, LAZY).value())
        .isEqualTo(Map.of("n", 3000L, "s", 4000L));
  }

  /** Threads, platform and virtual, each keep a state of their own; none sees another's globals. */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void concurrentThreadsKeepTheirOwnStates() throws Exception {
    String script = """
        local before = mine
        mine = id
        string.owner = id
        return { before = tostring(before), owner = tostring(rawget(string, 'owner')), id = id, count = state.count }
        """;
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    Map<LuaState, Boolean> states = new ConcurrentHashMap<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 24; t++) {
      String id = "thread-" + t;
      Runnable work = () -> {
        try {
          for (int i = 0; i < 300; i++) {
            Map<String, Object> bindings = new LinkedHashMap<>();
            bindings.put("state", Map.of("count", (long) i));
            bindings.put("id", id);
            Object r = LuaSandbox.run(LuaSandbox.compile(script, "s"), bindings, DEFAULT, LAZY).value();
            assertThat(r).isEqualTo(Map.of("before", "nil", "owner", id, "id", id, "count", (long) i));
          }
          states.put(LuaState.ofThisThread(), Boolean.TRUE);
        } catch (Throwable e) {
          failures.add(e);
        }
      };
      threads.add(t % 2 == 0 ? Thread.ofPlatform().start(work) : Thread.ofVirtual().start(work));
    }
    for (Thread t : threads) {
      t.join();
    }

    assertThat(failures).isEmpty();
    assertThat(states).hasSize(threads.size()); // LuaState keeps Object's identity equality
  }

  /** Bindings are converted on first read; a write before that read still wins, a nil included. */
  @Test
  void aBindingKeyWrittenBeforeItIsReadKeepsTheWrite_bugLazyNilWriteLost() throws Exception {
    Map<String, Object> bindings = new LinkedHashMap<>();
    bindings.put("state", Map.of("count", 5L, "name", "n", "list", List.of(1L, 2L)));
    Object r = LuaSandbox.run(LuaSandbox.compile("""
        state.count = nil
        state.name = 'mine'
        local keys = 0
        for k in pairs(state) do keys = keys + 1 end
        return { count = tostring(state.count), name = state.name, keys = keys, list = #state.list }
        """, "w"), bindings, DEFAULT, LAZY).value();

    assertThat(r).isEqualTo(Map.of("count", "nil", "name", "mine", "keys", 2L, "list", 2L));
  }

  private static void runExpectingAnyScriptOutcome(String code, Map<String, Object> bindings,
      LuaSandbox.Limits limits) throws Exception {
    try {
      LuaSandbox.run(LuaSandbox.compile(code, "adversary"), bindings, limits, LAZY);
    } catch (LuaError | LuaSandbox.LimitExceeded expected) {
      // how a script ends does not matter here, only what it leaves behind
    }
  }
}
