package dev.loopflow.bench;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.store.jdbc.JdbcStores;
import dev.loopflow.testkit.PostgresServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;

/**
 * Whether a looping run stays linear with a durable store: runs a real workflow through the engine, a loop whose
 * body is one Lua {@code script} node adding 1 to {@code state.count}, for N = 100, 1,000 and 10,000 passes, and
 * reports per store the wall time, the time per pass and the journal written per pass (medians of three runs per
 * N). If a pass cost more the more passes its run had already journaled, µs per pass would rise with N, and the
 * last tenth of a run's passes would be slower than its first tenth.
 *
 * <p>{@code while_loop} allows at most 1,000 passes, so the workflow nests two: an inner loop of at most 100 passes
 * ({@code on_exhausted: continue}) inside an outer loop, both running while {@code state.count < input.n}. The
 * shape is the same for every N: N passes of the script node and N/100 of the inner loop node.
 *
 * <p>Columns: wall time of {@code Loopflow.run} (run setup and finish included); that time per pass, with the
 * smallest and largest of the three runs; the mean time per pass within the first and the last tenth of the passes
 * (from the {@code node.completed} events' timestamps); journal rows (node executions and events) per pass; and
 * journal bytes per pass: the summed {@code LENGTH} of {@code lf_node_executions}' {@code input_json},
 * {@code result_json}, {@code usage_json}, {@code state_patch_json}, {@code sessions_json} and {@code path} and of
 * {@code lf_events.body} for the run, read with plain JDBC. The in-memory store is the baseline: the engine's own
 * cost, with nothing written.
 *
 * <p>Stores: {@code memory}, {@code sqlite} (WAL, {@code synchronous=NORMAL}), {@code sqlite_full}
 * ({@code synchronous=FULL}) and {@code postgresql} (a throwaway local cluster from {@link PostgresServer}, run
 * with {@code fsync=off}). Each store gets one warm-up run of 10,000 passes first. Arguments name the stores to
 * run; none means all four.
 */
public final class JournalGrowth {
  static final String WORKFLOW = """
      name: journal-growth
      limits: {max_steps: 100000}
      input:
        n: {type: integer}
        count: {type: integer, default: 0}
      nodes:
        - name: outer
          type: while_loop
          max_iterations: 1000
          condition: "state.count < input.n"
          body:
            - name: inner
              type: while_loop
              max_iterations: 100
              on_exhausted: continue
              condition: "state.count < input.n"
              body:
                - name: increment
                  run: |
                    return { count = state.count + 1 }
      edges:
        - {from: __start__, to: outer}
        - {from: outer, to: __end__}
      """;

  private static final int[] SIZES = {100, 1_000, 10_000};
  private static final int WARM_UP = 10_000;
  private static final int REPEATS = 3;
  private static final List<String> STORES = List.of("memory", "sqlite", "sqlite_full", "postgresql");

  private JournalGrowth() {}

  public static void main(String[] args) throws Exception {
    List<String> stores = args.length == 0 ? STORES : Arrays.asList(args);
    for (String s : stores) {
      if (!STORES.contains(s)) {
        throw new IllegalArgumentException("unknown store '" + s + "'; use any of " + STORES);
      }
    }
    System.out.println("| store | N | wall ms | µs/pass (min–max) | µs/pass, first tenth | µs/pass, last tenth "
        + "| rows/pass | bytes/pass |");
    System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (String s : stores) {
      try (Target target = Target.open(s)) {
        Loopflow engine = Loopflow.builder().store(target.store).build();
        Workflow wf = engine.parse(WORKFLOW, "journal-growth.yaml");
        run(engine, wf, WARM_UP);
        for (int n : SIZES) {
          List<Sample> samples = new ArrayList<>();
          for (int i = 0; i < REPEATS; i++) {
            samples.add(sample(target, engine, wf, n));
          }
          Sample last = samples.getLast();
          System.out.printf(Locale.ROOT, "| %s | %,d | %,.0f | %.0f (%.0f–%.0f) | %.0f | %.0f | %.2f | %s |%n", s, n,
              median(samples, Sample::wallMillis), median(samples, Sample::perPass),
              samples.stream().mapToDouble(Sample::perPass).min().orElseThrow(),
              samples.stream().mapToDouble(Sample::perPass).max().orElseThrow(),
              median(samples, Sample::firstTenth), median(samples, Sample::lastTenth), (double) last.rows() / n,
              last.bytes() < 0 ? "–" : String.format(Locale.ROOT, "%.0f", (double) last.bytes() / n));
        }
      }
    }
  }

