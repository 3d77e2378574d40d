package dev.loopflow.core.nodes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LuaSandboxTest {
  private final Loopflow engine = Loopflow.create();

  private RunResult runLua(String code, Map<String, ?> inputs) {
    String indented = code.strip().replace("\n", "\n      ");
    Workflow wf = engine.parse("""
        name: lua
        nodes:
          - id: script
            run: |
              %s
        """.formatted(indented), "lua.yaml");
    return engine.run(wf, inputs);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', textBlock = """
      os.execute('touch /tmp/loopflow-lua-escape')       | 'os' is not available in scripts
      io.open('/etc/passwd')                             | 'io' is not available in scripts
      luajava.bindClass('java.lang.Runtime')             | 'luajava' is not available in scripts
      require('os')                                      | 'require' is not available in scripts
      load('return 1')()                                 | 'load' is not available in scripts
      dofile('/etc/passwd')                              | 'dofile' is not available in scripts
      loadstring('return 1')()                           | 'loadstring' is not available in scripts
      debug.getinfo(1)                                   | 'debug' is not available in scripts
      package.loaded.os.execute('id')                    | 'package' is not available in scripts
      """)
  void escapeHatchesFailWithAnErrorNamingTheMissingGlobal(String code, String message) {
    RunResult r = runLua(code, Map.of());

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("node_failed");
    assertThat(r.error().node()).isEqualTo("script");
    assertThat(r.error().message()).isEqualTo("script node 'script' failed: Lua error on line 1: " + message
        + " (the sandbox offers the base functions, string, table, math and bit32)");
  }

  /** JSON has no inf or nan: a script returning one used to put the words Infinity and NaN into the run's values. */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"return { x = 1/0 }", "return { x = -1/0 }",
      "return { x = 0/0 }", "return { x = math.huge }", "return { list = { 1, 2, 0/0 } }",
      "return { deep = { deeper = { x = -math.huge } } }", "local n = 10 return { x = n / (n - 10) }",
      "return { x = 2^1024 }", "return { x = math.fmod(1, 0) }", "return { [1] = 1/0 }"})
  void aScriptReturningInfOrNanFailsSayingSo_bugInfinityAndNanBecameText(String script) {
    RunResult r = runLua(script, Map.of());
    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().message()).containsPattern("holds -?(inf|nan)").contains("not a number a workflow can carry")
        .doesNotContain("Exception");
  }

  @Test
  void finiteNumbersAtTheEdgesStillReturn() {
    RunResult r = runLua("return { big = 1.7976931348623157e308, tiny = 4.9e-324, neg = -0.5, i = 2^53 }", Map.of());
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.state()).containsEntry("big", Double.MAX_VALUE).containsEntry("tiny", Double.MIN_VALUE)
        .containsEntry("neg", -0.5);
  }

  @Test
  void theSharedStringMetatableIsHiddenFromScripts() {
    RunResult r = runLua("""
        local mt = getmetatable('')
        mt.__index = { upper = function() return 'hacked' end }
        return { up = ('x'):upper() }
        """, Map.of());

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().message()).endsWith("Lua error on line 2: index expected, got boolean");
    assertThat(runLua("return { up = ('x'):upper() }", Map.of()).state()).containsEntry("up", "X");
  }

  @Test
  void changesToTheStringLibraryDoNotLeakIntoOtherScripts() {
    RunResult first = runLua("""
        string.upper = function() return 'hacked' end
        return { own = string.upper('x'), method = ('x'):upper() }
        """, Map.of());
    assertThat(first.state()).containsEntry("own", "hacked").containsEntry("method", "X");

    RunResult second = runLua("return { fn = string.upper('x'), method = ('y'):upper(), n = ('%d'):format(7) }",
        Map.of());
    assertThat(second.state()).containsEntry("fn", "X").containsEntry("method", "Y").containsEntry("n", "7");
  }

  @Test
  void librariesAndGlobalsAreSharedOnlyReadOnlyAcrossScripts() {
    RunResult first = runLua("""
        math.floor = nil
        rawset(table, 'insert', 1)
        leaked = 'yes'
        return { mt = tostring(getmetatable(math)), g = tostring(getmetatable(_G)) }
        """, Map.of());
    assertThat(first.state()).containsEntry("mt", "false").containsEntry("g", "false");

    RunResult second = runLua("""
        local t = {}
        table.insert(t, math.floor(2.5))
        return { floor = t[1], leaked = tostring(leaked), same = tostring(_G == _ENV) }
        """, Map.of());
    assertThat(second.state()).containsEntry("floor", 2L).containsEntry("leaked", "nil")
        .containsEntry("same", "true");
  }

  @Test
  void theLoopVariableReadsAndIteratesLikeAPlainTable() {
    Workflow wf = engine.parse("""
        name: lua-loop
        input:
          n: {type: integer, default: 0}
        nodes:
          - name: outer
            type: while_loop
            max_iterations: 2
            condition: "state.n < 4"
            body:
              - name: inner
                type: while_loop
                max_iterations: 2
                on_exhausted: continue
                condition: "state.n < 4"
                body:
                  - name: step
                    run: |
                      local keys = {}
                      for k in pairs(loop) do keys[#keys + 1] = k end
                      table.sort(keys)
                      local before = rawget(loop, 'iteration')
                      loop.iteration = 99
                      return { n = state.n + 1, keys = table.concat(keys, ','), own = loop.iteration,
                               parent = loop.parent.iteration, raw = before }
        """, "lua-loop.yaml");
    RunResult r = engine.run(wf, Map.of());

    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.state()).containsEntry("n", 4L).containsEntry("own", 99L).containsEntry("parent", 2L)
        .containsEntry("keys", "id,index,iteration,max,parent,prev,user_input,user_values")
        .containsEntry("raw", 2L);
  }

  @Test
  void endlessLoopIsStoppedByTheInstructionLimit() {
    Workflow wf = engine.parse("""
        name: spin
        nodes:
          - id: spin
            max_instructions: 100000
            run: |
              while true do end
        """, "spin.yaml");

    RunResult r = engine.run(wf, Map.of());

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().message())
        .isEqualTo("script node 'spin' failed: Lua error: script exceeded its instruction limit (100000 instructions)");
  }

  @Test
  @org.junit.jupiter.api.Timeout(30)
  void pcallCannotSwallowTheInstructionLimit() {
    Workflow wf = engine.parse("""
        name: spin
        nodes:
          - id: spin
            max_instructions: 100000
            run: |
              while true do
                pcall(function() while true do end end)
              end
        """, "spin.yaml");

    RunResult r = engine.run(wf, Map.of());

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().message())
        .isEqualTo("script node 'spin' failed: Lua error: script exceeded its instruction limit (100000 instructions)");
  }

  @Test
  void scriptWithinTheLimitCompletes() {
    RunResult r = runLua("""
        local sum = 0
        for i = 1, 1000 do sum = sum + i end
        return { sum = sum }
        """, Map.of());

    assertThat(r.state()).containsEntry("sum", 500500L);
  }

  @Test
  void printsAreCapturedInStdoutAndDoNotChangeTheResult() {
    RunResult r = runLua("""
        print('hello', 42)
        print('second line')
        return { count = state.count + 1 }
        """, Map.of("count", 1));

    assertThat(r.error()).isNull();
    assertThat(r.nodes().get("script"))
        .containsEntry("stdout", "hello\t42\nsecond line\n")
        .containsEntry("output", Map.of("count", 2L));
    assertThat(r.state()).containsEntry("count", 2L);
  }

  @Test
  void returnedTableIsMergedIntoState() {
    RunResult r = runLua("""
        return { total = state.a + state.b, list = { 'x', 'y' }, nested = { ok = true } }
        """, Map.of("a", 2, "b", 3, "untouched", "yes"));

    assertThat(r.state())
        .containsEntry("a", 2)
        .containsEntry("untouched", "yes")
        .containsEntry("total", 5L)
        .containsEntry("list", List.of("x", "y"))
        .containsEntry("nested", Map.of("ok", true));
  }

  @Test
  void scriptReturningNothingLeavesStateAlone() {
    RunResult r = runLua("local x = 1", Map.of("keep", 1));

    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.state()).containsExactly(Map.entry("keep", 1));
  }

  @Test
  void scriptReturningANonTableFailsWithAClearMessage() {
    RunResult r = runLua("return 42", Map.of());

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().message()).contains("a script must return a table/dict (merged into state) or nothing, "
        + "returned 42");
  }

  @Test
  void scriptsSeeStateAndInputButCannotChangeTheInputs() {
    Workflow wf = engine.parse("""
        name: two
        nodes:
          - id: first
            run: |
              input.name = 'changed'
              state.name = 'changed too'
              return { seen = input.name }
          - id: second
            type: transform
            template: "{{ input.name }}/{{ state.name }}"
        """, "two.yaml");

    RunResult r = engine.run(wf, Map.of("name", "original"));

    assertThat(r.state()).containsEntry("seen", "changed");
    assertThat(r.output()).isEqualTo("original/original");
  }

  @Test
  void runtimeErrorNamesTheLine() {
    RunResult r = runLua("""
        local t = nil
        return { x = t.field }
        """, Map.of());

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().message()).isEqualTo("script node 'script' failed: Lua error on line 2: "
        + "attempt to index ? (a nil value)");
  }
}
