package dev.loopflow.cli;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.store.jdbc.JdbcStores;
import dev.loopflow.store.jdbc.workers.Worker;
import dev.loopflow.store.jdbc.workers.WorkerSettings;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "worker", mixinStandardHelpOptions = true,
    description = "Takes queued runs from a PostgreSQL store and executes them, until stopped (SIGTERM or Ctrl-C: "
        + "it takes no more runs, lets its runs finish for --drain-seconds, and hands the rest back).",
    footer = {"", "Runs are queued by 'loopflow run --detach' and by 'loopflow server --dispatch workers' on the same "
        + "store. Any number of workers on any machines may share one store.", "", "Examples:",
        "  loopflow worker --store postgresql://loopflow@db/loopflow --concurrency 8",
        "  loopflow worker --store postgresql://loopflow@db/loopflow --name worker-2"})
final class WorkerCommand implements Callable<Integer> {
  @Option(names = "--store", paramLabel = "URL", description = "The PostgreSQL store (default LOOPFLOW_STORE).")
  String store;

  @Option(names = "--concurrency", paramLabel = "N", description = "Runs executed at once (default 4).")
  int concurrency = 4;

  @Option(names = "--name", paramLabel = "NAME", description = "The worker's name in the queue (default HOST/PID).")
  String name;

  @Option(names = "--poll-ms", paramLabel = "MS", description = "How often to look for queued runs that were not "
      + "announced (default 1000); announced runs are taken at once.")
  long pollMillis = 1000;

  @Option(names = "--heartbeat-ms", paramLabel = "MS", description = "Heartbeat interval (default 2000).")
  long heartbeatMillis = 2000;

  @Option(names = "--missed-heartbeats", paramLabel = "N", description = "Missed heartbeats after which another "
      + "worker takes this worker's runs (default 4, at least 4).")
  int missedHeartbeats = 4;

  @Option(names = "--drain-seconds", paramLabel = "S", description = "On stop, how long runs may take to finish "
      + "before they are handed back (default 30).")
  long drainSeconds = 30;

  @Option(names = "--http-deny-private", description = "http nodes refuse non-public addresses (also: "
      + Support.HTTP_DENY_PRIVATE_ENV + "=1).")
  boolean httpDenyPrivate;

  @Option(names = "--sandbox", paramLabel = "MODE", description = "For process nodes of runs executed here: "
      + Support.SANDBOX_HELP)
  String sandbox;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter err = spec.commandLine().getErr();
    try {
      return work(err);
    } finally {
      err.flush();
    }
  }

  private int work(PrintWriter err) throws InterruptedException {
    WorkerSettings settings;
    try {
      settings = new WorkerSettings(name != null ? name : defaultName(), concurrency, Duration.ofMillis(pollMillis),
          Duration.ofMillis(heartbeatMillis), missedHeartbeats, Duration.ofSeconds(drainSeconds));
    } catch (IllegalArgumentException e) {
      throw CliError.usage(e.getMessage(), e);
    }
    RunOptions.Builder policy = RunOptions.builder();
    if (!Support.httpPolicy(policy, httpDenyPrivate, System.getenv(), err)) {
      return Main.USAGE;
    }
    // A connection per run executing here, and the store's own (its writer, the queue's polls and heartbeats).
    try (RunStore s = Stores.open(store, Math.min(JdbcStores.MAX_CONNECTIONS, settings.concurrency() + 8))) {
      if (!Support.sandbox(policy, sandbox, System.getenv(), s, err)) {
        return Main.USAGE;
      }
      Map<String, Object> policyOptions = policy.build().options();
      Loopflow engine = Loopflow.builder().store(s).build();
      Worker worker;
      try {
        worker = Worker.start(engine, settings, rec -> options(rec, policyOptions), line -> {
          synchronized (err) {
            err.println("loopflow: " + line);
            err.flush();
          }
        });
      } catch (IllegalArgumentException e) {
        throw CliError.usage("--store: " + e.getMessage(), e);
      }
      CountDownLatch stop = new CountDownLatch(1);
      ServerCommand.onStopSignal(stop::countDown);
      err.println("loopflow: worker " + settings.name() + " taking runs from " + Stores.printable(store)
          + " (concurrency " + settings.concurrency() + ")");
      err.flush();
      stop.await();
      err.println("loopflow: worker " + settings.name() + " stopping: " + worker.executing().size()
          + " runs executing; waiting up to " + drainSeconds + " s for them");
      err.flush();
      worker.close();
      return Main.OK;
    }
  }

  /** A run executes in its journaled working directory when this machine has it, else in the worker's. */
  private static RunOptions options(RunRecord rec, Map<String, Object> policy) {
    RunOptions.Builder b = RunOptions.builder().environment(Support.environment);
    if (rec.workingDirectory() != null && Files.isDirectory(Path.of(rec.workingDirectory()))) {
      b.workingDirectory(Path.of(rec.workingDirectory()));
    }
    policy.forEach(b::option);
    return b.build();
  }

  private static String defaultName() {
    String host = System.getenv("HOSTNAME");
    if (host == null || host.isBlank()) {
      try {
        host = Files.readString(Path.of("/etc/hostname")).strip();
      } catch (IOException e) {
        host = "localhost";
      }
    }
    return host + "/" + ProcessHandle.current().pid();
  }
}
