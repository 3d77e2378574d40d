package dev.loopflow.bench.harness;

import com.sun.management.OperatingSystemMXBean;
import com.sun.management.ThreadMXBean;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.similarity.Similarity;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.NodeProgram;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.store.jdbc.JdbcStores;
import dev.loopflow.testkit.PostgresServer;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.stream.Stream;

/**
 * loopflow's runner for the side-by-side harness (bench/PROTOCOL.md): the workloads as a user would write them,
 * either as YAML ({@code --variant yaml}: Lua {@code script} nodes and {@code while_loop}s) or through the Java
 * API ({@code --variant api}: the same workflow shapes with the work done by {@link NodeHandler}s written in Java).
 *
 * <p>Loops are {@code while_loop}s. A {@code while_loop}'s max_iterations is at most 1,000, so the counter nests
 * two: an inner loop of at most 100 passes ({@code on_exhausted: continue}) inside an outer loop of at most
 * 1,000, both running while {@code state.count < input.n}; every N runs the same shape (N passes of the work node
 * and about N/100 passes of the outer loop). Runs use the in-memory store except W3 (SQLite file, or PostgreSQL
 * with {@code --store postgresql}).
 */
public final class LoopflowRunner {
  static final String W1_YAML = """
      name: w1-counter
      limits: {max_steps: 1000000}
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
                  %s
      edges:
        - {from: __start__, to: outer}
        - {from: outer, to: __end__}
      """;

  static final String W2_YAML = """
      name: w2-review
      limits: {max_steps: 1000000}
      state:
        drafts: {merge: append}
      input:
        n: {type: integer}
        drafts: {type: array, default: []}
        written: {type: integer, default: 0}
        approved: {type: boolean, default: false}
      nodes:
        - name: outer
          type: while_loop
          max_iterations: 1000
          condition: "not state.approved"
          body:
            - name: inner
              type: while_loop
              max_iterations: 100
              on_exhausted: continue
              condition: "not state.approved"
              body:
                - name: coder
                  %s
                - name: reviewer
                  %s
      edges:
        - {from: __start__, to: outer}
        - {from: outer, to: __end__}
      """;

  private LoopflowRunner() {}

  public static void main(String[] args) throws Exception {
    Args a = Args.parse(args);
    String engine = "loopflow-" + a.variant;
    if (!a.variant.equals("yaml") && !a.variant.equals("api")) {
      throw new IllegalArgumentException("--variant must be yaml or api, was '" + a.variant + "'");
    }
    boolean api = a.variant.equals("api");
    Output out = new Output(engine, a.workload, a.n);
    switch (a.workload) {
      case "W1" -> counter(a, out, api, RunStore.inMemory());
      case "W2" -> review(a, out, api);
      case "W3" -> durable(a, out, api);
      case "W4" -> LlmWorkload.run(a, out, api);
      case "W5" -> similarity(a, out);
      case "W6" -> throw new IllegalArgumentException("W6 is the CLI itself: Compare times `loopflow run "
          + "bench/workloads/w6-three-nodes.yaml` as a whole process");
      case "paused" -> paused(a, out);
      default -> throw new IllegalArgumentException("unknown workload '" + a.workload + "'");
    }
    out.summary(Map.of("loopflow", version(), "java", Runtime.version().toString(), "store",
        a.workload.equals("W3") ? a.store : "memory"));
  }

  /** The version the harness was built as: the pom's, which the build writes into version.properties. */
  static String version() {
    try (InputStream in = LoopflowRunner.class.getResourceAsStream("version.properties")) {
      Properties p = new Properties();
      if (in != null) {
        p.load(in);
      }
      String v = p.getProperty("version", "");
      return v.isEmpty() || v.startsWith("${") ? "unknown" : v;
    } catch (IOException e) {
      return "unknown";
    }
  }

  /** The Java API's counter: one handler kind whose program returns {@code count + 1} as a state patch. */
  public static final NodeHandler INCREMENT = handler("bench.increment", NodeProgram.inline(ctx -> {
    Map<?, ?> state = (Map<?, ?>) ctx.scope().get("state");
    long count = ((Number) state.get("count")).longValue();
    return NodeOutcome.of(null).withStatePatch(Map.of("count", count + 1));
  }));

  static NodeHandler handler(String kind, NodeProgram program) {
    return new NodeHandler() {
      @Override
      public NodeKindSpec spec() {
        return NodeKindSpec.of(kind, null, List.of());
      }

      @Override
      public NodeProgram compile(NodeConfig config) {
        return program;
      }
    };
  }

  public static String w1(boolean api) {
    return W1_YAML.formatted(api ? "type: bench.increment" : "run: return { count = state.count + 1 }");
  }

