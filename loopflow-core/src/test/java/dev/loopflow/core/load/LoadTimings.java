package dev.loopflow.core.load;

import dev.loopflow.core.Loopflow;

/**
 * A standalone measurement of loading, by hand (it is not a test, and no test asserts a duration): loads each
 * generated shape at 1,000, 5,000 and 20,000 nodes a few times and prints the best time. Run it from the IDE or with
 * the test class path; the figures are in docs/benchmarks.md.
 */
public final class LoadTimings {
  private LoadTimings() {}

  public static void main(String[] args) {
    Loopflow engine = Loopflow.builder().build();
    int[] sizes = args.length == 0 ? new int[] {1_000, 5_000, 20_000}
        : java.util.Arrays.stream(args).mapToInt(Integer::parseInt).toArray();
    // Warm the JIT on a mid-sized workflow of every shape first.
    for (LargeWorkflows.Shape s : LargeWorkflows.Shape.values()) {
      engine.parse(s.source.apply(2_000), "warm.yaml");
    }
    for (LargeWorkflows.Shape s : LargeWorkflows.Shape.values()) {
      for (int n : sizes) {
        String src = s.source.apply(n);
        long best = Long.MAX_VALUE;
        for (int rep = 0; rep < 3; rep++) {
          long t = System.nanoTime();
          engine.parse(src, "timed.yaml");
          best = Math.min(best, System.nanoTime() - t);
        }
        System.out.printf("%-12s %6d nodes %8d ms%n", s, n, best / 1_000_000);
      }
    }
  }
}
