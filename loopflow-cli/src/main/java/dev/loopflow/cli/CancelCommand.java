package dev.loopflow.cli;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.run.RunStatus;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "cancel", mixinStandardHelpOptions = true,
    description = "Cancels a run: a paused or interrupted run at once; a run executing in another process is asked "
        + "to stop and this waits for it.",
    footer = {"", "Exit status: 0 cancelled (or already ended), 1 still running after --wait, 2 no such run."})
final class CancelCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "RUN_ID")
  String runId;

  @Option(names = "--reason", paramLabel = "TEXT", description = "Why (kept in the run's error).")
  String reason;

  @Option(names = "--wait", paramLabel = "SECONDS", description = "How long to wait for a running run to stop "
      + "(default 30).")
  int waitSeconds = 30;

  @Mixin
  StoreOption store;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try {
      Loopflow engine = Loopflow.builder().store(Stores.open(store)).build();
      try (var journal = engine.store()) {
        RunStatus before = engine.store().findRun(runId).map(r -> r.status()).orElse(null);
        if (before == null) {
          err.println("loopflow: no run '" + runId + "' in " + Stores.printable(store));
          return Main.USAGE;
        }
        if (before.isTerminal()) {
          out.println(runId + " " + before.json() + " (already ended)");
          return Main.OK;
        }
        RunStatus after = engine.cancel(runId, reason == null ? "cancelled with loopflow cancel" : reason,
            Duration.ofSeconds(Math.max(0, waitSeconds)));
        out.println(runId + " " + after.json());
        if (after == RunStatus.RUNNING) {
          err.println("loopflow: run " + runId + " was asked to stop but is still running after " + waitSeconds
              + " s");
          return Main.FAILED;
        }
        return Main.OK;
      }
    } catch (LoopflowException e) {
      if (!Errors.usage(e.code())) {
        throw e;
      }
      err.println("loopflow: " + e.getMessage());
      return Main.USAGE;
    } finally {
      out.flush();
      err.flush();
    }
  }
}
