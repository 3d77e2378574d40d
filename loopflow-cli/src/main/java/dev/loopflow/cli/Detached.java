package dev.loopflow.cli;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.store.jdbc.workers.RunQueue;
import java.io.PrintWriter;

/** {@code loopflow run --detach}: the run is journaled and queued for workers; its id is printed. */
final class Detached {
  private Detached() {}

  static int enqueue(Loopflow engine, Workflow wf, RunOptions options, PrintWriter out, PrintWriter err)
      throws InterruptedException {
    RunQueue queue;
    try {
      queue = RunQueue.of(engine);
    } catch (IllegalArgumentException e) {
      throw CliError.usage("--detach: " + e.getMessage(), e);
    }
    RunResult r = queue.enqueue(wf, options);
    if (r.status() != RunStatus.RUNNING) {
      err.println(Errors.oneLine("loopflow: the run could not be queued: "
          + (r.error() == null ? r.status().json() : r.error().message())));
      return Main.FAILED;
    }
    out.println(r.runId());
    err.println("loopflow: run " + r.runId() + " queued for workers; follow it with loopflow events " + r.runId()
        + " --follow");
    return Main.OK;
  }
}
