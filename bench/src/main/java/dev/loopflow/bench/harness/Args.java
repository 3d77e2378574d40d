package dev.loopflow.bench.harness;

/** A runner's command line (bench/PROTOCOL.md). */
final class Args {
  String workload;
  String variant = "yaml";
  int n = 1000;
  int warmup = 3;
  int reps = 5;
  String url;
  int runs = 500;
  String dir;
  String store = "sqlite";

  static Args parse(String[] args) {
    if (args.length == 0) {
      throw new IllegalArgumentException("usage: <W1..W6> [--variant yaml|api] [--n N] [--warmup W] [--reps R] "
          + "[--url URL] [--runs K] [--dir DIR] [--store sqlite|postgresql]");
    }
    Args a = new Args();
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      if (!flag.startsWith("--")) {
        if (a.workload != null) {
          throw new IllegalArgumentException("two workloads given: " + a.workload + " and " + flag);
        }
        a.workload = flag;
        continue;
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(flag + " needs a value");
      }
      String v = args[++i];
      switch (flag) {
        case "--variant" -> a.variant = v;
        case "--n" -> a.n = positive(flag, v);
        case "--warmup" -> a.warmup = Integer.parseInt(v);
        case "--reps" -> a.reps = positive(flag, v);
        case "--url" -> a.url = v;
        case "--runs" -> a.runs = positive(flag, v);
        case "--dir" -> a.dir = v;
        case "--store" -> a.store = v;
        default -> throw new IllegalArgumentException("unknown option '" + flag + "'");
      }
    }
    if (a.workload == null) {
      throw new IllegalArgumentException("no workload given (W1..W6)");
    }
    return a;
  }

  private static int positive(String flag, String v) {
    int n = Integer.parseInt(v);
    if (n < 1) {
      throw new IllegalArgumentException(flag + " must be at least 1, was " + n);
    }
    return n;
  }
}
