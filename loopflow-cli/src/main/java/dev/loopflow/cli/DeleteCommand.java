package dev.loopflow.cli;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.LoopflowException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "delete", mixinStandardHelpOptions = true,
    description = "Deletes a run and everything the store keeps of it: its record, journal and the shared memory it "
        + "owns (WORKFLOW and SESSION; AGENT and GLOBAL memory stay). Refused while the run executes or is queued "
        + "(run_busy) and while forks reuse its executions (run_has_forks).",
    footer = {"", "Exit status: 0 deleted, 2 no such run or refused."})
final class DeleteCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "RUN_ID")
  String runId;

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
        if (!engine.delete(runId)) {
          err.println("loopflow: no run '" + runId + "' in " + Stores.printable(store));
          return Main.USAGE;
        }
        out.println(runId + " deleted");
        return Main.OK;
      }
    } catch (LoopflowException e) {
      if (!Errors.usage(e.code())) {
        throw e;
      }
      err.println("loopflow: " + e.code().code() + ": " + e.getMessage());
      return Main.USAGE;
    } finally {
      out.flush();
      err.flush();
    }
  }
}
