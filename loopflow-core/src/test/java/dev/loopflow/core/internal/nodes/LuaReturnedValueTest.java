package dev.loopflow.core.internal.nodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.luaj.vm2.LuaError;

/** A script's returned value is converted to Java data; whatever shape it has, that ends with a value or an error. */
class LuaReturnedValueTest {
  /** 1 MiB of memory: a returned value may reach at most 65,536 values. */
  private static final LuaSandbox.Limits LIMITS = new LuaSandbox.Limits(1_000_000, 1 << 20, 1 << 20);

  private static Object run(String code) throws InterruptedException {
    return LuaSandbox.run(LuaSandbox.compile(code, "t"), Map.of(), LIMITS, Set.of()).value();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', textBlock = """
      local t = {} t.t = t return t                                             | nests tables more than 200 deep
      return { g = _G }                                                         | nests tables more than 200 deep
      local a, b = {}, {} a.b = b b.a = a return a                              | nests tables more than 200 deep
      local t = {} local c = t for i = 1, 300 do c.x = {} c = c.x end return t  | nests tables more than 200 deep
      local t = {} for i = 1, 40 do t = { t, t } end return t                   | reaches more than 65536 values
      local t = { 1 } for i = 1, 30 do t = { a = t, b = t, c = t } end return t | reaches more than 65536 values
      """)
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void aReturnedValueThatCannotBeConvertedFailsWithAClearError_bugStackOverflowOrEndlessConversion(String code,
      String message) {
    assertThatThrownBy(() -> run(code)).isInstanceOf(LuaError.class).hasMessageContaining(message);
  }

  @Test
  void aTableReachedTwiceIsCopiedAndDeepButBoundedNestingConverts() throws Exception {
    assertThat(run("local t = { 1 } return { a = t, b = t }"))
        .isEqualTo(Map.of("a", List.of(1L), "b", List.of(1L)));
    Object nested = run("local t = { v = 1 } for i = 1, 150 do t = { x = t } end return t");
    int depth = 0;
    while (nested instanceof Map<?, ?> m && m.containsKey("x")) {
      nested = m.get("x");
      depth++;
    }
    assertThat(depth).isEqualTo(150);
    assertThat(nested).isEqualTo(Map.of("v", 1L));
    assertThat((List<?>) run("local t = {} for i = 1, 20000 do t[i] = i end return t")).hasSize(20000);
  }

  /** A returned table's metamethods run Lua code while it is converted: under the same limits as the script. */
  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void metamethodsOfAReturnedTableRunUnderTheScriptsLimits() {
    assertThatThrownBy(() -> run("return setmetatable({ 1 }, { __len = function() while true do end end })"))
        .isInstanceOfSatisfying(LuaSandbox.LimitExceeded.class, e -> assertThat(e.limit)
            .isEqualTo("max_instructions"));
  }
}
