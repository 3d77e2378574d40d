package dev.loopflow.bench.harness;

import dev.loopflow.testkit.FakeOpenAiServer;
import dev.loopflow.testkit.Reply;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs loopflow and its peers on the workloads of bench/PROTOCOL.md in one session and writes the results table.
 *
 * <p>Interleaving: for every case (workload and size), each round runs every engine once, one process each, in a
 * rotated order; a process does its own warm-up repetitions and then its timed ones. Drift of the machine during
 * the session therefore reaches every engine alike. Figures are medians over all timed repetitions of all rounds,
 * with the smallest and largest; ratios are the peer's median over loopflow's.
 *
 * <p>Arguments: {@code --rounds R} (default 3), {@code --quick} (smaller sizes and fewer rounds, for a check that
 * everything runs), {@code --only W1,W3} (a subset of the workloads), {@code --out FILE} (the Markdown table; default
 * bench/results/latest.md).
 */
public final class Compare {
  private record Engine(String name, List<String> command) {}

  private record Case(String workload, int n, List<String> extra, int warmup, int reps) {}

  private record Sample(String engine, Case c, Map<String, Object> line) {}

  /** W4's fake server answers every chat completion after 50 ms. */
  private static final Reply DELAYED = new Reply.Delayed(Duration.ofMillis(50), Reply.text("fine"));
  private FakeOpenAiServer llm;
  private final Path root;
  private final String java;
  private final List<Sample> samples = new ArrayList<>();
  private final Map<String, Map<String, Object>> summaries = new TreeMap<>();
  private final Map<String, List<Double>> processWallMs = new LinkedHashMap<>();
  private final List<String> failures = new ArrayList<>();

  private Compare(Path root, String java) {
    this.root = root;
    this.java = java;
  }

