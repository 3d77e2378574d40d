package dev.loopflow.cli;

import dev.loopflow.core.event.Event;
import dev.loopflow.core.event.Events;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.secrets.Redactor;
import dev.loopflow.core.store.RunStore;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "events", mixinStandardHelpOptions = true,
    description = "Prints a run's journaled events, one JSON object per line.")
final class EventsCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "RUN_ID")
  String runId;

  @Option(names = {"-f", "--follow"}, description = "Keep printing new events while the run is running.")
  boolean follow;

  @Option(names = "--json", description = "Accepted for symmetry with the other commands; output is always JSONL.")
  boolean json;

  @Mixin
  StoreOption store;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try (RunStore s = Stores.open(store)) {
      if (s.findRun(runId).isEmpty()) {
        err.println("loopflow: no run '" + runId + "' in " + Stores.printable(store));
        return Main.USAGE;
      }
      // Masked when journaled; masked again with today's environment for journals written before it was known.
      Redactor redactor = Redactor.ofEnvironment(System.getenv());
      long last = 0;
      while (true) {
        // Read the status first: events journaled before it changed are then certain to be printed.
        boolean running = s.findRun(runId).map(r -> r.status() == RunStatus.RUNNING).orElse(false);
        for (Event e : s.events(runId)) {
          if (e.seq() > last) {
            out.println(Json.compact(Events.toMap(redactor.event(e))));
            last = e.seq();
          }
        }
        out.flush();
        if (!follow || !running) {
          return Main.OK;
        }
        Thread.sleep(200);
      }
    } finally {
      out.flush();
      err.flush();
    }
  }
}
