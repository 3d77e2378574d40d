package dev.loopflow.bench.langgraph4j;

import java.nio.file.Path;
import java.util.List;

/**
 * The runner's command line, as {@code bench/PROTOCOL.md} defines it:
 * {@code <workload> [--variant NAME] [--n N] [--warmup W] [--reps R] [--url BASE_URL] [--runs K] [--dir DIR]}.
 *
 * @param n the workload's size: loop iterations (W1–W3), reviews per run (W4), text length (W5); W6 has none
 */
record Options(String workload, String variant, int n, int warmup, int reps, String url, int runs, Path dir) {

  static final List<String> WORKLOADS = List.of("W1", "W2", "W3", "W4", "W5", "W6");
  static final String USAGE = "usage: langgraph4j-runner <W1..W6> [--variant NAME] [--n N] [--warmup W] [--reps R]"
      + " [--url BASE_URL] [--runs K] [--dir DIR]";

  static Options parse(String... args) {
    if (args.length == 0) {
      throw new IllegalArgumentException("no workload given");
    }
    String workload = args[0];
    if (!WORKLOADS.contains(workload)) {
      throw new IllegalArgumentException("unknown workload '" + workload + "'");
    }
    String variant = null;
    Integer n = null;
    int warmup = 3;
    int reps = 5;
    String url = null;
    int runs = 500;
    Path dir = null;
    for (int i = 1; i < args.length; i++) {
      String arg = args[i];
      String name = arg;
      String value;
      int equals = arg.indexOf('=');
      if (arg.startsWith("--") && equals > 0) {
        name = arg.substring(0, equals);
        value = arg.substring(equals + 1);
      } else if (i + 1 < args.length) {
        value = args[++i];
      } else {
        throw new IllegalArgumentException("option " + arg + " needs a value");
      }
      switch (name) {
        case "--variant" -> variant = value;
        case "--n" -> n = positive(name, value);
        case "--warmup" -> warmup = nonNegative(name, value);
        case "--reps" -> reps = positive(name, value);
        case "--url" -> url = value;
        case "--runs" -> runs = positive(name, value);
        case "--dir" -> dir = Path.of(value);
        default -> throw new IllegalArgumentException("unknown option '" + arg + "'");
      }
    }
    // LangGraph4j is built one way only; silently measuring the default under another name would mislabel it.
    if (variant != null && !variant.equals("default")) {
      throw new IllegalArgumentException("the langgraph4j runner has no variant '" + variant + "'");
    }
    if (workload.equals("W4") && url == null) {
      throw new IllegalArgumentException("W4 needs --url, the fake OpenAI server's base URL");
    }
    if (workload.equals("W3") && dir == null) {
      throw new IllegalArgumentException("W3 needs --dir, a directory for the checkpoint files");
    }
    if (workload.equals("W6")) {
      // W6 is one build-and-run per process; Compare times the process, so repeating inside it would skew that.
      return new Options(workload, variant, 3, 0, 1, url, runs, dir);
    }
    return new Options(workload, variant, n != null ? n : defaultN(workload), warmup, reps, url, runs, dir);
  }

  private static int defaultN(String workload) {
    return switch (workload) {
      case "W1", "W2" -> 1000;
      case "W3" -> 100;
      case "W4" -> 5;
      case "W5" -> 10_000;
      default -> throw new IllegalArgumentException("no default size for " + workload);
    };
  }

  private static int positive(String name, String value) {
    int parsed = integer(name, value);
    if (parsed < 1) {
      throw new IllegalArgumentException(name + " must be at least 1 but was " + parsed);
    }
    return parsed;
  }

  private static int nonNegative(String name, String value) {
    int parsed = integer(name, value);
    if (parsed < 0) {
      throw new IllegalArgumentException(name + " must not be negative but was " + parsed);
    }
    return parsed;
  }

  private static int integer(String name, String value) {
    try {
      return Integer.parseInt(value.replace("_", ""));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be an integer but was '" + value + "'");
    }
  }
}