  private static void counter(Args a, Output out, boolean api, RunStore store) {
    Loopflow engine = Loopflow.builder().store(store).handler(INCREMENT).build();
    Workflow wf = engine.parse(w1(api), "w1.yaml");
    for (int i = 0; i < a.warmup + a.reps; i++) {
      long c0 = processCpuNanos();
      long b0 = allocatedBytes();
      long t0 = System.nanoTime();
      RunResult r = engine.run(wf, Map.of("n", a.n));
      long t1 = System.nanoTime();
      long c1 = processCpuNanos();
      long b1 = allocatedBytes();
      long count = check(r, "count");
      if (count != a.n) {
        throw new IllegalStateException("W1: count is " + count + ", expected " + a.n);
      }
      if (i >= a.warmup) {
        out.rep(i - a.warmup, t1 - t0, count, cpu(c0, c1, b0, b1, count));
      }
    }
  }

  private static void review(Args a, Output out, boolean api) {
    String coder;
    String reviewer;
    Loopflow.Builder b = Loopflow.builder().store(RunStore.inMemory());
    if (api) {
      // drafts is declared merge: append, so the patch carries only the new entry and a pass costs the same at 10
      // drafts as at 10,000.
      b.handler(handler("bench.coder", NodeProgram.inline(ctx -> {
        Map<?, ?> state = (Map<?, ?>) ctx.scope().get("state");
        int size = ((List<?>) state.get("drafts")).size();
        return NodeOutcome.of(null).withStatePatch(Map.of("drafts", "draft " + (size + 1)));
      })));
      b.handler(handler("bench.reviewer", NodeProgram.inline(ctx -> {
        Map<?, ?> state = (Map<?, ?>) ctx.scope().get("state");
        int size = ((List<?>) state.get("drafts")).size();
        long n = ((Number) ((Map<?, ?>) ctx.scope().get("input")).get("n")).longValue();
        return NodeOutcome.of(null).withStatePatch(Map.of("approved", size >= n));
      })));
      coder = "type: bench.coder";
      reviewer = "type: bench.reviewer";
    } else {
      // Reading state.drafts in Lua converts the whole list, so the YAML variant counts its drafts in state.
      coder = "run: |\n                    local n = state.written + 1\n"
          + "                    return { drafts = \"draft \" .. n, written = n }";
      reviewer = "run: |\n                    return { approved = state.written >= input.n }";
    }
    Loopflow engine = b.build();
    Workflow wf = engine.parse(W2_YAML.formatted(coder, reviewer), "w2.yaml");
    for (int i = 0; i < a.warmup + a.reps; i++) {
      long c0 = processCpuNanos();
      long b0 = allocatedBytes();
      long t0 = System.nanoTime();
      RunResult r = engine.run(wf, Map.of("n", a.n));
      long t1 = System.nanoTime();
      long c1 = processCpuNanos();
      long b1 = allocatedBytes();
      Object drafts = r.state() == null ? null : r.state().get("drafts");
      if (r.status() != RunStatus.COMPLETED || !(drafts instanceof List<?> l) || l.size() != a.n
          || !("draft " + a.n).equals(l.getLast())) {
        throw new IllegalStateException("W2: run ended " + r.status() + " with drafts " + abbreviate(drafts)
            + ": " + r.error());
      }
      if (i >= a.warmup) {
        out.rep(i - a.warmup, t1 - t0, a.n, cpu(c0, c1, b0, b1, a.n));
      }
    }
  }

  /**
   * The CPU time the whole process used (every thread: the run's, the collector's, the compiler's), or -1 where the
   * JVM cannot tell. On a machine shared with other work, CPU time per iteration moves much less than wall time.
   */
  static long processCpuNanos() {
    return ManagementFactory.getOperatingSystemMXBean()
        instanceof OperatingSystemMXBean os ? os.getProcessCpuTime() : -1;
  }

  /** Bytes allocated so far by the JVM's live threads, or -1 where the JVM cannot tell. */
  static long allocatedBytes() {
    return ManagementFactory.getThreadMXBean()
        instanceof ThreadMXBean t && t.isThreadAllocatedMemorySupported()
        ? t.getTotalThreadAllocatedBytes() : -1;
  }

  /** The optional {@code cpu_us_per_iter} and {@code alloc_bytes_per_iter} fields of a repetition (PROTOCOL.md). */
  static Map<String, Object> cpu(long c0, long c1, long b0, long b1, long iterations) {
    Map<String, Object> m = new LinkedHashMap<>();
    if (c0 >= 0 && c1 >= 0) {
      m.put("cpu_us_per_iter", (c1 - c0) / 1e3 / iterations);
    }
    if (b0 >= 0 && b1 >= 0) {
      m.put("alloc_bytes_per_iter", (double) (b1 - b0) / iterations);
    }
    return m;
  }

