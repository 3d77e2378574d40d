package dev.loopflow.bench;

import dev.loopflow.bench.harness.LoopflowRunner;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.observability.Observability;
import dev.loopflow.store.jdbc.JdbcStores;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What observing a run costs: W1 (the counter loop, in-memory store) and W3 (the same loop journaled to SQLite) at
 * N = 1,000 through the Java API, run with {@code observe} = {@code none} (no listener: what a run gets when no
 * {@code OTEL_*} variable is set and no metrics are kept, as on the command line), {@code metrics} (the Prometheus
 * meters the server keeps), {@code traces} (every span built and handed to the SDK's in-memory exporter by a simple
 * processor, so the export is paid on the run's thread, an upper bound of what a batch processor costs there) and
 * {@code both}. A W1 run of N = 1,000 makes about 2,030 spans (1,000 node executions, 1,000 inner passes, the outer
 * passes and loops, the run).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class TracingOverheadBenchmark {
  @Param({"W1", "W3"})
  public String workload;

  @Param({"none", "metrics", "traces", "both"})
  public String observe;

  @Param({"1000"})
  public int n;

  private Path dir;
  private RunStore store;
  private Loopflow engine;
  private Workflow wf;
  private InMemorySpanExporter spans;
  private OpenTelemetrySdk otel;
  private Observability obs;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    dir = Files.createTempDirectory("loopflow-tracing-bench-");
    store = workload.equals("W3") ? JdbcStores.open("sqlite:" + dir.resolve("w3.db")) : RunStore.inMemory();
    engine = Loopflow.builder().store(store).handler(LoopflowRunner.INCREMENT).build();
    wf = engine.parse(LoopflowRunner.w1(true), "w1.yaml");
    spans = InMemorySpanExporter.create();
    otel = OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
        .addSpanProcessor(SimpleSpanProcessor.create(spans)).build()).build();
    Observability.Builder b = Observability.builder();
    if (observe.equals("traces") || observe.equals("both")) {
      b.openTelemetry(otel);
    }
    if (observe.equals("metrics") || observe.equals("both")) {
      b.meterRegistry(Observability.prometheusRegistry());
    }
    obs = observe.equals("none") ? Observability.off() : b.build();
  }

  @Benchmark
  public long run() {
    RunResult r = engine.run(wf, obs.instrument(wf, RunOptions.builder().input("n", n)).build());
    if (r.status() != RunStatus.COMPLETED) {
      throw new IllegalStateException("run ended " + r.status() + ": " + r.error());
    }
    long exported = spans.getFinishedSpanItems().size();
    spans.reset(); // the spans of one run only: the list never grows across invocations
    return exported;
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    otel.close();
    store.close();
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
