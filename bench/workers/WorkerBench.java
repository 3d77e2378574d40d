import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.store.jdbc.JdbcStores;
import dev.loopflow.store.jdbc.workers.RunQueue;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
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
 *       took it), p50 and p95;
 *   <li>{@code post URL SERVER TOKEN WORKFLOW N}: queues N runs through a server's {@code POST /api/runs} (a server
 *       started with {@code --dispatch workers} on the store), one request at a time, and exits;
 *   <li>{@code drain-since URL MILLIS}: as drain, counting only the runs queued after MILLIS (epoch milliseconds);
 *   <li>{@code latency URL SERVER TOKEN WORKFLOW N}: N times, with the workers idle, posts one run and waits for it
 *       to complete; prints POST-to-completed (the client's clock before the request to the run's recorded end, one
 *       machine, one clock) p50, p90 and max.
 * </ul>
 *
 * Usage: java -cp loopflow.jar WorkerBench.java MODE ARGS... (the scripts compile it once, to start it faster)
 */
public class WorkerBench {
  public static void main(String[] args) throws Exception {
    try (RunStore store = JdbcStores.open(args[1])) {
      Loopflow engine = Loopflow.builder().store(store).build();
      switch (args[0]) {
        case "enqueue" -> enqueue(engine, Path.of(args[2]), Integer.parseInt(args[3]), 0);
        case "drain" -> report(store, waitAll(store, args[1]), false);
        case "drain-since" -> {
          Instant since = Instant.ofEpochMilli(Long.parseLong(args[2]));
          report(store, waitAll(store, args[1]).stream().filter(r -> r.startedAt().isAfter(since)).toList(), false);
        }
        case "post" -> post(args[2], args[3], Path.of(args[4]), Integer.parseInt(args[5]));
        case "latency" -> latency(store, args[2], args[3], Path.of(args[4]), Integer.parseInt(args[5]));
        case "rate" -> {
          enqueue(engine, Path.of(args[2]), Integer.parseInt(args[3]), Double.parseDouble(args[4]));
          report(store, waitAll(store, args[1]), true);
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

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  /** POSTs one run of {@code source}; returns its id. */
  private static String postRun(String server, String token, String source, int i) throws Exception {
    String body = "{\"source\": " + quote(source) + ", \"inputs\": {\"topic\": \"t" + i + "\"}}";
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(server + "/api/runs"))
        .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 201) {
      throw new IllegalStateException("POST /api/runs answered " + r.statusCode() + ": " + r.body());
    }
    int at = r.body().indexOf("\"run_id\"");
    int from = r.body().indexOf('"', r.body().indexOf(':', at) + 1) + 1;
    return r.body().substring(from, r.body().indexOf('"', from));
  }

  private static void post(String server, String token, Path file, int n) throws Exception {
    String source = Files.readString(file);
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      postRun(server, token, source, i);
    }
    System.out.printf("%d runs posted in %.2f s%n", n, (System.nanoTime() - t0) / 1e9);
  }

  private static void latency(RunStore store, String server, String token, Path file, int n) throws Exception {
    String source = Files.readString(file);
    List<Double> ms = new ArrayList<>();
    List<Double> queued = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Thread.sleep(150); // the worker is idle again
      Instant before = Instant.now();
      String id = postRun(server, token, source, i);
      RunRecord rec;
      while ((rec = store.findRun(id).orElseThrow()).status() == RunStatus.RUNNING) {
        Thread.sleep(1);
      }
      if (rec.status() != RunStatus.COMPLETED) {
        throw new IllegalStateException("run " + id + " ended " + rec.status());
      }
      ms.add(Duration.between(before, rec.finishedAt()).toNanos() / 1e6);
      List<Event> events = store.events(id);
      Instant taken = events.stream().filter(e -> e instanceof Event.RunResumed).findFirst().orElseThrow().at();
      queued.add(Duration.between(events.get(0).at(), taken).toNanos() / 1e6);
    }
    Collections.sort(ms);
    Collections.sort(queued);
    System.out.printf("queue latency (run.started, journaled when queued, to run.resumed, when a worker took it): "
        + "p50 %.1f ms, p99 %.1f ms, max %.1f ms%n", queued.get(n / 2), queued.get((int) Math.ceil(n * 0.99) - 1),
        queued.get(n - 1));
    System.out.printf("POST to completed, %d one-node runs one at a time: p50 %.1f ms, p90 %.1f ms, max %.1f ms%n",
        n, ms.get(n / 2), ms.get((int) Math.ceil(n * 0.9) - 1), ms.get(n - 1));
  }

  private static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }

  /**
   * Waits until no run is running, then reads every run. While waiting it asks PostgreSQL for one count every 100 ms
   * on a connection of its own: reading every run record each time (thousands of them, with their sources) took a
   * good part of a core from the worker being measured.
   */
  private static List<RunRecord> waitAll(RunStore store, String url) throws Exception {
    URI u = URI.create(url);
    String user = u.getUserInfo() == null ? "" : u.getUserInfo().split(":", 2)[0];
    try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + u.getHost() + ":" + u.getPort()
        + u.getPath() + "?user=" + user)) {
      System.err.println("ready"); // the scripts start the measured worker only now: this JVM's start is not in it
      while (true) {
        try (Statement st = c.createStatement();
            ResultSet rs = st.executeQuery("SELECT count(*) FROM lf_runs WHERE status = 'RUNNING'")) {
          rs.next();
          if (rs.getLong(1) == 0) {
            return store.listRuns();
          }
        }
        Thread.sleep(100);
      }
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
