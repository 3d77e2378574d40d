package dev.loopflow.bench.langgraph4j;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;

/**
 * The LangGraph4j runner of {@code bench/PROTOCOL.md}: performs one workload, prints one JSON line per timed
 * repetition and a summary line on stdout, and exits 0; on a wrong final state or any exception it explains on
 * stderr and exits non-zero.
 */
public final class Runner {

  static final String ENGINE = "langgraph4j";
  static final int EXIT_FAILED = 1;
  static final int EXIT_USAGE = 2;

  private Runner() {}

  public static void main(String[] args) {
    int status = run(args, System.out, System.err);
    System.out.flush();
    // Exits explicitly: the JDK HttpClient's selector thread and the like must not keep W4's process alive.
    System.exit(status);
  }

  /** Everything but the exit, so tests can run workloads in-process and read what would go to stdout and stderr. */
  static int run(String[] args, PrintStream out, PrintStream err) {
    Options options;
    try {
      options = Options.parse(args);
    } catch (IllegalArgumentException e) {
      err.println("langgraph4j-runner: " + e.getMessage());
      err.println(Options.USAGE);
      return EXIT_USAGE;
    }
    try {
      execute(options, out);
      return 0;
    } catch (Exception | Error e) {
      err.println("langgraph4j-runner: " + options.workload() + " n=" + options.n() + " failed: " + e);
      e.printStackTrace(err);
      return EXIT_FAILED;
    }
  }

  private static void execute(Options options, PrintStream out) throws Exception {
    Workload workload = build(options);
    for (int i = 0; i < options.warmup(); i++) {
      workload.run("warmup-" + i);
    }
    for (int rep = 0; rep < options.reps(); rep++) {
      Workload.Measurement measured = workload.run("rep-" + rep);
      out.println(repetitionLine(options, rep, measured));
      out.flush();
    }
    out.println(summaryLine(options));
    out.flush();
  }

  private static Workload build(Options options) throws Exception {
    return switch (options.workload()) {
      case "W1" -> new CounterLoop(options.n());
      case "W2" -> new ReviewLoop(options.n());
      case "W3" -> {
        Files.createDirectories(options.dir());
        yield new DurableCounter(options.n(), options.dir());
      }
      case "W4" -> new LlmReviewLoop(options.n(), options.runs(), options.url());
      case "W5" -> new Similarity(options.n());
      case "W6" -> new ColdStart();
      default -> throw new IllegalArgumentException("unknown workload " + options.workload());
    };
  }

  static JsonLine repetitionLine(Options options, int rep, Workload.Measurement measured) {
    double wallMs = measured.wallNanos() / 1e6;
    JsonLine line = header(options)
        .put("rep", rep)
        .put("wall_ms", wallMs)
        .put("iterations", measured.iterations())
        .put("us_per_iter", wallMs * 1000 / measured.iterations());
    if (measured.bytes() >= 0) {
      line.put("bytes", measured.bytes())
          .put("bytes_per_iter", (double) measured.bytes() / measured.iterations());
    }
    return line;
  }

  static JsonLine summaryLine(Options options) {
    return header(options)
        .put("summary", true)
        .put("peak_rss_kb", peakRssKb())
        .put("versions", versions());
  }

  private static JsonLine header(Options options) {
    return new JsonLine().put("engine", ENGINE).put("workload", options.workload()).put("n", options.n());
  }

  /** The process's high-water resident set ({@code VmHWM}), or null where /proc is not there to ask. */
  static Long peakRssKb() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.substring("VmHWM:".length()).replace("kB", "").trim());
        }
      }
    } catch (IOException | NumberFormatException e) {
      System.err.println("langgraph4j-runner: cannot read VmHWM from /proc/self/status: " + e);
    }
    return null;
  }

  /**
   * The versions actually on the class path, read from the artifacts' own Maven metadata rather than from
   * constants that could drift from the POM.
   */
  static Map<String, Object> versions() {
    Map<String, Object> versions = new LinkedHashMap<>();
    versions.put("langgraph4j-core", artifactVersion("org.bsc.langgraph4j", "langgraph4j-core"));
    versions.put("langchain4j", artifactVersion("dev.langchain4j", "langchain4j-open-ai"));
    versions.put("commons-text", artifactVersion("org.apache.commons", "commons-text"));
    // The protocol shows "25.0.3": the version numbers without the build and opt parts of Runtime.version().
    List<Integer> numbers = Runtime.version().version();
    versions.put("java", numbers.stream().map(String::valueOf).collect(Collectors.joining(".")));
    return versions;
  }

  private static String artifactVersion(String groupId, String artifactId) {
    String resource = "/META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties";
    try (InputStream in = Runner.class.getResourceAsStream(resource)) {
      if (in == null) {
        return "unknown";
      }
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version", "unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }
}