  /** One run of {@code n} passes: wall ms, µs per pass overall and within the first and last tenth, journal size. */
  private record Sample(double wallMillis, double perPass, double firstTenth, double lastTenth, long rows,
      long bytes) {}

  private static Sample sample(Target target, Loopflow engine, Workflow wf, int n) throws SQLException {
    long t0 = System.nanoTime();
    RunResult r = run(engine, wf, n);
    double ms = (System.nanoTime() - t0) / 1e6;
    target.store.flush();
    List<Event> events = target.store.events(r.runId());
    List<Instant> completed = events.stream()
        .filter(e -> e instanceof Event.NodeCompleted c && c.node().nodeId().equals("increment"))
        .map(Event::at).toList();
    if (completed.size() != n) {
      throw new IllegalStateException("expected " + n + " completions of the script node, found " + completed.size());
    }
    int tenth = n / 10;
    double first = micros(completed.get(0), completed.get(tenth - 1)) / (tenth - 1);
    double last = micros(completed.get(n - tenth), completed.get(n - 1)) / (tenth - 1);
    long rows = target.store.nodeExecutions(r.runId()).size() + events.size();
    return new Sample(ms, ms * 1000 / n, first, last, rows, target.journalBytes(r.runId()));
  }

  private static double median(List<Sample> samples, ToDoubleFunction<Sample> f) {
    double[] v = samples.stream().mapToDouble(f).sorted().toArray();
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  private static RunResult run(Loopflow engine, Workflow wf, int n) {
    RunResult r = engine.run(wf, Map.of("n", n));
    Object count = r.state() == null ? null : r.state().get("count");
    if (r.status() != RunStatus.COMPLETED || !(count instanceof Number c) || c.intValue() != n) {
      throw new IllegalStateException("run of " + n + " passes ended " + r.status() + " with count " + count + ": "
          + r.error());
    }
    return r;
  }

  private static double micros(Instant from, Instant to) {
    return Duration.between(from, to).toNanos() / 1e3;
  }

  /** A store under test, with what it needs torn down and how to read its tables. */
  private static final class Target implements AutoCloseable {
    final RunStore store;
    private final String jdbcUrl;
    private final Path directory;
    private final PostgresServer postgres;

    private Target(RunStore store, String jdbcUrl, Path directory, PostgresServer postgres) {
      this.store = store;
      this.jdbcUrl = jdbcUrl;
      this.directory = directory;
      this.postgres = postgres;
    }

    static Target open(String kind) throws IOException {
      return switch (kind) {
        case "memory" -> new Target(RunStore.inMemory(), null, null, null);
        case "sqlite", "sqlite_full" -> {
          Path dir = Files.createTempDirectory("loopflow-growth-");
          Path file = dir.resolve("journal.db");
          String url = "sqlite:" + file + (kind.equals("sqlite_full") ? "?synchronous=full" : "");
          yield new Target(JdbcStores.open(url), "jdbc:sqlite:" + file, dir, null);
        }
        case "postgresql" -> {
          PostgresServer pg = PostgresServer.start();
          try {
            pg.createDatabase("growth");
            String url = pg.jdbcUrl("growth");
            yield new Target(JdbcStores.open(url), url, null, pg);
          } catch (RuntimeException e) {
            pg.close();
            throw e;
          }
        }
        default -> throw new IllegalArgumentException("unknown store " + kind);
      };
    }

    /** Journal bytes of a run, or -1 for the in-memory store. */
    long journalBytes(String runId) throws SQLException {
      if (jdbcUrl == null) {
        return -1;
      }
      try (Connection c = DriverManager.getConnection(jdbcUrl)) {
        return sum(c, "SELECT COALESCE(SUM(COALESCE(LENGTH(input_json), 0) + COALESCE(LENGTH(result_json), 0) "
            + "+ COALESCE(LENGTH(usage_json), 0) + COALESCE(LENGTH(state_patch_json), 0) "
            + "+ COALESCE(LENGTH(sessions_json), 0) + LENGTH(path)), 0) FROM lf_node_executions WHERE run_id = ?",
            runId)
            + sum(c, "SELECT COALESCE(SUM(LENGTH(body)), 0) FROM lf_events WHERE run_id = ?", runId)
            + sum(c, "SELECT COALESCE(SUM(LENGTH(body)), 0) FROM lf_values WHERE run_id = ?", runId);
      }
    }

    private static long sum(Connection c, String sql, String runId) throws SQLException {
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setString(1, runId);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return rs.getLong(1);
        }
      }
    }

    @Override
    public void close() throws IOException {
      try {
        store.close();
      } finally {
        if (postgres != null) {
          postgres.close();
        }
        if (directory != null) {
          deleteTree(directory);
        }
      }
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
}
