package dev.loopflow.core.internal.nodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * While a script runs into its limits, the JVM allocates a small multiple of them, not the gigabytes the script
 * asks for. Measured as the bytes the test's own (platform) thread allocates while the sandbox runs on it, with
 * limits of 1 MiB per string and 8 MiB held; every script here would allocate at least 1 GB unbounded.
 */
class LuaMemoryBoundTest {
  private static final LuaSandbox.Limits SMALL = new LuaSandbox.Limits(2_000_000_000L, 1 << 20, 8L << 20);
  /** Eight times the memory limit: room for garbage (tables grow by doubling) and for measuring what is held. */
  private static final long BOUND = 64L << 20;
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  @BeforeAll
  static void measurable() {
    assertThat(Thread.currentThread().isVirtual()).isFalse();
    assertThat(THREADS.isThreadAllocatedMemorySupported()).isTrue();
    THREADS.setThreadAllocatedMemoryEnabled(true);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
      string.rep               | max_string_bytes | local s = string.rep('x', 1e9)
      doubling concatenation   | max_string_bytes | local s = 'x' while true do s = s .. s end
      table.concat             | max_string_bytes | local t = {} for i = 1, 2e5 do t[i] = 'xxxxxxxxxx' end return { r = table.concat(t) }
      string.format            | max_string_bytes | local b = string.rep('x', 1e6) return { r = ('%s%s'):format(b, b) }
      gsub expansion           | max_string_bytes | return { r = string.rep('x', 1e6):gsub('x', string.rep('y', 1000)) }
      print                    | max_string_bytes | local s = string.rep('x', 1e5) while true do print(s) end
      table growth             | max_memory       | local t = {} while true do t[#t + 1] = {} end
      hash growth              | max_memory       | local t = {} local i = 0 while true do i = i + 1 t['k' .. i] = i end
      closures                 | max_memory       | local t = {} local i = 0 while true do i = i + 1 t[i] = function() return i end end
      strings                  | max_memory       | local t = {} local i = 0 while true do i = i + 1 t[i] = string.rep('x', 1e5) .. i end
      pattern captures         | max_memory       | local s, t = string.rep('x', 1e5), {} while true do t[#t + 1] = s:match('(.*)', 60001) end
      """)
  void aBombStopsAtItsLimitWithoutTheJvmAllocatingIt(String name, String limit, String code) {
    long before = THREADS.getCurrentThreadAllocatedBytes();

    assertThatThrownBy(() -> LuaSandbox.run(LuaSandbox.compile(code, "bomb"), Map.of(), SMALL, Set.of()))
        .isInstanceOfSatisfying(LuaSandbox.LimitExceeded.class, e -> assertThat(e.limit).isEqualTo(limit));
    long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;

    assertThat(allocated).isLessThan(BOUND);
  }
}
