package dev.loopflow.bench;

import dev.loopflow.bench.harness.LoopflowRunner;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.store.RunStore;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a Lua {@code script} node costs per loop pass: W1 (the counter loop, in-memory store, N = 1,000) with the
 * counter written as a Lua script, time per pass. {@code body}: {@code api} is the counter as a Java handler (the
 * engine's own cost per pass, for reference), {@code local} the one-line script {@code return { count = state.count
 * + 1 }}, {@code global} the same through a global it sets (each execution removes it again before the next).
 * The difference between {@code local} and {@code api} is what a Lua execution costs in a pass.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class LuaExecutionBenchmark {
  private static final int N = 1000;

  @Param({"api", "local", "global"})
  public String body;

  private Loopflow engine;
  private Workflow workflow;

  @Setup
  public void setup() {
    engine = Loopflow.builder().store(RunStore.inMemory()).handler(LoopflowRunner.INCREMENT).build();
    String yaml = switch (body) {
      case "api" -> LoopflowRunner.w1(true);
      case "local" -> LoopflowRunner.w1(false);
      case "global" -> LoopflowRunner.w1(false).replace("run: return { count = state.count + 1 }",
          "run: count = state.count + 1 return { count = count }");
      default -> throw new IllegalArgumentException("unknown body '" + body + "'");
    };
    workflow = engine.parse(yaml, "w1.yaml");
  }

  @Benchmark
  @OperationsPerInvocation(N)
  public RunResult pass() {
    RunResult r = engine.run(workflow, Map.of("n", N));
    if (((Number) r.state().get("count")).intValue() != N) {
      throw new IllegalStateException("W1 counted to " + r.state().get("count"));
    }
    return r;
  }
}
