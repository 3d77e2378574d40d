package dev.loopflow.bench;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.store.jdbc.JdbcStores;
import dev.loopflow.testkit.PostgresServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * What the run journal costs per node completion: the two events the engine appends around a node
 * ({@code node.started}, {@code node.completed}) plus the {@link RunStore#recordNodeExecution} that makes them
 * durable in one transaction. This is the price a loop pays per pass on top of the node's own work, so it decides
 * how cheap a tight loop of small nodes can be with a durable store.
 *
 * <p>The journaled row is a pass of an LLM node inside a loop: position {@code fix[i].implement} with {@code i}
 * growing across invocations, a result with a 200-char output and usage, and a two-key state patch. Stores:
 * {@code sqlite} (WAL, {@code synchronous=NORMAL}, the default), {@code sqlite_full} ({@code synchronous=FULL}, an
 * fsync per commit) and {@code postgresql} (a throwaway local cluster from {@link PostgresServer}, which runs with
 * {@code fsync=off} and {@code synchronous_commit=off}, so it shows the cost of the round trips and the insert, not
 * of a durable commit). Rows are written to the store directly, so the engine's credential masking is not part of
 * these figures.
 *
 * <p>{@code preloaded} executions are journaled into the measured run before measuring, to show whether a
 * completion gets dearer as a run's journal grows. So that this is the only difference between the two values, each
 * trial first runs 10,000 completions against a throwaway store of the same kind (another SQLite file, another
 * PostgreSQL database) to warm the code, whatever {@code preloaded} is. The run itself is created by running a
 * one-node workflow through the engine, so its row is the one the engine writes; the benchmark then keeps
 * journaling into that run.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class StoreWriteBenchmark {
  private static final String SEED_WORKFLOW = """
      name: store-write
      nodes:
        - id: seed
          type: transform
          template: "ok"
      """;

  private static final int WARM_UP = 10_000;
  private static final String OUTPUT = text(200);
  private static final Usage USAGE = Usage.ofCall(1_200, 60, 0.00021);

  @Param({"sqlite", "sqlite_full", "postgresql"})
  public String store;

  @Param({"0", "10000"})
  public int preloaded;

  private Path directory;
  private PostgresServer postgres;
  private Journal journal;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    switch (store) {
      case "sqlite", "sqlite_full" -> directory = Files.createTempDirectory("loopflow-bench-");
      case "postgresql" -> postgres = PostgresServer.start();
      default -> throw new IllegalArgumentException("unknown store " + store);
    }
    try (RunStore warmUp = open("warmup")) {
      Journal j = new Journal(warmUp);
      for (int i = 0; i < WARM_UP; i++) {
        j.complete();
      }
    }
    journal = new Journal(open("bench"));
    for (int i = 0; i < preloaded; i++) {
      journal.complete();
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    try {
      System.out.println();
      System.out.println("run " + journal.runId + ": " + journal.runStore.nodeExecutions(journal.runId).size()
          + " node executions journaled");
      journal.runStore.close();
    } finally {
      if (postgres != null) {
        postgres.close();
      }
      if (directory != null) {
        deleteTree(directory);
      }
    }
  }

  @Benchmark
  public void nodeCompletion() {
    journal.complete();
  }

  private RunStore open(String database) {
    if (postgres != null) {
      postgres.createDatabase(database);
      return JdbcStores.open(postgres.jdbcUrl(database));
    }
    String url = "sqlite:" + directory.resolve(database + ".db") + (store.equals("sqlite_full") ? "?synchronous=full"
        : "");
    return JdbcStores.open(url);
  }

  /** One run in a store, journaling one pass of {@code fix[i].implement} per {@link #complete()}. */
  private static final class Journal {
    final RunStore runStore;
    final String runId;
    private long seq;
    private int iteration;

    Journal(RunStore runStore) {
      this.runStore = runStore;
      Loopflow engine = Loopflow.builder().store(runStore).build();
      RunResult seeded = engine.run(engine.parse(SEED_WORKFLOW, "store-write.yaml"), Map.of());
      if (seeded.status() != RunStatus.COMPLETED) {
        throw new IllegalStateException("the seed run ended " + seeded.status() + ": " + seeded.error());
      }
      runId = seeded.runId();
      seq = runStore.events(runId).stream().mapToLong(Event::seq).max().orElse(0);
    }

    void complete() {
      iteration++;
      NodePosition pos = new NodePosition(List.of(new NodePosition.LoopFrame("fix", iteration)), "implement");
      Instant started = Instant.now();
      runStore.appendEvent(new Event.NodeStarted(runId, ++seq, started, pos, "llm", 1));
      Map<String, Object> result = new LinkedHashMap<>();
      result.put("output", OUTPUT);
      result.put("provider", "openai");
      result.put("model", "gpt-4o-mini");
      result.put("usage", Map.of("input_tokens", USAGE.inputTokens(), "output_tokens", USAGE.outputTokens(),
          "cost_usd", USAGE.costUsd()));
      result.put("status", NodeStatus.COMPLETED.json());
      Instant finished = Instant.now();
      runStore.appendEvent(new Event.NodeCompleted(runId, ++seq, finished, pos, "llm", 1_350,
          OUTPUT.substring(0, 117) + "...", USAGE.inputTokens(), USAGE.outputTokens(), USAGE.costUsd(),
          OUTPUT.length()));
      Map<String, Object> statePatch = new LinkedHashMap<>();
      statePatch.put("attempt", iteration);
      statePatch.put("last_status", "implemented");
      runStore.recordNodeExecution(new NodeExecution(runId, pos, "llm", NodeStatus.COMPLETED, 1, started, finished,
          null, result, USAGE, null, null, statePatch, null));
    }
  }

  private static String text(int length) {
    String words = "The function now validates its input and returns early on an empty list; tests cover both. ";
    StringBuilder sb = new StringBuilder(length);
    while (sb.length() < length) {
      sb.append(words);
    }
    return sb.substring(0, length);
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}
