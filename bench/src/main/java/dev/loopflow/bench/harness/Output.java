package dev.loopflow.bench.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** Writes a runner's JSON lines (bench/PROTOCOL.md) to stdout. */
final class Output {
  private final String engine;
  private final String workload;
  private final int n;

  Output(String engine, String workload, int n) {
    this.engine = engine;
    this.workload = workload;
    this.n = n;
  }

  void rep(int rep, long nanos, long iterations, Map<String, ?> extra) {
    Map<String, Object> m = head();
    m.put("rep", rep);
    m.put("wall_ms", nanos / 1e6);
    m.put("iterations", iterations);
    m.put("us_per_iter", nanos / 1e3 / iterations);
    m.putAll(extra);
    System.out.println(Json.write(m));
    System.out.flush();
  }

  void summary(Map<String, ?> versions) {
    Map<String, Object> m = head();
    m.put("summary", true);
    m.put("peak_rss_kb", peakRssKb());
    m.put("versions", versions);
    System.out.println(Json.write(m));
    System.out.flush();
  }

  private Map<String, Object> head() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("engine", engine);
    m.put("workload", workload);
    m.put("n", n);
    return m;
  }

  /** The process's resident-set high-water mark, or -1 where /proc is not there. */
  static long peakRssKb() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (IOException | NumberFormatException e) {
      // not Linux: reported as unknown
    }
    return -1;
  }
}
