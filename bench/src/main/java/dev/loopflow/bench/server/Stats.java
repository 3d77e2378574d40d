package dev.loopflow.bench.server;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/** Percentiles of a sample of durations in nanoseconds, reported in milliseconds (or of plain counts). */
final class Stats {
  private long[] values = new long[1024];
  private int count;

  void add(long nanos) {
    if (count == values.length) {
      values = Arrays.copyOf(values, count * 2);
    }
    values[count++] = nanos;
  }

  int count() {
    return count;
  }

  /** p50, p95, p99 and max in ms (nearest rank), and the count; empty map values are null when no sample. */
  Map<String, Object> summary() {
    long[] v = Arrays.copyOf(values, count);
    Arrays.sort(v);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("n", count);
    m.put("p50_ms", ms(v, 0.50));
    m.put("p95_ms", ms(v, 0.95));
    m.put("p99_ms", ms(v, 0.99));
    m.put("max_ms", count == 0 ? null : round(v[count - 1] / 1e6));
    return m;
  }

  /** The raw value at quantile {@code q} (nearest rank), or null when there is no sample. */
  Long quantile(double q) {
    if (count == 0) {
      return null;
    }
    long[] v = Arrays.copyOf(values, count);
    Arrays.sort(v);
    return v[Math.max(0, (int) Math.ceil(q * count) - 1)];
  }

  private static Double ms(long[] sorted, double q) {
    if (sorted.length == 0) {
      return null;
    }
    int rank = (int) Math.ceil(q * sorted.length);
    return round(sorted[Math.max(0, rank - 1)] / 1e6);
  }

  static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }
}
