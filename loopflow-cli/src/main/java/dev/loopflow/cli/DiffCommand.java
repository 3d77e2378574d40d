package dev.loopflow.cli;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.run.ForkPoint;
import dev.loopflow.core.run.RunDiff;
import dev.loopflow.core.secrets.Redactor;
import java.io.PrintWriter;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "diff", mixinStandardHelpOptions = true,
    description = "Compares two passes of a run's loop (the state after each and the outputs of its nodes), or two "
        + "runs (a fork and its origin): what differs, text outputs as a unified line diff.",
    footer = {"", "Examples:", "  loopflow diff run_1a2b3c4d5e6f7a8b refine:2 refine:3",
        "  loopflow diff run_1a2b3c4d5e6f7a8b run_9f8e7d6c5b4a3921", "",
        "Exit status: 0 when the sides are equal, 1 when they differ, 2 on usage errors."})
final class DiffCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "RUN_ID")
  String runId;

  @Parameters(index = "1", paramLabel = "PASS_OR_RUN", description = "A pass of RUN_ID's loop (LOOP:PASS), or "
      + "another run's id.")
  String first;

  @Parameters(index = "2", arity = "0..1", paramLabel = "PASS", description = "The second pass, when comparing "
      + "passes.")
  String second;

  @Option(names = "--json", description = "Print both sides as one JSON object.")
  boolean json;

  @Option(names = "--store", paramLabel = "URL", description = "Run store (default: LOOPFLOW_STORE, else sqlite "
      + "under LOOPFLOW_HOME).")
  String store;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try {
      Loopflow engine = Loopflow.builder().store(Stores.open(store)).build();
      try (var journal = engine.store()) {
        RunDiff diff;
        try {
          diff = second != null ? engine.diff(runId, pass(first), pass(second)) : engine.diff(runId, first);
        } catch (IllegalArgumentException e) {
          err.println(Errors.oneLine("loopflow: " + e.getMessage()));
          return Main.USAGE;
        } catch (LoopflowException e) {
          if (!Errors.usage(e.code())) {
            throw e;
          }
          err.println(Errors.oneLine("loopflow: " + e.getMessage()));
          return Main.USAGE;
        }
        Redactor mask = Redactor.ofEnvironment(System.getenv());
        if (json) {
          out.println(Json.compact(mask.map(diff.toJson())));
          return equal(diff) ? 0 : 1;
        }
        return print(diff, mask, out) ? 0 : 1;
      }
    } finally {
      out.flush();
      err.flush();
    }
  }

  private static ForkPoint.Pass pass(String text) {
    if (ForkPoint.parse(text) instanceof ForkPoint.Pass p) {
      return p;
    }
    throw new IllegalArgumentException("'" + text + "' is not a pass; write LOOP:PASS, e.g. refine:2");
  }

  private static boolean equal(RunDiff d) {
    return Objects.equals(d.left().state(), d.right().state())
        && Objects.equals(d.left().outputs(), d.right().outputs());
  }

  /** Prints what differs; true when nothing does. */
  private static boolean print(RunDiff d, Redactor mask, PrintWriter out) {
    out.println(Errors.oneLine("--- " + d.left().label()));
    out.println(Errors.oneLine("+++ " + d.right().label()));
    boolean same = section("state", d.left().state(), d.right().state(), mask, out);
    same &= section("outputs", d.left().outputs(), d.right().outputs(), mask, out);
    if (same) {
      out.println("no differences");
    }
    return same;
  }

  private static boolean section(String name, Map<String, Object> a, Map<String, Object> b, Redactor mask,
      PrintWriter out) {
    Set<String> keys = new LinkedHashSet<>(a.keySet());
    keys.addAll(b.keySet());
    boolean same = true;
    for (String k : keys) {
      Object x = a.get(k);
      Object y = b.get(k);
      if (Objects.equals(x, y)) {
        continue;
      }
      same = false;
      out.println(Errors.oneLine("@@ " + name + "." + k + (a.containsKey(k) ? "" : " (only right)")
          + (b.containsKey(k) ? "" : " (only left)") + " @@"));
      for (String line : LineDiff.of(text(x, mask), text(y, mask))) {
        out.println(Errors.oneLine(line));
      }
    }
    return same;
  }

  /** A value as the diff compares it: text as it is, anything else as indented-free compact JSON. */
  private static String text(Object v, Redactor mask) {
    if (v == null) {
      return "";
    }
    return mask.text(v instanceof String s ? s : Json.compact(v));
  }
}
