package dev.loopflow.core.internal.nodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.luaj.vm2.LuaError;

/**
 * What the sandbox's pattern functions do where luaj 3.0.1 was wrong (so the differential test leaves those cases
 * out), stated from the Lua 5.2 manual, plus the limits Lua itself puts on patterns.
 */
class LuaPatternsTest {
  /** The values of a Lua expression: strings quoted, numbers and booleans as they are, separated by spaces. */
  private static String eval(String expression) throws InterruptedException {
    LuaSandbox.Result r = LuaSandbox.run(LuaSandbox.compile("""
        local v = table.pack(%s)
        local out = {}
        for i = 1, v.n do
          out[i] = type(v[i]) == 'string' and "'" .. v[i] .. "'" or tostring(v[i])
        end
        return { v = table.concat(out, ' ') }
        """.formatted(expression), "t"), Map.of(), LuaSandbox.Limits.DEFAULT, Set.of());
    return (String) ((Map<?, ?>) r.value()).get("v");
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
      ('a b'):match('%g+')                                       | 'a'
      ('\\t x'):find('%g')                                        | 3 3
      ('ab c'):find('%G')                                         | 3 3
      ('THE (quick) fox'):find('%f[%a]%a+%f[%A]')                 | 1 3
      ('THE (quick) fox'):gsub('%f[%w]%w+', '<%0>')               | '<THE> (<quick>) <fox>' 3
      ('aaa'):find('%f[^%w]', 2)                                  | 4 3
      ('x1'):find('%f[%z]')                                       | 3 2
      ('abc'):match('^%f[%a]()')                                  | 1
      ('aa'):find('()%1')                                         | nil
      ('caf\\195\\169'):match('%a+')                               | 'caf'
      ('^_{~'):match('%p+')                                       | '^_{~'
      ('\\v'):find('%s')                                          | 1 1
      ('a,b'):gsub(',', '%x')                                     | 'axb' 1
      ('ab'):find('', 10)                                         | 3 2
      ('ab'):rep(3, ', ')                                         | 'ab, ab, ab'
      ('ab'):rep(0)                                               | ''
      ('ab'):rep(-1)                                              | ''
      """)
  void followsTheManualWhereLuajDidNot(String expression, String expected) throws Exception {
    assertThat(eval(expression)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
      ('abc'):gmatch('')                 | ,,,
      ('aaa'):gmatch('a*')               | aaa,
      ('a,b,,c'):gmatch('([^,]*)')       | a,,b,,,c,
      ('^a^'):gmatch('^a')               | ^a
      """)
  void gmatchMovesOnAfterAnEmptyMatch(String iterator, String expected) throws Exception {
    LuaSandbox.Result r = LuaSandbox.run(LuaSandbox.compile("""
        local out = {}
        for m in %s do out[#out + 1] = m end
        return { v = table.concat(out, ',') }
        """.formatted(iterator), "t"), Map.of(), LuaSandbox.Limits.DEFAULT, Set.of());

    assertThat(((Map<?, ?>) r.value()).get("v")).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
      ('a'):gsub('a', 'x%')                          | invalid use of '%' in replacement string
      ('a'):rep(40):find(('(a)'):rep(33))           | too many captures
      ('a'):rep(300):find(('a?'):rep(300))          | pattern too complex
      ('a'):find('%')                               | malformed pattern (ends with '%')
      ('a'):find('[a')                              | malformed pattern (missing ']')
      ('a'):find('(a')                              | unfinished capture
      ('a'):match('a)')                             | invalid pattern capture
      ('a'):find('%b')                              | malformed pattern (missing arguments to '%b')
      ('a'):find('%fa')                             | missing '[' after '%f' in pattern
      ('a'):find('(a)%2')                           | invalid capture index %2
      ('a'):gsub('a', '%1%2')                       | invalid capture index %2
      ('a'):gsub('a', {a = {}})                     | invalid replacement value (a table)
      """)
  void malformedPatternsAndReplacementsRaiseLuaErrors(String expression, String message) {
    assertThatThrownBy(() -> eval(expression)).isInstanceOf(LuaError.class).hasMessageEndingWith(message);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
      ('a'):rep(100000):find(('a'):rep(99999) .. '.')             | 1 100000
      ('a'):rep(100000):find(('a'):rep(100000), 1, true)          | 1 100000
      (('('):rep(5000) .. (')'):rep(5000)):find('%b()')          | 1 10000
      ('ab'):rep(50000):find(('(a)(b)'):rep(16))                  | 1 32 'a' 'b' 'a' 'b' 'a' 'b' 'a' 'b' 'a' 'b' 'a' 'b' 'a' 'b' 'a' 'b' 'a' 'b' 'a' 'b' 'a' 'b' 'a' 'b' 'a' 'b' 'a' 'b' 'a' 'b' 'a' 'b'
      """)
  void longSubjectsAndPatternsNeedNoDeepRecursion(String expression, String expected) throws Exception {
    assertThat(eval(expression)).isEqualTo(expected);
  }
}
