package dev.loopflow.server.internal;

import dev.loopflow.core.event.Event;
import dev.loopflow.core.secrets.Redactor;
import dev.loopflow.core.store.JournalSlice;
import dev.loopflow.core.store.RunStore;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code GET /api/runs/{id}/steps?path=P}: the journaled steps of the last execution at one position, what a run
 * viewer draws as an LLM call's transcript: the {@code request} an llm or agent execution opened with (system prompt
 * and messages), an agent's {@code model} turns and {@code tool} calls, and a resumed execution's {@code resumed}
 * step holding the ones before it. The engine's own bookkeeping steps (call reservations) are left out. At most
 * {@link #MAX_STEPS} steps are answered ({@code more} counts the rest); the text is masked as {@code show} masks.
 */
final class ExecutionSteps {
  static final int MAX_STEPS = 1000;
  private static final Set<String> SHOWN = Set.of("request", "model", "tool", "resumed", "rejected");

  private final RunStore store;
  private final Redactor redactor;

  ExecutionSteps(RunStore store, Redactor redactor) {
    this.store = store;
    this.redactor = redactor;
  }

  void steps(Context ctx) {
    String id = ctx.pathParam("id");
    if (id.isBlank() || store.findRun(id).isEmpty()) {
      throw ApiError.runNotFound(JsonBody.printable(id));
    }
    String path = ctx.queryParam("path");
    if (path == null || path.isBlank()) {
      throw ApiError.badField("path", "path is required: the position of an execution, as its events carry it");
    }
    // only the events at that position (and below it) are read: a long run's journal is not read whole per click
    HttpApi.json(ctx, 200, of(store.events(id, JournalSlice.under(path)), path));
  }

  /** The steps of the last execution at {@code path} among {@code events}: {@code {"path", "steps", "more"}}. */
  Map<String, Object> of(List<Event> events, String path) {
    String execution = null;
    List<Map<String, Object>> steps = new ArrayList<>();
    for (Event e : events) {
      if (e instanceof Event.NodeStep s && path.equals(s.node().path())) {
        if (!s.execution().equals(execution)) {
          execution = s.execution(); // a new execution at the position: only the last one is shown
          steps.clear();
        }
        if (SHOWN.contains(String.valueOf(s.step().get("type")))) {
          steps.add(s.step());
        }
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("path", path);
    List<Map<String, Object>> shown = new ArrayList<>();
    for (Map<String, Object> s : steps.subList(0, Math.min(MAX_STEPS, steps.size()))) {
      shown.add(redactor.map(s));
    }
    out.put("steps", shown);
    out.put("more", Math.max(0, steps.size() - MAX_STEPS));
    return out;
  }
}
