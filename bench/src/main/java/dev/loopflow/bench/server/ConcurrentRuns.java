package dev.loopflow.bench.server;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * Many runs started at once over HTTP: {@code runs} clients each POST a {@link Workflows#SHORT} run (a different
 * seed each) at the same instant, then follow its events until run.finished. Every run must complete with the output
 * its own seed gives, its journal must be complete, and the events its client saw live must be that journal.
 *
 * <p>Figures: the latency of a POST on its own (five, one after the other, before the batch), POST latency in the
 * batch, the time from the first POST until the last run.finished reached its client, runs per
 * second over that time, runs' own durations (run.started to run.finished), failed requests, the server's CPU and
 * resident memory.
 */
final class ConcurrentRuns {
  private ConcurrentRuns() {}

  /** One client: its POST and the run's stream. */
  private static final class Starter {
    final int seed;
    long postNanos = -1;
    int status;
    String error;
    String runId;
    SseClient stream;
    long finishedAt;

    Starter(int seed) {
      this.seed = seed;
    }
  }

  static Outcome run(Target t, int runs) throws IOException, InterruptedException {
    List<String> problems = new ArrayList<>();
    // First a few starts one at a time, each after the previous run ended: what one POST costs on its own.
    Stats alone = new Stats();
    for (int i = 0; i < 5; i++) {
      long sent = System.nanoTime();
      Api.Response r = t.api().startRun(Workflows.SHORT, Map.of("seed", 1));
      alone.add(System.nanoTime() - sent);
      if (r.status() != 201 || !(r.body().get("run_id") instanceof String id)) {
        problems.add("a POST on its own answered " + r.status() + ": " + r.text());
        return new Outcome(Map.of(), problems);
      }
      t.api().awaitEnd(id, Duration.ofSeconds(30));
    }
    CountDownLatch go = new CountDownLatch(1);
    List<Starter> starters = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    long[] begin = new long[1];
    for (int i = 0; i < runs; i++) {
      Starter s = new Starter(i + 1);
      starters.add(s);
      threads.add(Thread.ofVirtual().start(() -> start(t, s, go)));
    }
    Thread.sleep(200); // every client is waiting at the latch
    ProcStats.Window w = t.stats().window();
    begin[0] = WallClock.epochNanos();
    go.countDown();
    for (Thread th : threads) {
      th.join();
    }
    ProcStats.Usage u = w.end();

    Stats post = new Stats();
    Stats runMs = new Stats();
    int failedPosts = 0;
    long lastFinish = 0;
    for (Starter s : starters) {
      if (s.runId == null) {
        failedPosts++;
        problems.add("run with seed " + s.seed + ": POST /api/runs failed: "
            + (s.error != null ? s.error : "HTTP " + s.status));
        continue;
      }
      post.add(s.postNanos);
      lastFinish = Math.max(lastFinish, s.finishedAt);
      Api.Response r = t.api().awaitEnd(s.runId, Duration.ofSeconds(30));
      Object output = r.body().get("output");
      Map<?, ?> out = output instanceof Map<?, ?> m ? m : Map.of();
      if (!"completed".equals(r.body().get("status")) || !number(out.get("seed"), s.seed)
          || !number(out.get("count"), Workflows.SHORT_PASSES)
          || !number(out.get("acc"), (long) s.seed * Workflows.SHORT_PASSES)) {
        problems.add("run " + s.runId + " (seed " + s.seed + ") ended " + r.body().get("status") + " with output "
            + output + "; expected completed with {seed: " + s.seed + ", count: " + Workflows.SHORT_PASSES
            + ", acc: " + (long) s.seed * Workflows.SHORT_PASSES + "}");
      }
      Journal j = Journal.fetch(t.api().base(), t.api().token(), s.runId);
      j.problems().forEach(p -> problems.add("run " + s.runId + ": " + p));
      problems.addAll(StreamCheck.check(j, s.stream).stream().map(p -> "run " + s.runId + ": " + p).toList());
      runMs.add(j.durationNanos());
    }
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("runs", runs);
    f.put("failed_posts", failedPosts);
    f.put("post_alone_ms_p50", Stats.round(alone.quantile(0.5) / 1e6));
    f.put("post_latency", post.summary());
    double allMs = lastFinish == 0 ? 0 : (lastFinish - begin[0]) / 1e6;
    f.put("all_finished_ms", Stats.round(allMs));
    f.put("runs_per_s", allMs == 0 ? null : Stats.round((runs - failedPosts) / (allMs / 1000)));
    f.put("run_duration", runMs.summary());
    LiveEvents.usage(f, u);
    return new Outcome(f, problems);
  }

  private static void start(Target t, Starter s, CountDownLatch go) {
    try {
      go.await();
      long sent = System.nanoTime();
      Api.Response r = t.api().startRun(Workflows.SHORT, Map.of("seed", s.seed));
      s.postNanos = System.nanoTime() - sent;
      s.status = r.status();
      if (r.status() != 201 || !(r.body().get("run_id") instanceof String id)) {
        s.error = "HTTP " + r.status() + ": " + r.text();
        return;
      }
      s.runId = id;
      s.stream = new SseClient(s.seed, SseClient.Kind.START, 0, new long[0], new long[0]);
      s.stream.run(t.api().base(), t.api().token(), id, WallClock.epochNanos() + Duration.ofSeconds(120).toNanos());
      s.finishedAt = s.stream.deliveries() == 0 ? 0 : s.stream.receivedAt(s.stream.deliveries() - 1);
    } catch (IOException e) {
      s.error = e.toString();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      s.error = "interrupted";
    }
  }

  private static boolean number(Object v, long expected) {
    return v instanceof Number n && n.longValue() == expected;
  }
}
