import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.store.jdbc.JdbcStores;
import dev.loopflow.store.jdbc.workers.RunQueue;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The worker benchmark's client (run.sh starts the database and the workers):
 *
 * <ul>
 *   <li>{@code enqueue URL WORKFLOW N}: queues N runs of the workflow and exits;
 *   <li>{@code drain URL}: waits until no run in the store is running and prints the throughput: runs ended per
 *       second from the first run a worker took to the last run's end;
 *   <li>{@code rate URL WORKFLOW N R}: queues N runs at R per second while workers run, waits for them, and prints
 *       the queue latency (a run's run.started, journaled when it is queued, to its first run.resumed, when a worker
 *       took it), p50 and p95.
 * </ul>
 *
 * Usage: java -cp loopflow.jar WorkerBench.java MODE ARGS...
 */
public class WorkerBench {
  public static void main(String[] args) throws Exception {
    try (RunStore store = JdbcStores.open(args[1])) {
      Loopflow engine = Loopflow.builder().store(store).build();
      switch (args[0]) {
        case "enqueue" -> enqueue(engine, Path.of(args[2]), Integer.parseInt(args[3]), 0);
        case "drain" -> report(store, waitAll(store), false);
        case "rate" -> {
          enqueue(engine, Path.of(args[2]), Integer.parseInt(args[3]), Double.parseDouble(args[4]));
          report(store, waitAll(store), true);
        }
        default -> throw new IllegalArgumentException("mode: enqueue, drain or rate");
      }
    }
  }

  private static void enqueue(Loopflow engine, Path file, int n, double perSecond) throws Exception {
    Workflow wf = engine.load(file);
    RunQueue queue = RunQueue.of(engine);
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      if (perSecond > 0) {
        long due = t0 + (long) (i * 1e9 / perSecond);
        long wait = due - System.nanoTime();
        if (wait > 0) {
          Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        }
      }
      queue.enqueue(wf, RunOptions.builder().input("topic", "t" + i).option("llm.mock", true).build());
    }
  }

  private static List<RunRecord> waitAll(RunStore store) throws InterruptedException {
    while (true) {
      List<RunRecord> runs = store.listRuns();
      if (runs.stream().noneMatch(r -> r.status() == RunStatus.RUNNING)) {
        return runs;
      }
      Thread.sleep(200);
    }
  }

  private static void report(RunStore store, List<RunRecord> runs, boolean latencies) {
    List<Double> latency = new ArrayList<>();
    Instant firstTaken = null;
    Instant lastEnd = null;
    int completed = 0;
    for (RunRecord r : runs) {
      completed += r.status() == RunStatus.COMPLETED ? 1 : 0;
      List<Event> events = store.events(r.runId());
      Instant queued = events.get(0).at();
      Instant taken = events.stream().filter(e -> e instanceof Event.RunResumed).findFirst().orElseThrow().at();
      latency.add(Duration.between(queued, taken).toNanos() / 1e6);
      firstTaken = firstTaken == null || taken.isBefore(firstTaken) ? taken : firstTaken;
      lastEnd = lastEnd == null || r.finishedAt().isAfter(lastEnd) ? r.finishedAt() : lastEnd;
    }
    Collections.sort(latency);
    double seconds = Duration.between(firstTaken, lastEnd).toNanos() / 1e9;
    System.out.printf("%d runs (%d completed) in %.2f s: %.1f runs/s", runs.size(), completed, seconds,
        runs.size() / seconds);
    if (latencies) {
      System.out.printf("; queue latency p50 %.0f ms, p95 %.0f ms, max %.0f ms", latency.get(latency.size() / 2),
          latency.get((int) Math.ceil(latency.size() * 0.95) - 1), latency.get(latency.size() - 1));
    }
    System.out.println();
  }
}
