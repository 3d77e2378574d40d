package dev.loopflow.server.internal;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.event.Events;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.secrets.Redactor;
import dev.loopflow.core.store.JournalSlice;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunStore;
import io.javalin.http.Context;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * A run's journal over HTTP: its node executions, its live events, and its loops a page or a pass at a time. The
 * first look at a run with long loops asks for the window of each loop's recent passes ({@code recent_passes}, see
 * {@link JournalSlice#recentPasses}) and then for the passes it shows, so what it is sent does not grow with the run.
 */
final class JournalRoutes {
  /** The most recent passes of each loop a windowed read may ask for. */
  static final int MAX_RECENT = 1000;

  private final Loopflow engine;
  private final RunStore store;
  private final LocalRuns runs;
  private final SseFrames frames;
  private final Redactor redactor;
  private final Duration heartbeat;
  private final BooleanSupplier stopping;
  private final Consumer<String> log;

  JournalRoutes(Loopflow engine, LocalRuns runs, SseFrames frames, Redactor redactor, Duration heartbeat,
      BooleanSupplier stopping, Consumer<String> log) {
    this.engine = engine;
    this.store = engine.store();
    this.runs = runs;
    this.frames = frames;
    this.redactor = redactor;
    this.heartbeat = heartbeat;
    this.stopping = stopping;
    this.log = log;
  }

  /**
   * {@code GET /api/runs/{id}/executions[?recent_passes=N]} → the journaled node executions in journal order; with
   * {@code recent_passes}, those outside loops and in the last N passes of each loop instance.
   */
  void executions(Context ctx) {
    String id = RunRoutes.existing(store, ctx);
    int recent = HttpApi.intParam(ctx, "recent_passes", 0, 1, MAX_RECENT);
    List<NodeExecution> rows = recent > 0 ? engine.executions(id, JournalSlice.recentPasses(recent))
        : engine.executions(id);
    HttpApi.json(ctx, 200, shown(id, rows));
  }

  /**
   * {@code GET /api/runs/{id}/events[?recent_passes=N]} → the run's events as server-sent events (see
   * {@link EventStream}); with {@code recent_passes}, what the journal already holds is sent windowed.
   */
  void events(Context ctx) throws IOException, InterruptedException {
    String id = RunRoutes.existing(store, ctx);
    long last = lastEventId(ctx);
    int recent = HttpApi.intParam(ctx, "recent_passes", 0, 1, MAX_RECENT);
    ctx.status(200);
    ctx.contentType("text/event-stream; charset=utf-8");
    ctx.header("Cache-Control", "no-cache, no-store");
    ctx.header("X-Accel-Buffering", "no");
    var out = ctx.res().getOutputStream();
    ctx.res().flushBuffer();
    // A fork's stream carries what the fork executed; the page adds what it reuses from its executions, each of which
    // names the run it ran in (reused_from).
    new EventStream(store, frames, id, last, recent, heartbeat, stopping, out, log).run(runs.feed(id).orElse(null));
  }

  /**
   * {@code GET /api/runs/{id}/loops/{loop}/passes?offset=&limit=} → one page of the passes of a loop (see
   * {@link LoopPasses}): {@code {"run_id", "loop", "total", "offset", "limit", "passes": [...]}}.
   */
  void passes(Context ctx) {
    String id = RunRoutes.existing(store, ctx);
    NodePosition loop = loop(ctx);
    int offset = HttpApi.intParam(ctx, "offset", 0, 0, Integer.MAX_VALUE);
    int limit = HttpApi.intParam(ctx, "limit", LoopPasses.DEFAULT_LIMIT, 1, LoopPasses.MAX_LIMIT);
    List<NodeExecution> rows = engine.executions(id, JournalSlice.under(loop.path() + "[")).stream()
        .map(redactor::execution).toList();
    HttpApi.json(ctx, 200, LoopPasses.page(id, loop, rows, offset, limit));
  }

  /**
   * {@code GET /api/runs/{id}/loops/{loop}/passes/{pass}} → everything of one pass: {@code {"run_id", "loop", "pass",
   * "executions": [...], "events": [...]}}, the executions as {@code /executions} shows them and the events as the
   * event stream sends them (its {@code loop.iteration} first, then what ran in it, nested loops included), each in
   * journal order. A pass that has not begun answers with both empty.
   */
  void pass(Context ctx) {
    String id = RunRoutes.existing(store, ctx);
    NodePosition loop = loop(ctx);
    String text = ctx.pathParam("pass");
    int pass;
    try {
      pass = Integer.parseInt(text);
    } catch (NumberFormatException e) {
      pass = 0;
    }
    if (pass < 1 || !String.valueOf(pass).equals(text)) {
      throw ApiError.badField("pass", "a pass is a whole number from 1, was '" + JsonBody.printable(text) + "'");
    }
    JournalSlice slice = JournalSlice.pass(loop.path(), pass);
    List<Object> events = new ArrayList<>();
    for (Event e : engine.events(id, slice)) {
      events.add(Json.parse(Json.compact(Events.toMap(redactor.event(e)))));
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("run_id", id);
    m.put("loop", loop.path());
    m.put("pass", pass);
    m.put("executions", shown(id, engine.executions(id, slice)));
    m.put("events", events);
    HttpApi.json(ctx, 200, m);
  }

  /** Executions as the API shows them: masked, a fork's reused ones naming the run they ran in. */
  private List<Map<String, Object>> shown(String id, List<NodeExecution> rows) {
    List<Map<String, Object>> shown = new ArrayList<>(rows.size());
    for (NodeExecution e : rows) {
      Map<String, Object> v = Views.execution(redactor.execution(e));
      if (!e.runId().equals(id)) {
        v.put("reused_from", e.runId());
      }
      shown.add(v);
    }
    return shown;
  }

  private static NodePosition loop(Context ctx) {
    String path = ctx.pathParam("loop");
    NodePosition loop = LoopPasses.parse(path);
    if (loop == null) {
      throw ApiError.badField("loop", "'" + JsonBody.printable(path) + "' is not a loop's path (refine, or "
          + "outer[2].inner for a nested loop)");
    }
    return loop;
  }

  private static long lastEventId(Context ctx) {
    String header = ctx.header("Last-Event-ID");
    String field = header != null ? "Last-Event-ID" : "after";
    String value = header != null ? header : ctx.queryParam("after");
    if (value == null || value.isBlank()) {
      return 0;
    }
    try {
      long n = Long.parseLong(value.strip());
      if (n >= 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // below
    }
    throw ApiError.badField(field, field + " must be an event id (a whole number, 0 or more), was '"
        + JsonBody.printable(value) + "'");
  }
}