  public static void main(String[] args) throws Exception {
    int rounds = 3;
    boolean quick = false;
    List<String> only = null;
    Path out = Path.of("bench/results/latest.md");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--quick" -> quick = true;
        case "--only" -> only = Arrays.asList(args[++i].split(","));
        case "--out" -> out = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown option '" + args[i] + "'");
      }
    }
    if (quick) {
      rounds = Math.min(rounds, 1);
    }
    String java = ProcessHandle.current().info().command().orElse("java");
    Compare c = new Compare(Path.of("").toAbsolutePath(), java);
    c.run(rounds, quick, only, out);
  }

  /**
   * The JVM options the {@code loopflow} launcher starts the CLI with (collector, compiler tiers, heap sizing), so
   * that loopflow's runner measures the speed and memory a user of the CLI gets. Read from the launcher's
   * {@code JVM_OPTS=(...)} line: its {@code -X} options, without the class-data archive ones, which name a file of
   * the CLI's own jar.
   */
  static List<String> launcherJvmFlags(Path launcher) {
    List<String> lines;
    try {
      lines = Files.readAllLines(launcher);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read the launcher " + launcher + ": " + e.getMessage(), e);
    }
    for (String line : lines) {
      String l = line.strip();
      if (!l.startsWith("JVM_OPTS=(") || !l.endsWith(")")) {
        continue;
      }
      List<String> flags = new ArrayList<>();
      for (String word : l.substring("JVM_OPTS=(".length(), l.length() - 1).strip().split("\\s+")) {
        if (word.startsWith("-X") && !word.contains("Shared") && !word.contains("cds") && !word.contains("aot")
            && !word.contains("$") && !word.startsWith("-Xlog")) {
          flags.add(word);
        }
      }
      return flags;
    }
    throw new IllegalStateException("the launcher " + launcher + " has no 'JVM_OPTS=(...)' line to read its JVM "
        + "options from");
  }

  /**
   * The LangGraph4j runner's command: the same JVM options as loopflow's runner (collector, compiler tiers, heap
   * sizing), so that both JVM engines are measured on the same JVM settings and a difference in wall time or peak
   * RSS is the engines', not the flags'. Before, LangGraph4j ran on the JVM's defaults (G1, both compilers, an
   * initial heap of 1/64 of the machine's memory) and loopflow on the launcher's.
   */
  static List<String> langGraph4jCommand(String java, Path root) {
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    cmd.addAll(launcherJvmFlags(root.resolve("loopflow")));
    cmd.addAll(List.of("-jar", root.resolve("bench/langgraph4j/target/langgraph4j-runner.jar").toString()));
    return cmd;
  }

  private List<Engine> engines(String workload) {
    String cp = root.resolve("bench/target/benchmarks.jar").toString();
    List<String> lf = new ArrayList<>();
    lf.add(java);
    lf.addAll(launcherJvmFlags(root.resolve("loopflow")));
    lf.addAll(List.of("-cp", cp, LoopflowRunner.class.getName()));
    List<Engine> all = new ArrayList<>();
    if (!workload.equals("W6")) {
      all.add(new Engine("loopflow-yaml", concat(lf, "--variant", "yaml")));
      if (!workload.equals("W5")) {
        all.add(new Engine("loopflow-api", concat(lf, "--variant", "api")));
      }
    }
    if (workload.equals("W3") && hasPostgres()) {
      all.add(new Engine("loopflow-yaml-postgresql", concat(lf, "--variant", "yaml", "--store", "postgresql")));
    }
    if (workload.equals("W6")) {
      all.add(new Engine("loopflow-cli", List.of(root.resolve("loopflow").toString(), "run",
          root.resolve("bench/workloads/w6-three-nodes.yaml").toString())));
    }
    if (workload.equals("W3")) {
      all.add(new Engine(CLI_W3, List.of(root.resolve("loopflow").toString(), "run", "--quiet",
          root.resolve("bench/workloads/w3-counter.yaml").toString())));
    }
    all.add(new Engine("langgraph4j", langGraph4jCommand(java, root)));
    if (!workload.equals("W5")) {
      all.add(new Engine("langgraph-js", List.of("node", root.resolve("bench/js/runner.mjs").toString())));
    }
    return all;
  }

  /** Debian's PostgreSQL server binaries, which the runner starts a throwaway cluster from. */
  private static boolean hasPostgres() {
    try (var dirs = Files.newDirectoryStream(Path.of("/usr/lib/postgresql"))) {
      for (Path d : dirs) {
        if (Files.isExecutable(d.resolve("bin/postgres"))) {
          return true;
        }
      }
    } catch (IOException e) {
      // not installed
    }
    return false;
  }

  private static List<String> concat(List<String> a, String... more) {
    List<String> l = new ArrayList<>(a);
    l.addAll(List.of(more));
    return l;
  }

  private List<Case> cases(boolean quick, List<String> only) {
    List<Case> all = new ArrayList<>();
    // Warm-up is sized in iterations, not repetitions: about 20,000 loop iterations before timing, so that a small
    // N measures a warmed engine as a large one does (JIT compilation takes thousands of passes).
    for (int n : quick ? new int[] {10, 1000} : new int[] {10, 1000, 10_000}) {
      all.add(new Case("W1", n, List.of(), Math.max(2, Math.min(200, 20_000 / n)), 5));
    }
    for (int n : quick ? new int[] {100} : new int[] {100, 1000, 10_000}) {
      all.add(new Case("W2", n, List.of(), n >= 10_000 ? 0 : Math.max(2, Math.min(50, 10_000 / n)),
          n >= 10_000 ? 1 : 5));
    }
    for (int n : quick ? new int[] {100} : new int[] {100, 1000}) {
      all.add(new Case("W3", n, List.of(), 2, 3));
    }
    all.add(new Case("W4", 5, List.of("--runs", quick ? "50" : "500"), 1, 3));
    all.add(new Case("W5", 10_000, List.of(), 5, 10));
    all.add(new Case("W6", 3, List.of(), 0, 1));
    return all.stream().filter(c -> only == null || only.contains(c.workload())).toList();
  }

  private void run(int rounds, boolean quick, List<String> only, Path out) throws Exception {
    Instant started = Instant.now();
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      llm = server;
      llm.defaultReply(DELAYED);
      for (Case c : cases(quick, only)) {
        List<Engine> engines = engines(c.workload());
        for (int r = 0; r < rounds; r++) {
          for (int k = 0; k < engines.size(); k++) {
            Engine e = engines.get((k + r) % engines.size());
            runOne(e, c, llm.baseUrl());
          }
        }
        System.err.println("done " + c.workload() + " n=" + c.n());
      }
    }
    String table = table(started, rounds);
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, table);
    System.out.println(table);
    if (!failures.isEmpty()) {
      System.err.println("failures:\n  " + String.join("\n  ", failures));
      System.exit(1);
    }
  }

  private void runOne(Engine e, Case c, String url) throws IOException, InterruptedException {
    // The CLI is one engine name for two workloads: W3's counter (timed at n = 0 and N) and W6's cold start.
    if (e.name().equals(CLI_W3) && c.workload().equals("W3")) {
      cliCounter(e, c);
      return;
    }
    if (c.workload().equals("W6")) {
      // A cold start is one process; several per round give the median something to work with.
      for (int i = 0; i < 4; i++) {
        runProcess(e, c, url);
      }
      return;
    }
    if (c.workload().equals("W4")) {
      llm.reset();
      llm.defaultReply(DELAYED);
    }
    runProcess(e, c, url);
  }

  /** W3 through the CLI: the engine's name in the table. */
  static final String CLI_W3 = "loopflow-cli";
  private final java.util.Set<String> cliWarmed = new java.util.HashSet<>();

  /**
   * W3 through the CLI (bench/PROTOCOL.md): `loopflow run` of the counter at n = 0 and at n = N, one process each,
   * back to back; µs per iteration is the difference of their wall times over N, so that JVM start-up, opening the
   * store and the run's fixed rows are not spread over the iterations. One sample per pair, {@code reps} pairs, so
   * that the median and the spread say how much one pair can be trusted. The first time, one untimed run at n = N
   * lets the launcher write its class-data archive from a run that loads what the timed runs load (an archive
   * written by a run at n = 0 lacks the loop's and Lua's classes, and the archive is written only once per build).
   */
  private void cliCounter(Engine e, Case c) throws IOException, InterruptedException {
    if (cliWarmed.add(c.workload() + "|" + c.n())) {
      cliRun(e, c, c.n());
    }
    for (int rep = 0; rep < c.reps(); rep++) {
      double[] base = cliRun(e, c, 0);
      double[] full = cliRun(e, c, c.n());
      if (base == null || full == null) {
        return;
      }
      Map<String, Object> line = new LinkedHashMap<>();
      line.put("wall_ms", full[0]);
      line.put("iterations", c.n());
      line.put("us_per_iter", (full[0] - base[0]) * 1000 / c.n());
      line.put("process_us_per_iter", full[0] * 1000 / c.n());
      line.put("bytes", full[1]);
      line.put("bytes_per_iter", full[1] / c.n());
      samples.add(new Sample(e.name(), c, line));
    }
  }

  /**
   * One `loopflow run` of the counter at {@code n} in a new LOOPFLOW_HOME: its wall time in ms and the bytes of the
   * default store's files it left; null when it failed or its final count is wrong (recorded as a failure).
   */
  private double[] cliRun(Engine e, Case c, int n) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(e.command());
    cmd.addAll(List.of("--input", "n=" + n));
    Path home = Files.createTempDirectory("bench-home-");
    Path stderr = Files.createTempFile("bench-stderr-", ".txt");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(stderr.toFile());
    pb.environment().put("LOOPFLOW_HOME", home.toString());
    long t0 = System.nanoTime();
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int exit = p.waitFor();
    double wallMs = (System.nanoTime() - t0) / 1e6;
    String key = e.name() + "|" + c.workload() + "|" + c.n();
    if (exit != 0 || !out.contains("\"count\":" + n + "}")) {
      List<String> err = Files.readAllLines(stderr);
      failures.add(key + ": exit " + exit + " at n=" + n + " (" + String.join(" ", cmd) + "): " + out.strip() + " "
          + String.join(" | ", err.subList(Math.max(0, err.size() - 3), err.size())));
      return null;
    }
    Files.deleteIfExists(stderr);
    long bytes;
    try (var files = Files.walk(home)) {
      bytes = files.filter(Files::isRegularFile).filter(f -> f.getFileName().toString().contains(".db"))
          .mapToLong(f -> f.toFile().length()).sum();
    }
    return new double[] {wallMs, bytes};
  }

  private void runProcess(Engine e, Case c, String url) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(e.command());
    if (!e.name().equals("loopflow-cli")) {
      cmd.addAll(List.of(c.workload(), "--n", String.valueOf(c.n()), "--warmup", String.valueOf(c.warmup()),
          "--reps", String.valueOf(c.reps())));
      cmd.addAll(c.extra());
      if (c.workload().equals("W4")) {
        cmd.addAll(List.of("--url", url));
      }
      if (c.workload().equals("W3")) {
        Path dir = Files.createTempDirectory("bench-w3-");
        cmd.addAll(List.of("--dir", dir.toString()));
      }
    }
    Path stderr = Files.createTempFile("bench-stderr-", ".txt");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(stderr.toFile());
    pb.environment().put("LOOPFLOW_HOME", Files.createTempDirectory("bench-home-").toString());
    long t0 = System.nanoTime();
    Process p = pb.start();
    List<String> lines = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        lines.add(line);
      }
    }
    int exit = p.waitFor();
    double wallMs = (System.nanoTime() - t0) / 1e6;
    String key = e.name() + "|" + c.workload() + "|" + c.n();
    if (exit != 0 && !(c.workload().equals("W5") && exit == 2)) {
      List<String> err = Files.readAllLines(stderr);
      failures.add(key + ": exit " + exit + " (" + String.join(" ", cmd) + "): "
          + String.join(" | ", err.subList(Math.max(0, err.size() - 3), err.size())));
      return;
    }
    Files.deleteIfExists(stderr);
    processWallMs.computeIfAbsent(key, k -> new ArrayList<>()).add(wallMs);
    for (String line : lines) {
      if (!line.startsWith("{")) {
        continue; // the CLI prints its result, not protocol lines
      }
      Map<String, Object> m = Json.read(line);
      if (Boolean.TRUE.equals(m.get("summary"))) {
        Map<String, Object> prev = summaries.get(key);
        long rss = ((Number) m.get("peak_rss_kb")).longValue();
        if (prev == null || ((Number) prev.get("peak_rss_kb")).longValue() < rss) {
          summaries.put(key, m);
        }
      } else if (m.containsKey("us_per_iter")) {
        samples.add(new Sample(e.name(), c, m));
      }
    }
  }

  private static double median(List<Double> v) {
    List<Double> s = v.stream().sorted().toList();
    int n = s.size();
    return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
  }

  private List<Double> values(String engine, String workload, int n, String field) {
    List<Double> out = new ArrayList<>();
    for (Sample s : samples) {
      if (s.engine().equals(engine) && s.c().workload().equals(workload) && s.c().n() == n
          && s.line().get(field) instanceof Number v) {
        out.add(v.doubleValue());
      }
    }
    return out;
  }

  private String table(Instant started, int rounds) {
    StringBuilder sb = new StringBuilder();
    sb.append("# Side-by-side results\n\n");
    sb.append("Session started ").append(started).append(", ").append(rounds).append(" round(s), engines interleaved.\n\n");
    sb.append(Machine.describe()).append("\n\n");
    sb.append("Versions:\n");
    Map<String, Object> versions = new TreeMap<>();
    summaries.values().forEach(m -> {
      if (m.get("versions") instanceof Map<?, ?> v) {
        v.forEach((k, val) -> {
          if (!k.equals("store")) {
            versions.put(String.valueOf(k), val);
          }
        });
      }
    });
    versions.forEach((k, v) -> sb.append("- ").append(k).append(": ").append(v).append('\n'));
    sb.append("\nµs per iteration (W4: per LLM call; W5: per comparison), median (min–max) over all timed "
        + "repetitions; ratio = engine median / loopflow-api median (W5: / loopflow-yaml).\n\n");
    sb.append("| workload | N | engine | median | min–max | ratio | peak RSS MB | notes |\n");
    sb.append("|---|---:|---|---:|---:|---:|---:|---|\n");
    Map<String, List<String>> seen = new LinkedHashMap<>();
    for (Sample s : samples) {
      seen.computeIfAbsent(s.c().workload() + "|" + s.c().n(), k -> new ArrayList<>());
      List<String> engines = seen.get(s.c().workload() + "|" + s.c().n());
      if (!engines.contains(s.engine())) {
        engines.add(s.engine());
      }
    }
    // W6 is timed as whole processes; the CLI prints its result, not protocol lines.
    processWallMs.keySet().stream().filter(k -> k.contains("|W6|")).forEach(k -> {
      String[] parts = k.split("\\|");
      List<String> engines = seen.computeIfAbsent("W6|" + parts[2], x -> new ArrayList<>());
      if (!engines.contains(parts[0])) {
        engines.add(parts[0]);
      }
    });
    for (Map.Entry<String, List<String>> e : seen.entrySet()) {
      String workload = e.getKey().split("\\|")[0];
      int n = Integer.parseInt(e.getKey().split("\\|")[1]);
      String base = workload.equals("W5") ? "loopflow-yaml" : "loopflow-api";
      List<Double> baseValues = values(base, workload, n, "us_per_iter");
      double baseMedian = baseValues.isEmpty() ? Double.NaN : median(baseValues);
      List<String> engines = new ArrayList<>(e.getValue());
      engines.sort(String::compareTo);
      for (String engine : engines) {
        List<Double> v = values(engine, workload, n, "us_per_iter");
        if (workload.equals("W6")) {
          v = processWallMs.getOrDefault(engine + "|W6|" + n, List.of());
        }
        double med = median(v);
        double min = v.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
        double max = v.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        Map<String, Object> sum = summaries.get(engine + "|" + workload + "|" + n);
        String rss = sum == null ? "–" : String.format(Locale.ROOT, "%.0f",
            ((Number) sum.get("peak_rss_kb")).doubleValue() / 1024);
        String notes = "";
        if (workload.equals("W3")) {
          List<Double> b = values(engine, workload, n, "bytes_per_iter");
          notes = b.isEmpty() ? "" : String.format(Locale.ROOT, "%.0f bytes/iter", median(b));
          if (engine.equals(CLI_W3)) {
            notes += String.format(Locale.ROOT, "; (wall(N) − wall(0)) / N; whole process %s µs/iter",
                fmt(median(values(engine, workload, n, "process_us_per_iter"))));
          }
        } else if (workload.equals("W4")) {
          List<Double> wall = values(engine, workload, n, "wall_ms");
          notes = String.format(Locale.ROOT, "batch wall %.0f ms (%.2f× the 500 ms critical path)", median(wall),
              median(wall) / 500.0);
        } else if (workload.equals("W6")) {
          notes = "ms, whole process";
        }
        String ratio = workload.equals("W6") ? "" : String.format(Locale.ROOT, "%.1f×", med / baseMedian);
        sb.append(String.format(Locale.ROOT, "| %s | %,d | %s | %s | %s–%s | %s | %s | %s |%n", workload, n, engine,
            fmt(med), fmt(min), fmt(max), ratio, rss, notes));
      }
    }
    if (!failures.isEmpty()) {
      sb.append("\nFailed: ").append(String.join("; ", failures)).append('\n');
    }
    return sb.toString();
  }

  private static String fmt(double v) {
    if (Double.isNaN(v)) {
      return "–";
    }
    return v >= 100 ? String.format(Locale.ROOT, "%,.0f", v) : String.format(Locale.ROOT, "%.2f", v);
  }

  /** What the table was measured on. */
  static final class Machine {
    private Machine() {}

    static String describe() {
      String cpu = "?";
      try {
        cpu = Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
            .findFirst().map(l -> l.substring(l.indexOf(':') + 1).strip()).orElse("?");
      } catch (IOException e) {
        // not Linux
      }
      long memGb = -1;
      try {
        memGb = Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith("MemTotal"))
            .findFirst().map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")) / 1024 / 1024).orElse(-1L);
      } catch (IOException e) {
        // not Linux
      }
      String node = "?";
      try {
        Process p = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
        node = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      } catch (IOException e) {
        // no node
      }
      return "Machine: " + Runtime.getRuntime().availableProcessors() + " CPUs, " + cpu + ", " + memGb
          + " GiB RAM, " + System.getProperty("os.name") + " " + System.getProperty("os.version") + "; Java "
          + Runtime.version() + " (" + System.getProperty("java.vm.name") + "); Node.js " + node;
    }
  }
}
