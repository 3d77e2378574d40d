package dev.loopflow.core.internal.nodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The library functions replaced or wrapped for the limits still compute what luaj computed. */
class LuaBoundedLibraryTest {
  private static Object run(String code, LuaSandbox.Limits limits) throws InterruptedException {
    return LuaSandbox.run(LuaSandbox.compile(code, "t"), Map.of(), limits, Set.of()).value();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
      table.concat({1, 'b', 3.5}, ', ')                                  | 1, b, 3.5
      table.concat({'a', 'b', 'c'}, '-', 2)                              | b-c
      table.concat({'a', 'b', 'c'}, '-', 3, 2)                           | ''
      table.concat(setmetatable({}, {__index = function(t, k) return 'v' .. k end}), ',', 1, 3) | v1,v2,v3
      string.format('[%5d][%-3d][%x][%s]', 42, 7, 255, 'z')                | [   42][7  ][ff][z]
      string.char(104, 105)                                              | hi
      select('#', string.byte('hello', 1, -1))                           | 5
      select('#', string.byte('hello', 2, 1e9))                          | 4
      select('#', table.unpack({1, 2, 3}))                               | 3
      (function() local t = {3, 1, 2} table.sort(t) return table.concat(t) end)()                      | 123
      (function() local t = {'b', 'c', 'a'} table.sort(t, function(a, b) return a > b end) return table.concat(t) end)() | cba
      (function() local t = {} table.insert(t, 'a') table.insert(t, 1, 'b') return table.concat(t) end)() | ba
      table.pack(1, nil, 3).n                                            | 3
      (function() local t = {} rawset(t, 'k', 'v') return t.k end)()    | v
      select(2, xpcall(function() error({code = 7}) end, function(e) return e.code end)) | 7
      select(2, xpcall(function(a, b) return a + b end, print, 2, 3))   | 5
      select(2, xpcall(error, function() error('again') end))            | error in error handling
      ('x'):upper() .. ('Y'):lower() .. ('ab'):reverse() .. ('hello'):sub(2, 3) | Xybael
      """)
  void computesWhatLuajComputed(String expression, String expected) throws Exception {
    Object v = ((Map<?, ?>) run("return { v = tostring(" + expression + ") }", LuaSandbox.Limits.DEFAULT)).get("v");

    assertThat(v).isEqualTo(expected.equals("''") ? "" : expected);
  }

  @Test
  void sortComparisonsCountAsStepsAndStopTheSort() {
    // Building the table takes about 600,000 instructions; sorting it about 3,000,000 comparisons.
    String code = "local t = {} for i = 1, 100000 do t[i] = (i * 7919) % 100003 end table.sort(t)";

    assertThatThrownBy(() -> run(code, new LuaSandbox.Limits(1_000_000, 1 << 24, 64L << 20)))
        .isInstanceOfSatisfying(LuaSandbox.LimitExceeded.class, e -> assertThat(e.limit).isEqualTo("max_instructions"));
  }
}
