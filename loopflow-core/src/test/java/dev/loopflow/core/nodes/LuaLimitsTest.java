package dev.loopflow.core.nodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Memory bombs fail the script with a one-line error naming the limit (max_string_bytes: a single string; max_memory:
 * what the script holds), with code node_failed and the limit in the error's details; scripts that build large
 * results the ordinary way stay within them. LuaMemoryBoundTest shows that the JVM does not allocate the bombs'
 * gigabytes on the way.
 */
class LuaLimitsTest {
  private static final String STRING_LIMIT = "Lua error: script exceeded its string size limit (a string of ";
  private static final String MEMORY_LIMIT = "Lua error: script exceeded its memory limit (it holds more than 8388608"
      + " bytes; max_memory is 8388608)";
  private final Loopflow engine = Loopflow.create();

  private RunResult run(String code, String fields) {
    Workflow wf = engine.parse("""
        name: limits
        nodes:
          - id: script
        %s
            run: |
              %s
        """.formatted(fields, code.strip().replace("\n", "\n      ")), "limits.yaml");
    return engine.run(wf, Map.of());
  }

  @ParameterizedTest(name = "{0}")
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
      string.rep bomb         | local s = string.rep('x', 1e9)
      string.rep with sep     | local s = ('x'):rep(1e8, 'yy')
      repeated rep            | local s = ('x'):rep(1e5):rep(1e5)
      doubling concatenation  | local s = 'x' for i = 1, 40 do s = s .. s end
      long concatenation      | local s = string.rep('x', 9e6) local t = s .. s
      table.concat            | local t, s = {}, string.rep('x', 1000) for i = 1, 20000 do t[i] = s end return { r = table.concat(t) }
      table.concat separator  | local t = {} for i = 1, 1000 do t[i] = 'x' end return { r = table.concat(t, string.rep(',', 20000)) }
      string.format           | local big = string.rep('x', 8e6) return { r = ('%s%s%s'):format(big, big, big) }
      gsub expansion          | local s = string.rep('x', 1e6) return { r = s:gsub('x', string.rep('y', 100)) }
      gsub function result    | local big = string.rep('y', 1e6) return { r = string.rep('x', 100):gsub('x', function() return big end) }
      gsub table result       | local t = { x = string.rep('y', 1e6) } return { r = string.rep('x', 100):gsub('x', t) }
      print                   | local s = string.rep('x', 1e6) while true do print(s) end
      __concat metamethod     | local big = string.rep('x', 9e6) local t = setmetatable({}, { __concat = function() return big end }) local r = big .. t .. t
      """)
  void stringBombsFailWithTheStringLimit_bugLuaStringBombsTookGigabytes(String name, String code) {
    RunResult r = run(code, "");

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("node_failed");
    assertThat(r.error().message()).startsWith("script node 'script' failed: " + STRING_LIMIT)
        .endsWith(" bytes; max_string_bytes is 16777216)").doesNotContain("\n");
    assertThat(r.error().details()).containsEntry("limit", "max_string_bytes").containsEntry("value", 16777216L);
  }

  @ParameterizedTest(name = "{0}")
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
      table growth            | local t = {} while true do t[#t + 1] = {} end
      table of tables         | local t = {} for i = 1, 1e8 do t[i] = { i, tostring(i) } end
      hash keys               | local t = {} for i = 1, 1e8 do t['k' .. i] = i end
      closures                | local t = {} for i = 1, 1e8 do t[i] = function() return i end end
      distinct strings        | local t = {} for i = 1, 1e8 do t[i] = string.rep('x', 1000) .. i end
      pattern captures        | local s, t = string.rep('x', 1e5), {} for i = 1, 1e8 do t[i] = s:match('.*', 60001) end
      upper                   | local s, t = string.rep('x', 1e5), {} for i = 1, 1e8 do t[i] = s:upper() end
      table.insert            | local t = {} while true do table.insert(t, {}) end
      rawset                  | local t = {} local i = 0 while true do i = i + 1 rawset(t, i, {}) end
      nested tables           | local t = {} while true do t = { t, t } end
      globals                 | local i = 0 while true do i = i + 1 _G['g' .. i] = {} end
      strings kept in locals  | local function f(n) local s = string.rep('x', 1e6) .. n return f(n + 1) .. s end f(1)
      """)
  void memoryBombsFailWithTheMemoryLimit_bugLuaTableBombTookGigabytes(String name, String code) {
    RunResult r = run(code, "    max_instructions: 2000000000\n    max_memory: 8388608");

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("node_failed");
    assertThat(r.error().message()).isEqualTo("script node 'script' failed: " + MEMORY_LIMIT);
    assertThat(r.error().details()).containsEntry("limit", "max_memory").containsEntry("value", 8388608L);
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void byDefaultAScriptMayHold64MiB() {
    RunResult r = run("local t = {} while true do t[#t + 1] = {} end", "    max_instructions: 2000000000");

    assertThat(r.error().message()).isEqualTo("script node 'script' failed: Lua error: script exceeded its memory "
        + "limit (it holds more than 67108864 bytes; max_memory is 67108864)");
    assertThat(r.error().details()).containsEntry("limit", "max_memory").containsEntry("value", 67108864L);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
      format width            | return { r = string.format('%099999d', 1) }                  | invalid format (width or precision too long)
      string.byte             | return { n = select('#', string.rep('x', 2e6):byte(1, -1)) } | string slice too long
      table.unpack            | return { n = select('#', table.unpack({}, 1, 1e8)) }         | too many results to unpack
      recursion               | local function f(n) return f(n + 1) + 1 end return { r = f(1) } | stack overflow (functions nested too deeply)
      """)
  void callsLuaRefusesFailWithALuaError(String name, String code, String message) {
    RunResult r = run(code, "");

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("node_failed");
    assertThat(r.error().message()).startsWith("script node 'script' failed: Lua error").endsWith(message);
    assertThat(r.error().details()).isEmpty();
  }

  @Test
  void theLimitsAreSetPerNode() {
    RunResult strings = run("return { s = string.rep('x', 2000) }", "    max_string_bytes: 1024");
    RunResult memory = run("local t = {} for i = 1, 1e6 do t[i] = {} end", "    max_memory: 1048576");

    assertThat(strings.error().message()).isEqualTo("script node 'script' failed: " + STRING_LIMIT
        + "2000 bytes; max_string_bytes is 1024)");
    assertThat(memory.error().message()).isEqualTo("script node 'script' failed: Lua error: script exceeded its "
        + "memory limit (it holds more than 1048576 bytes; max_memory is 1048576)");
    assertThat(run("return { s = #string.rep('x', 1024) }", "    max_string_bytes: 1024").state())
        .containsEntry("s", 1024L);
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
      max_string_bytes | 100        | 'max_string_bytes' must be between 1024 and 2147483647, found 100
      max_memory       | 1000       | 'max_memory' must be between 1048576 and 2147483647, found 1000
      max_memory       | 2.5        | 'max_memory' must be a whole number
      max_string_bytes | lots       | 'max_string_bytes' must be a whole number
      """)
  void limitsOutOfRangeAreLoadErrors(String field, String value, String message) {
    assertThatThrownBy(() -> engine.parse("""
        name: bad
        nodes:
          - id: script
            %s: %s
            run: return {}
        """.formatted(field, value), "bad.yaml"))
        .isInstanceOf(WorkflowInvalidException.class).hasMessageContaining(message);
  }

  @ParameterizedTest(name = "{0}")
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
      a report built line by line | local s = '' for i = 1, 5000 do s = s .. 'line ' .. i .. ' of the report, with a few words\\n' end return { n = #s }                  | 208893
      a list of 200000 records    | local t = {} for i = 1, 200000 do t[i] = { id = i, name = 'item ' .. i } end return { n = #t }                                 | 200000
      temporary tables            | local n = 0 for i = 1, 500000 do local p = { x = i, y = i } n = n + p.x - p.y end return { n = n }                            | 0
      a string just under the cap | return { n = #string.rep('x', 16 * 1024 * 1024) }                                                                               | 16777216
      gsub over a large string    | local s = string.rep('a b ', 1e6) local r, n = s:gsub('%s+', '_') return { n = n }                                             | 2000000
      """)
  void ordinaryScriptsStayWithinTheLimits(String name, String code, long expected) {
    RunResult r = run(code, "    max_instructions: 100000000");

    assertThat(r.error()).isNull();
    assertThat(r.state()).containsEntry("n", expected);
  }
}
