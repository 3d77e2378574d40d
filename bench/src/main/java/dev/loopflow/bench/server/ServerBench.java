package dev.loopflow.bench.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server load benchmark (bench/README.md): {@code loopflow server} as its own process on SQLite, then in each
 * repetition, on a fresh server: a warm-up; the live-events case (a {@link Workflows#TICKER} run unwatched, the same
 * run watched by the clients, unwatched again); and the concurrent-runs case. One JSON line per measured step goes to
 * stdout, a Markdown summary to {@code --out}. Any failed check (a client missed, repeated or reordered an event; a
 * run did not complete right; a request failed; the server logged a database error) is printed to stderr and the
 * exit status is 1: the benchmark shows that nothing is lost, not only how fast.
 *
 * <p>Options: {@code live|runs|all} (default all), {@code --reps R} (3), {@code --clients N} (200: 30% join while
 * the run is under way, 30% drop and resume up to {@code --max-drops} (4) times, 5% stop reading once for
 * {@code --stall-ms} (3000), the rest connect as the run starts), {@code --passes P}
 * (1000) and {@code --pause S} (0.002 s of shell sleep per pass), {@code --runs N} (100), {@code --jar} (the CLI's
 * shaded jar), {@code --jvm-args "..."} (the server JVM's options), {@code --seed}, {@code --out FILE}.
 */
public final class ServerBench {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Log lines that mean a database or server error; any is a failure. */
  private static final Pattern LOG_ERROR = Pattern.compile(
      "(?i)(SQLITE_BUSY|database is locked|SQLITE_LOCKED|Exception|\\bERROR\\b)");

  /**
   * The JVM options the {@code loopflow} launcher starts the CLI with (keep in step with it), less its class-data
   * archive: the server is measured as users start it. {@code --jvm-args} replaces them.
   */
  static final List<String> LAUNCHER_JVM_ARGS = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
      "--enable-native-access=ALL-UNNAMED");

  private final List<Map<String, Object>> steps = new ArrayList<>();
  private final List<String> problems = new ArrayList<>();

  public static void main(String[] args) throws Exception {
    String what = "all";
    int reps = 3;
    int clients = 200;
    int maxDrops = 4;
    long stallMillis = 3000;
    int passes = 1000;
    String pause = "0.002";
    int runs = 100;
    long seed = 1;
    Path jar = Path.of("loopflow-cli/target/loopflow.jar");
    List<String> jvmArgs = LAUNCHER_JVM_ARGS;
    Path out = Path.of("bench/results/server-latest.md");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "live", "runs", "all" -> what = args[i];
        case "--reps" -> reps = Integer.parseInt(args[++i]);
        case "--clients" -> clients = Integer.parseInt(args[++i]);
        case "--max-drops" -> maxDrops = Integer.parseInt(args[++i]);
        case "--stall-ms" -> stallMillis = Long.parseLong(args[++i]);
        case "--passes" -> passes = Integer.parseInt(args[++i]);
        case "--pause" -> pause = args[++i];
        case "--runs" -> runs = Integer.parseInt(args[++i]);
        case "--seed" -> seed = Long.parseLong(args[++i]);
        case "--jar" -> jar = Path.of(args[++i]);
        case "--jvm-args" -> jvmArgs = Arrays.stream(args[++i].trim().split("\\s+")).filter(s -> !s.isEmpty())
            .toList();
        case "--out" -> out = Path.of(args[++i]);
        default -> {
          System.err.println("server bench: unknown option '" + args[i] + "'");
          System.exit(2);
        }
      }
    }
    if (!Files.isRegularFile(jar)) {
      System.err.println("server bench: no CLI jar at " + jar + " (build it: mvn -B -q -pl loopflow-cli -am package"
          + " -DskipTests)");
      System.exit(2);
    }
    int stall = clients / 20;
    int join = Math.round(clients * 0.3f);
    int reconnect = Math.round(clients * 0.3f);
    LiveEvents.Plan plan = new LiveEvents.Plan(passes, pause, clients - stall - join - reconnect, join, reconnect,
        stall, maxDrops, stallMillis, seed);
    String java = ProcessHandle.current().info().command().orElse("java");
    ServerBench b = new ServerBench();
    for (int rep = 0; rep < reps; rep++) {
      b.repetition(rep, what, plan.withSeed(seed + rep), runs, java, jvmArgs, jar);
    }
    String md = b.markdown(what, plan, runs, jvmArgs);
    if (out.getParent() != null) {
      Files.createDirectories(out.getParent());
    }
    Files.writeString(out, md);
    System.err.println(md);
    if (!b.problems.isEmpty()) {
      System.err.println("server bench: FAILED, " + b.problems.size() + " problem(s):");
      b.problems.stream().limit(100).forEach(p -> System.err.println("  " + p));
      System.exit(1);
    }
    System.err.println("server bench: every check passed");
  }

  private void repetition(int rep, String what, LiveEvents.Plan plan, int runs, String java, List<String> jvmArgs,
      Path jar) throws IOException, InterruptedException {
    Path home = Files.createTempDirectory("loopflow-server-bench");
    String token = UUID.randomUUID().toString();
    double load = ProcStats.loadAverage();
    System.err.printf(Locale.ROOT, "server bench: repetition %d, load average %.2f, home %s%n", rep + 1, load, home);
    try (ServerProcess server = ServerProcess.start(java, jvmArgs, jar, home, token);
        ProcStats stats = new ProcStats(server.pid())) {
      Target t = new Target(new Api(server.base(), token), stats);
      // Warm-up: the same paths at a smaller size, so that the measured steps see a compiled server.
      LiveEvents.Plan small = new LiveEvents.Plan(Math.max(10, plan.passes() / 5), plan.pause(), 8, 6, 6, 0,
          plan.maxDrops(), 0, plan.seed());
      Outcome warm = LiveEvents.unwatched(t, small);
      step(rep, "warmup", warm, load);
      long expected = (long) (((Number) warm.figures().getOrDefault("run_ms", 1000.0)).doubleValue() * 1e6);
      step(rep, "warmup", LiveEvents.watched(t, small, expected), load);
      step(rep, "warmup", ConcurrentRuns.run(t, Math.max(1, runs / 5)), load);
      if (!what.equals("runs")) {
        Outcome before = LiveEvents.unwatched(t, plan);
        step(rep, "live_unwatched", before, load);
        long runNanos = (long) (((Number) before.figures().getOrDefault("run_ms", 10_000.0)).doubleValue() * 1e6);
        step(rep, "live_watched", LiveEvents.watched(t, plan, runNanos), load);
        step(rep, "live_unwatched", LiveEvents.unwatched(t, plan), load);
      }
      if (!what.equals("live")) {
        step(rep, "concurrent_runs", ConcurrentRuns.run(t, runs), load);
      }
      Map<String, Object> end = new LinkedHashMap<>();
      end.put("rep", rep);
      end.put("step", "server");
      end.put("lifetime_peak_rss_mb", Stats.round(stats.lifetimePeakRssKb() / 1024.0));
      Matcher m = LOG_ERROR.matcher(server.log());
      List<String> errors = new ArrayList<>();
      while (m.find()) {
        errors.add(m.group(1));
      }
      end.put("log_errors", errors.size());
      if (!errors.isEmpty()) {
        problems.add("repetition " + (rep + 1) + ": the server logged " + errors.size() + " error(s) (" + errors
            .stream().distinct().toList() + "); see " + home.resolve("server.err"));
      }
      print(end);
      steps.add(end);
    }
  }

  private void step(int rep, String name, Outcome o, double load) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("rep", rep);
    m.put("step", name);
    m.put("load_avg_1m", load);
    m.putAll(o.figures());
    m.put("problems", o.problems().size());
    print(m);
    steps.add(m);
    o.problems().forEach(p -> problems.add("repetition " + (rep + 1) + ", " + name + ": " + p));
  }

  private static void print(Map<String, Object> m) {
    try {
      System.out.println(JSON.writeValueAsString(m));
      System.out.flush();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  // ---------------------------------------------------------------------------------------------------------
  // The Markdown summary: one column per repetition

  private String markdown(String what, LiveEvents.Plan plan, int runs, List<String> jvmArgs) {
    StringBuilder sb = new StringBuilder();
    sb.append("# loopflow server load benchmark\n\n")
        .append("Generated ").append(Instant.now()).append(" by ServerBench; server JVM options: `")
        .append(String.join(" ", jvmArgs)).append("`; ").append(Runtime.getRuntime().availableProcessors())
        .append(" CPUs; Java ").append(System.getProperty("java.version")).append(".\n\n");
    int reps = (int) steps.stream().map(s -> s.get("rep")).distinct().count();
    if (!what.equals("runs")) {
      sb.append("## ").append(plan.clients()).append(" SSE clients on one run of ").append(plan.passes())
          .append(" passes\n\n");
      sb.append(String.format(Locale.ROOT, "%d connect as the run starts, %d join while it runs, %d drop and "
          + "resume with Last-Event-ID (1 to %d times each), %d stop reading once for %d ms.%n%n",
          plan.startClients(), plan.joinClients(), plan.reconnectClients(), plan.maxDrops(), plan.stallClients(),
          plan.stallMillis()));
      table(sb, reps, List.of(
          row("load average (1 min) at start", "live_watched", s -> s.get("load_avg_1m")),
          row("events journaled", "live_watched", s -> s.get("events")),
          row("events delivered (all clients)", "live_watched", s -> s.get("deliveries")),
          row("run ms, unwatched (before / after)", "live_unwatched", s -> s.get("run_ms")),
          row("run ms, watched", "live_watched", s -> s.get("run_ms")),
          row("live latency p50 ms", "live_watched", s -> sub(s, "live_latency", "p50_ms")),
          row("live latency p95 ms", "live_watched", s -> sub(s, "live_latency", "p95_ms")),
          row("live latency p99 ms", "live_watched", s -> sub(s, "live_latency", "p99_ms")),
          row("live latency max ms", "live_watched", s -> sub(s, "live_latency", "max_ms")),
          row("from 2 s into the run: p50 / p95 / p99 / max ms", "live_watched",
              s -> sub(s, "live_latency_after_2s", "p50_ms") + " / " + sub(s, "live_latency_after_2s", "p95_ms")
                  + " / " + sub(s, "live_latency_after_2s", "p99_ms") + " / "
                  + sub(s, "live_latency_after_2s", "max_ms")),
          row("reconnects", "live_watched", s -> s.get("reconnects")),
          row("reconnect replay p50 / p95 / max ms", "live_watched", s -> triple(s, "reconnect_replay")),
          row("events missed per reconnect, p50", "live_watched", s -> s.get("reconnect_missed_events_p50")),
          row("late join replay p50 / p95 / max ms", "live_watched", s -> triple(s, "join_replay")),
          row("events replayed per late join, p50", "live_watched", s -> s.get("join_missed_events_p50")),
          row("streams closed early by the server", "live_watched", s -> s.get("server_closes")),
          row("stalled streams closed by the server", "live_watched",
              s -> s.get("stalled_clients_closed_by_server")),
          row("GET /api/runs/{id} of the finished run, p50 ms", "live_unwatched", s -> s.get("show_ms_p50")),
          row("server CPU s: unwatched", "live_unwatched", s -> s.get("server_cpu_s")),
          row("server CPU s: watched", "live_watched", s -> s.get("server_cpu_s")),
          row("of which in the kernel: watched", "live_watched", s -> s.get("server_sys_cpu_s")),
          row("server CPU, cores: unwatched", "live_unwatched", s -> s.get("server_cores")),
          row("server CPU, cores: watched", "live_watched", s -> s.get("server_cores")),
          row("clients' CPU, cores", "live_watched", s -> s.get("client_cores")),
          row("other work's CPU, cores", "live_watched", s -> s.get("other_cores")),
          row("server peak RSS MB: unwatched", "live_unwatched", s -> s.get("server_peak_rss_mb")),
          row("server peak RSS MB: watched", "live_watched", s -> s.get("server_peak_rss_mb")),
          row("failed checks", "live_watched", s -> s.get("problems"))));
    }
    if (!what.equals("live")) {
      sb.append("\n## ").append(runs).append(" runs started at once\n\n");
      table(sb, reps, List.of(
          row("POST on its own, p50 ms", "concurrent_runs", s -> s.get("post_alone_ms_p50")),
          row("POST latency p50 / p95 / max ms", "concurrent_runs", s -> triple(s, "post_latency")),
          row("all finished, ms", "concurrent_runs", s -> s.get("all_finished_ms")),
          row("runs per second", "concurrent_runs", s -> s.get("runs_per_s")),
          row("run duration p50 / max ms", "concurrent_runs", s -> sub(s, "run_duration", "p50_ms") + " / "
              + sub(s, "run_duration", "max_ms")),
          row("failed requests", "concurrent_runs", s -> s.get("failed_posts")),
          row("server CPU, cores", "concurrent_runs", s -> s.get("server_cores")),
          row("other work's CPU, cores", "concurrent_runs", s -> s.get("other_cores")),
          row("server peak RSS MB", "concurrent_runs", s -> s.get("server_peak_rss_mb")),
          row("failed checks", "concurrent_runs", s -> s.get("problems"))));
    }
    sb.append("\n");
    table(sb, reps, List.of(
        row("server lifetime peak RSS MB", "server", s -> s.get("lifetime_peak_rss_mb")),
        row("database / server errors logged", "server", s -> s.get("log_errors"))));
    sb.append("\n").append(problems.isEmpty() ? "Every check passed.\n"
        : problems.size() + " check(s) failed; the first: " + problems.getFirst() + "\n");
    return sb.toString();
  }

  private record Row(String label, String step, Function<Map<String, Object>, Object> value) {}

  private static Row row(String label, String step, Function<Map<String, Object>, Object> value) {
    return new Row(label, step, value);
  }

  private void table(StringBuilder sb, int reps, List<Row> rows) {
    sb.append("| |");
    for (int r = 1; r <= reps; r++) {
      sb.append(" rep ").append(r).append(" |");
    }
    sb.append("\n|---|").append("---:|".repeat(reps)).append("\n");
    for (Row row : rows) {
      sb.append("| ").append(row.label()).append(" |");
      for (int r = 0; r < reps; r++) {
        final int rep = r;
        List<String> cells = steps.stream()
            .filter(s -> Integer.valueOf(rep).equals(s.get("rep")) && row.step().equals(s.get("step")))
            .map(s -> String.valueOf(row.value().apply(s))).toList();
        sb.append(' ').append(cells.isEmpty() ? "–" : String.join(" / ", cells)).append(" |");
      }
      sb.append("\n");
    }
  }

  private static Object sub(Map<String, Object> s, String key, String field) {
    return s.get(key) instanceof Map<?, ?> m ? m.get(field) : null;
  }

  private static String triple(Map<String, Object> s, String key) {
    return sub(s, key, "p50_ms") + " / " + sub(s, key, "p95_ms") + " / " + sub(s, key, "max_ms");
  }
}
