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
 * Queues RUNS runs of drafts.yaml in the store, waits until workers (started by run.sh) have completed all, and
 * prints throughput and queue latency: runs/s from the first enqueue to the last run's end, and the time from a
 * run's run.started (journaled when queued) to its first run.resumed (a worker took it), p50 and p95.
 *
 * Usage: java -cp loopflow-cli.jar WorkerBench.java STORE_URL RUNS WORKFLOW
 */
public class WorkerBench {
  public static void main(String[] args) throws Exception {
    String url = args[0];
    int runs = Integer.parseInt(args[1]);
    try (RunStore store = JdbcStores.open(url)) {
      Loopflow engine = Loopflow.builder().store(store).build();
      Workflow wf = engine.load(Path.of(args[2]));
      RunQueue queue = RunQueue.of(engine);
      List<String> ids = new ArrayList<>();
      long t0 = System.nanoTime();
      for (int i = 0; i < runs; i++) {
        ids.add(queue.enqueue(wf, RunOptions.builder().input("topic", "t" + i).option("llm.mock", true).build())
            .runId());
      }
      double enqueueSeconds = (System.nanoTime() - t0) / 1e9;
      while (true) {
        long left = ids.stream().filter(id -> store.findRun(id).map(r -> r.status() == RunStatus.RUNNING)
            .orElse(true)).count();
        if (left == 0) {
          break;
        }
        Thread.sleep(200);
      }
      List<Double> latency = new ArrayList<>();
      Instant first = null;
      Instant last = null;
      int completed = 0;
      for (String id : ids) {
        RunRecord r = store.findRun(id).orElseThrow();
        completed += r.status() == RunStatus.COMPLETED ? 1 : 0;
        List<Event> events = store.events(id);
        Instant queued = events.get(0).at();
        Instant taken = events.stream().filter(e -> e instanceof Event.RunResumed).findFirst().orElseThrow().at();
        latency.add(Duration.between(queued, taken).toNanos() / 1e6);
        first = first == null || queued.isBefore(first) ? queued : first;
        last = last == null || r.finishedAt().isAfter(last) ? r.finishedAt() : last;
      }
      Collections.sort(latency);
      double seconds = Duration.between(first, last).toNanos() / 1e9;
      System.out.printf("runs %d (completed %d) in %.2f s: %.1f runs/s; enqueue %.1f runs/s; queue latency p50 %.0f ms,"
          + " p95 %.0f ms, max %.0f ms%n", runs, completed, seconds, runs / seconds, runs / enqueueSeconds,
          latency.get(latency.size() / 2), latency.get((int) Math.ceil(latency.size() * 0.95) - 1),
          latency.get(latency.size() - 1));
    }
  }
}
