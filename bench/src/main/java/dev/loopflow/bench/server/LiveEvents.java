package dev.loopflow.bench.server;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Many viewers on one running run: a {@link Workflows#TICKER} run of {@code passes} passes, watched by clients that
 * connect as it starts, join while it runs, or drop their connections at random moments and resume with
 * Last-Event-ID. Afterwards every client's deliveries are compared with the run's journal ({@link StreamCheck}).
 *
 * <p>Some clients stall: they stop reading for a while, on a small socket buffer, as a viewer on a slow network
 * would; the server may end their streams (they fell behind) and they resume. They are checked like every other
 * client, but left out of the latency figures, which would otherwise measure their stalls.
 *
 * <p>Figures: delivery latency of live events (the event's {@code at} to the moment a client parsed its frame, over
 * the events a connection received after it opened: earlier ones were replayed, not delivered live; also over the
 * events from 2 s into the run, after the burst of connections made as it starts), the replay
 * after a reconnect or a late join (from opening the connection to receiving the last event it had missed, and how
 * many), the run's own duration (run.started to run.finished), the server's CPU and resident memory.
 */
final class LiveEvents {
  /** The run and its audience. A null {@code pause} runs {@link Workflows#BURST} instead of the ticker. */
  record Plan(int passes, String pause, int startClients, int joinClients, int reconnectClients, int stallClients,
      int maxDrops, long stallMillis, long seed) {
    int clients() {
      return startClients + joinClients + reconnectClients + stallClients;
    }

    Plan withSeed(long s) {
      return new Plan(passes, pause, startClients, joinClients, reconnectClients, stallClients, maxDrops, stallMillis,
          s);
    }
  }

  /** Events this long after run.started are past the burst of connections made as the run starts. */
  static final Duration SETTLED_AFTER = Duration.ofSeconds(2);

  private LiveEvents() {}

  /**
   * The run with no viewer: how long it takes and what it costs the server. Its status is polled once a second, since
   * each poll makes the server read the whole run; then {@code GET /api/runs/{id}} of the finished run is timed.
   */
  static Outcome unwatched(Target t, Plan p) throws IOException, InterruptedException {
    List<String> problems = new ArrayList<>();
    ProcStats.Window w = t.stats().window();
    String runId = start(t.api(), p, problems);
    if (runId == null) {
      return new Outcome(Map.of(), problems);
    }
    Api.Response end = t.api().awaitEnd(runId, Duration.ofMinutes(10), Duration.ofSeconds(1));
    ProcStats.Usage u = w.end();
    Stats show = new Stats();
    for (int i = 0; i < 5; i++) {
      long t0 = System.nanoTime();
      t.api().run(runId);
      show.add(System.nanoTime() - t0);
    }
    checkResult(end, p, problems);
    Journal j = Journal.fetch(t.api().base(), t.api().token(), runId);
    problems.addAll(j.problems());
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("run_id", runId);
    f.put("clients", 0);
    f.put("events", j.entries().size());
    f.put("run_ms", Stats.round(j.durationNanos() / 1e6));
    f.put("show_ms_p50", Stats.round(show.quantile(0.5) / 1e6));
    usage(f, u);
    return new Outcome(f, problems);
  }

  /**
   * The run watched by {@code p.clients()} clients. {@code expectedNanos}, how long the run takes unwatched, places
   * the late joins (between 10% and 80% of it) and the drops (between 5% and 90%).
   */
  static Outcome watched(Target t, Plan p, long expectedNanos) throws IOException, InterruptedException {
    List<String> problems = new ArrayList<>();
    ProcStats.Window w = t.stats().window();
    String runId = start(t.api(), p, problems);
    if (runId == null) {
      return new Outcome(Map.of(), problems);
    }
    long t0 = WallClock.epochNanos();
    long deadline = t0 + Math.max(Duration.ofSeconds(60).toNanos(), 10 * expectedNanos);
    List<SseClient> clients = audience(p, t0, expectedNanos);
    List<Thread> threads = new ArrayList<>();
    for (SseClient c : clients) {
      threads.add(Thread.ofVirtual().start(() -> c.run(t.api().base(), t.api().token(), runId, deadline)));
    }
    for (Thread th : threads) {
      th.join();
    }
    Api.Response end = t.api().awaitEnd(runId, Duration.ofMinutes(1));
    ProcStats.Usage u = w.end();
    checkResult(end, p, problems);
    Journal j = Journal.fetch(t.api().base(), t.api().token(), runId);
    problems.addAll(j.problems());
    for (SseClient c : clients) {
      problems.addAll(StreamCheck.check(j, c));
    }
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("run_id", runId);
    f.put("clients", clients.size());
    f.put("events", j.entries().size());
    f.put("run_ms", Stats.round(j.durationNanos() / 1e6));
    measure(f, j, clients);
    usage(f, u);
    return new Outcome(f, problems);
  }

  /** The clients, their join times and drop moments drawn from the plan's seed. */
  static List<SseClient> audience(Plan p, long t0, long expectedNanos) {
    Random rnd = new Random(p.seed());
    List<SseClient> out = new ArrayList<>();
    int id = 0;
    for (int i = 0; i < p.startClients(); i++) {
      out.add(new SseClient(id++, SseClient.Kind.START, t0, new long[0], new long[0]));
    }
    for (int i = 0; i < p.joinClients(); i++) {
      long at = t0 + (long) ((0.10 + 0.70 * rnd.nextDouble()) * expectedNanos);
      out.add(new SseClient(id++, SseClient.Kind.JOIN, at, new long[0], new long[0]));
    }
    for (int i = 0; i < p.reconnectClients(); i++) {
      int drops = 1 + rnd.nextInt(Math.max(1, p.maxDrops()));
      long[] at = new long[drops];
      long[] pause = new long[drops];
      for (int k = 0; k < drops; k++) {
        at[k] = t0 + (long) ((0.05 + 0.85 * rnd.nextDouble()) * expectedNanos);
        pause[k] = Duration.ofMillis(rnd.nextInt(300)).toNanos();
      }
      Arrays.sort(at);
      out.add(new SseClient(id++, SseClient.Kind.RECONNECT, t0, at, pause));
    }
    for (int i = 0; i < p.stallClients(); i++) {
      long at = t0 + (long) ((0.10 + 0.40 * rnd.nextDouble()) * expectedNanos);
      out.add(new SseClient(id++, SseClient.Kind.STALL, t0, new long[0], new long[0])
          .stalling(new long[] {at}, new long[] {Duration.ofMillis(p.stallMillis()).toNanos()}));
    }
    return out;
  }

  private static String start(Api api, Plan p, List<String> problems) throws IOException, InterruptedException {
    Api.Response r = p.pause() == null ? api.startRun(Workflows.BURST, Map.of("passes", p.passes()))
        : api.startRun(Workflows.TICKER, Map.of("passes", p.passes(), "pause", p.pause()));
    if (r.status() != 201 || !(r.body().get("run_id") instanceof String id)) {
      problems.add("POST /api/runs answered " + r.status() + ": " + r.text());
      return null;
    }
    return id;
  }

  private static void checkResult(Api.Response end, Plan p, List<String> problems) {
    Object status = end.body().get("status");
    Object output = end.body().get("output");
    Object count = output instanceof Map<?, ?> m ? m.get("count") : null;
    if (end.status() != 200 || !"completed".equals(status)
        || !(count instanceof Number n) || n.intValue() != p.passes()) {
      problems.add("the run ended " + status + " with output " + output + " (expected completed with count "
          + p.passes() + "): " + end.text());
    }
  }

  /** Live latencies, replays after reconnects and late joins, connections the server closed. */
  private static void measure(Map<String, Object> f, Journal j, List<SseClient> clients) {
    Stats live = new Stats();
    // The clients that connect as the run starts all do so at once; their first second measures that burst.
    Stats liveSettled = new Stats();
    long settled = j.entries().getFirst().at() + SETTLED_AFTER.toNanos();
    Stats reconnectReplay = new Stats();
    Stats joinReplay = new Stats();
    Stats reconnectMissed = new Stats();
    Stats joinMissed = new Stats();
    int serverCloses = 0;
    int ephemeral = 0;
    int reconnects = 0;
    int stallCloses = 0;
    for (SseClient c : clients) {
      ephemeral += c.ephemeral();
      if (c.kind == SseClient.Kind.STALL) {
        stallCloses += c.serverCloses(); // its latencies hold its own stall: not the server's
        continue;
      }
      serverCloses += c.serverCloses();
      List<SseClient.Connection> conns = c.connections();
      for (int k = 0; k < conns.size(); k++) {
        SseClient.Connection conn = conns.get(k);
        int from = conn.firstDelivery();
        int to = k + 1 < conns.size() ? conns.get(k + 1).firstDelivery() : c.deliveries();
        int lastReplayed = -1;
        for (int i = from; i < to; i++) {
          Journal.Entry e = j.bySeq(c.seq(i));
          if (e == null) {
            continue;
          }
          if (e.at() >= conn.openedAt()) {
            live.add(c.receivedAt(i) - e.at());
            if (e.at() >= settled) {
              liveSettled.add(c.receivedAt(i) - e.at());
            }
          } else {
            lastReplayed = i;
          }
        }
        boolean rejoin = conn.reason() == SseClient.Reason.AFTER_DROP;
        boolean join = conn.reason() == SseClient.Reason.FIRST && c.kind == SseClient.Kind.JOIN;
        if (rejoin) {
          reconnects++;
        }
        if ((rejoin || join) && lastReplayed >= 0) {
          (rejoin ? reconnectReplay : joinReplay).add(c.receivedAt(lastReplayed) - conn.openedAt());
          (rejoin ? reconnectMissed : joinMissed).add(lastReplayed - from + 1);
        }
      }
    }
    f.put("deliveries", clients.stream().mapToLong(SseClient::deliveries).sum());
    f.put("live_latency", live.summary());
    f.put("live_latency_after_2s", liveSettled.summary());
    f.put("reconnects", reconnects);
    f.put("reconnect_replay", reconnectReplay.summary());
    f.put("reconnect_missed_events_p50", reconnectMissed.quantile(0.5));
    f.put("join_replay", joinReplay.summary());
    f.put("join_missed_events_p50", joinMissed.quantile(0.5));
    f.put("server_closes", serverCloses);
    f.put("stalled_clients_closed_by_server", stallCloses);
    f.put("ephemeral_frames", ephemeral);
  }

  static void usage(Map<String, Object> f, ProcStats.Usage u) {
    f.put("wall_s", Stats.round(u.wallSeconds()));
    f.put("server_cpu_s", Stats.round(u.serverCpuSeconds()));
    f.put("server_sys_cpu_s", Stats.round(u.serverSystemSeconds()));
    f.put("server_cores", Stats.round(u.serverCores()));
    f.put("client_cores", Stats.round(u.clientCores()));
    f.put("other_cores", Stats.round(u.otherCores()));
    f.put("server_peak_rss_mb", u.serverPeakRssKb() < 0 ? null : Stats.round(u.serverPeakRssKb() / 1024.0));
  }
}
