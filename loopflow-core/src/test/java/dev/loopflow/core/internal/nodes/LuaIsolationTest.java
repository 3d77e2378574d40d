package dev.loopflow.core.internal.nodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The libraries are shared by every script in the JVM; each execution's limits, counters and stop state are not.
 * A script that was stopped leaves nothing behind on its thread, and scripts running at the same time on other
 * threads neither see its limits nor its stop.
 */
class LuaIsolationTest {
  private static final LuaSandbox.Limits UNLIMITED = new LuaSandbox.Limits(1L << 60, 1 << 24, 64L << 20);

  private static Object run(String code, LuaSandbox.Limits limits) throws InterruptedException {
    return LuaSandbox.run(LuaSandbox.compile(code, "t"), Map.of(), limits, Set.of()).value();
  }

  @Test
  void aStoppedScriptLeavesNothingOnItsThread() throws Exception {
    assertThatThrownBy(() -> run("local s = string.rep('x', 1e9)", LuaSandbox.Limits.DEFAULT))
        .isInstanceOf(LuaSandbox.LimitExceeded.class);
    assertThatThrownBy(() -> run("local t = {} while true do t[#t + 1] = {} end",
        new LuaSandbox.Limits(2_000_000_000L, 1 << 24, 1 << 20))).isInstanceOf(LuaSandbox.LimitExceeded.class);
    assertThat(LuaGuard.current()).isNull();

    Object r = run("""
        local t = {}
        for i = 1, 20000 do t[i] = { i } end
        return { n = #t, s = #string.rep('x', 1000000), f = ('a.b'):find('.', 1, true) }
        """, LuaSandbox.Limits.DEFAULT);

    assertThat(r).isEqualTo(Map.of("n", 20000L, "s", 1000000L, "f", 2L));
    assertThat(LuaGuard.current()).isNull();
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void scriptsRunningAtTheSameTimeKeepTheirOwnLimitsAndStops() throws Exception {
    CountDownLatch spinning = new CountDownLatch(1);
    AtomicReference<Throwable> spinEnd = new AtomicReference<>();
    Thread spinner = Thread.ofPlatform().start(() -> {
      try {
        spinning.countDown();
        run("local s = string.rep('a', 100000) return { r = s:find('.-.-.-.-b') }", UNLIMITED);
      } catch (Throwable t) {
        spinEnd.set(t);
      }
    });
    AtomicReference<Throwable> limitedEnd = new AtomicReference<>();
    Thread limited = Thread.ofPlatform().start(() -> {
      try {
        run("local s = string.rep('a', 100000) return { r = s:find('.-.-.-.-b') }",
            new LuaSandbox.Limits(1_000_000L, 1 << 24, 64L << 20));
      } catch (Throwable t) {
        limitedEnd.set(t);
      }
    });
    assertThat(spinning.await(10, TimeUnit.SECONDS)).isTrue();

    // Meanwhile, on this thread: ordinary scripts using the same shared pattern functions give the right results.
    List<Object> results = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      results.add(run("""
          local words = {}
          for w in ('the quick brown fox'):gmatch('%a+') do words[#words + 1] = w end
          local s, n = ('a b  c'):gsub('%s+', '_')
          return { w = table.concat(words, ','), s = s, n = n, i = ('x = 42'):match('(%d+)') }
          """, LuaSandbox.Limits.DEFAULT));
    }
    limited.join(30_000);
    spinner.interrupt();
    spinner.join(10_000);

    assertThat(results).containsOnly(Map.of("w", "the,quick,brown,fox", "s", "a_b_c", "n", 2L, "i", "42"));
    assertThat(limitedEnd.get()).isInstanceOfSatisfying(LuaSandbox.LimitExceeded.class,
        e -> assertThat(e.limit).isEqualTo("max_instructions"));
    assertThat(spinner.isAlive()).isFalse();
    assertThat(spinEnd.get()).isInstanceOf(InterruptedException.class);
  }

  @Test
  void gmatchIteratorsKeepTheirOwnPosition() throws Exception {
    Object r = run("""
        local a, b = ('1 2 3'):gmatch('%d'), ('x y z'):gmatch('%a')
        return { a() .. b() .. a() .. b() .. b() .. a() }
        """, LuaSandbox.Limits.DEFAULT);

    assertThat(r).isEqualTo(List.of("1x2yz3"));
  }

  @Test
  void aScriptCannotReplaceTheBoundedFunctionsForOthers() throws Exception {
    run("""
        string.rep = function() return 'mine' end
        string.find = nil
        rawset(table, 'concat', print)
        xpcall = nil
        return {}
        """, LuaSandbox.Limits.DEFAULT);

    assertThatThrownBy(() -> run("return { s = ('x'):rep(1e9) }", LuaSandbox.Limits.DEFAULT))
        .isInstanceOf(LuaSandbox.LimitExceeded.class);
    assertThat(run("return { f = string.find('abc', 'b'), c = table.concat({1, 2}, '-'), x = xpcall(error, "
        + "function(m) return 'h' end) }", LuaSandbox.Limits.DEFAULT))
        .isEqualTo(Map.of("f", 2L, "c", "1-2", "x", false));
  }
}