  private static void durable(Args a, Output out, boolean api) throws IOException {
    Path dir = a.dir != null ? Path.of(a.dir) : Files.createTempDirectory("loopflow-w3-");
    Files.createDirectories(dir);
    PostgresServer pg = null;
    try {
      if (a.store.equals("postgresql")) {
        pg = PostgresServer.start();
      } else if (!a.store.equals("sqlite")) {
        throw new IllegalArgumentException("W3 --store must be sqlite or postgresql, was '" + a.store + "'");
      }
      for (int i = 0; i < a.warmup + a.reps; i++) {
        // A new journal per repetition, as the peers get a new checkpoint file per repetition: the bytes are this
        // run's alone and no repetition is slowed by the ones before it.
        Path file = dir.resolve("rep-" + i + ".db");
        String url;
        if (pg != null) {
          pg.createDatabase("w3_" + i);
          url = pg.jdbcUrl("w3_" + i);
        } else {
          url = "sqlite:" + file;
        }
        try (RunStore store = JdbcStores.open(url)) {
          Loopflow engine = Loopflow.builder().store(store).handler(INCREMENT).build();
          Workflow wf = engine.parse(w1(api), "w3.yaml");
          long t0 = System.nanoTime();
          RunResult r = engine.run(wf, Map.of("n", a.n));
          long t1 = System.nanoTime();
          long count = check(r, "count");
          if (count != a.n) {
            throw new IllegalStateException("W3: count is " + count + ", expected " + a.n);
          }
          store.flush();
          if (i >= a.warmup) {
            // SQLite: the database file and its WAL as left on disk. PostgreSQL's files are not the run's alone.
            long bytes = pg == null ? filesBytes(dir, "rep-" + i + ".db") : -1;
            out.rep(i - a.warmup, t1 - t0, count, bytes < 0 ? Map.of()
                : Map.of("bytes", bytes, "bytes_per_iter", (double) bytes / count));
          }
        }
      }
    } finally {
      if (pg != null) {
        pg.close();
      }
    }
  }

  private static long filesBytes(Path dir, String prefix) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.getFileName().toString().startsWith(prefix)).mapToLong(p -> p.toFile().length()).sum();
    }
  }

  private static void similarity(Args a, Output out) {
    Random random = new Random(42);
    String x = randomText(random, 10_000);
    String y = randomText(random, 10_000);
    for (int i = 0; i < a.warmup + a.reps; i++) {
      long t0 = System.nanoTime();
      double s = Similarity.of(x, y);
      long t1 = System.nanoTime();
      if (!(s > 0 && s < 1)) {
        throw new IllegalStateException("W5: similarity " + s);
      }
      if (i >= a.warmup) {
        out.rep(i - a.warmup, t1 - t0, 1, Map.of("similarity", s));
      }
    }
  }

  static String randomText(Random random, int length) {
    String alphabet = "abcdefghijklmnopqrstuvwxyz ";
    StringBuilder sb = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return sb.toString();
  }

  static final String PAUSED_YAML = """
      name: paused
      nodes:
        - name: draft
          run: return { draft = "a draft of some length, as a reviewer would see it" }
        - name: approve
          type: approval
          message: "Ship {{ state.draft }}?"
      edges:
        - {from: __start__, to: draft}
        - {from: draft, to: approve}
      """;

  /**
   * Memory per paused run: {@code --runs} runs that each stop at an approval, all kept by the engine's in-memory
   * store (a SQLite or PostgreSQL store keeps them on disk instead). Heap in use after a full GC, before and after,
   * divided by the number of runs.
   */
  private static void paused(Args a, Output out) {
    RunStore store = RunStore.inMemory();
    Loopflow engine = Loopflow.builder().store(store).build();
    Workflow wf = engine.parse(PAUSED_YAML, "paused.yaml");
    engine.run(wf, Map.of()); // warm up the classes the runs need
    long before = usedAfterGc();
    long t0 = System.nanoTime();
    for (int i = 0; i < a.runs; i++) {
      RunResult r = engine.run(wf, Map.of());
      if (r.status() != RunStatus.PAUSED) {
        throw new IllegalStateException("paused: run ended " + r.status() + ": " + r.error());
      }
    }
    long t1 = System.nanoTime();
    long after = usedAfterGc();
    out.rep(0, t1 - t0, a.runs, Map.of("runs", a.runs, "heap_bytes_per_paused_run",
        (after - before) / (double) a.runs));
  }

  private static long usedAfterGc() {
    Runtime rt = Runtime.getRuntime();
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      System.gc();
      used = Math.min(used, rt.totalMemory() - rt.freeMemory());
    }
    return used;
  }

  static long check(RunResult r, String key) {
    Object v = r.state() == null ? null : r.state().get(key);
    if (r.status() != RunStatus.COMPLETED || !(v instanceof Number n)) {
      throw new IllegalStateException("run ended " + r.status() + " with " + key + " = " + v + ": " + r.error());
    }
    return n.longValue();
  }

  static String abbreviate(Object o) {
    String s = String.valueOf(o);
    return s.length() > 200 ? s.substring(0, 200) + "..." : s;
  }
}
