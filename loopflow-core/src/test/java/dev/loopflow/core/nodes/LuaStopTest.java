package dev.loopflow.core.nodes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.NodeExecution;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A Lua script stops when its node times out, when the run is cancelled and when the run times out, also while it is
 * inside a library function: each script here would run for hours (backtracking patterns over 100 KB subjects, a
 * quadratic plain search, a plain VM loop) and has an instruction limit far out of reach, so only the stop request
 * can end it. "Stops" means the script's own thread ended, not that the run gave up waiting for it; each test says
 * how it tells. No test reads the clock: a stop is told by what ran after it and by what the script's node
 * journaled, and each test's timeout only guards against a hang.
 */
class LuaStopTest {
  // A hang guard inside each test's own timeout, not a speed claim.
  private static final Duration HANG_GUARD = Duration.ofSeconds(45);
  private final Loopflow engine = Loopflow.create();

  /** Scripts that never end by themselves; {@code s} is 100 KB of 'a'. */
  static java.util.stream.Stream<String> corpus() {
    return java.util.stream.Stream.of(
      "return { r = s:find('.-.-.-.-b') }",
      "return { r = s:match('(.-)(.-)(.-)(.-)(.-)%1b') }",
      "return { r = s:find('.*.*.*.*b') }",
      "return { r = (s:gsub('aa', 'a ')):find(('%f[%w].-'):rep(4) .. 'x') }",
      "return { r = s:gsub('.-.-.-b', 'x') }",
      "for m in s:gmatch('.-.-.-.-b') do end",
      "return { r = s:find('(a*)(a*)%1%2b') }",
      "return { r = s:find(string.rep('a', 50000) .. 'b', 1, true) }",
      "return { r = (s:gsub('a', '(')):find('%b()') }",
      "local t = {} for i = 1, 200000 do t[i] = i % 1000 end while true do table.sort(t) end",
      "while true do end",
      "while true do pcall(string.find, s, '.-.-.-.-b') end");
  }

  private static String script(String code) {
    return "local s = string.rep('a', 100000)\n" + code;
  }

  private Workflow workflow(String header, String nodeFields, String code) {
    return engine.parse("""
        name: stop
        %s
        nodes:
          - id: spin
            max_instructions: 2000000000
        %s
            run: |
              %s
          - id: after
            run: |
              return { after = true }
        """.formatted(header, nodeFields, script(code).replace("\n", "\n      ")), "stop.yaml");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("corpus")
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aLongScriptIsStoppedByItsNodeTimeout_bugLuaPatternIgnoredTimeouts(String code) {
    // One slot only: 'after' can start only once the timed-out script's thread has ended and freed it.
    Workflow wf = workflow("limits: {concurrency: 1}", "    timeout: 200ms\n    allow_failure: true",
        code);

    RunResult r = engine.run(wf, RunOptions.defaults());

    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.nodes().get("spin")).containsEntry("status", "failed");
    assertThat(r.nodes().get("spin").get("error").toString()).contains("timeout", "timed out after 200ms");
    assertThat(r.state()).containsEntry("after", true);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("corpus")
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aLongScriptIsStoppedByCancel_bugLuaPatternIgnoredCancel(String code) throws Exception {
    Workflow wf = workflow("", "", code);
    CountDownLatch started = new CountDownLatch(1);
    RunHandle h = engine.start(wf, RunOptions.builder()
        .listener(e -> {
          if (e instanceof Event.NodeStarted) {
            started.countDown();
          }
        })
        .build());
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    Thread.sleep(300); // well inside the pattern function by now

    Thread canceller = Thread.ofPlatform().start(() -> h.cancel("stop it"));
    Optional<RunResult> r = h.await(HANG_GUARD);
    canceller.join();

    assertThat(r).as("stopped by the cancel (the script alone would run for hours)").isPresent();
    assertThat(r.get().status()).isEqualTo(RunStatus.CANCELLED);
    assertThat(r.get().nodes().get("spin")).containsEntry("status", "cancelled");
    assertScriptReportedItsOwnStop(r.get());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("corpus")
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aLongScriptIsStoppedByTheRunTimeout_bugLuaPatternIgnoredRunTimeout(String code) {
    Workflow wf = workflow("limits: {timeout: 300ms}", "", code);

    RunResult r = engine.run(wf, RunOptions.defaults());

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("timeout");
    assertThat(r.error().message()).startsWith("run timed out after 300ms (limits.timeout)");
    assertThat(r.nodes().get("spin")).containsEntry("status", "cancelled");
    assertScriptReportedItsOwnStop(r);
  }

  @org.junit.jupiter.api.Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aLongScriptInsideALoopBodyIsStoppedByTheRunTimeout() {
    Workflow wf = engine.parse("""
        name: loop-stop
        limits: {timeout: 300ms}
        input:
          n: {type: integer, default: 0}
        nodes:
          - name: outer
            type: while_loop
            max_iterations: 5
            condition: "state.n < 4"
            body:
              - name: spin
                max_instructions: 2000000000
                run: |
                  local s = string.rep('a', 100000)
                  return { n = s:find('.-.-.-.-b') }
        """, "loop-stop.yaml");

    RunResult r = engine.run(wf, RunOptions.defaults());

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("timeout");
    assertThat(engine.store().nodeExecutions(r.runId())).filteredOn(e -> e.position().nodeId().equals("spin"))
        .extracting(NodeExecution::status).containsExactly(NodeStatus.CANCELLED);
  }

  /** The script's node journaled its own cancellation: the script returned, it was not merely given up on. */
  private void assertScriptReportedItsOwnStop(RunResult r) {
    assertThat(engine.store().nodeExecutions(r.runId())).extracting(e -> e.position().nodeId(), NodeExecution::status)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("spin", NodeStatus.CANCELLED));
  }
}
