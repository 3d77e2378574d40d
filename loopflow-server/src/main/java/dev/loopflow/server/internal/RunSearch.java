package dev.loopflow.server.internal;

import dev.loopflow.core.store.RunQuery;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.core.store.RunSummary;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The run list's search: the query parameters of {@code GET /api/runs} read into a {@link RunQuery}, bounded (each
 * text at most {@link RunQuery#MAX_TEXT} characters, a page at most the list's limit), so that a store of many runs
 * answers one page without reading any run's journal beyond the page's rows.
 */
final class RunSearch {
  private RunSearch() {}

  /**
   * {@code GET /api/runs?status=&workflow=&id=&q=&offset=&limit=} → the array {@code loopflow runs --json} prints,
   * one page of the runs that match (see {@link RunQuery} for what each parameter matches).
   */
  static void list(Context ctx, RunStore store, int maxLimit) {
    Set<String> statuses = new HashSet<>();
    String status = ctx.queryParam("status");
    if (status != null && !status.isBlank()) {
      for (String s : status.split(",")) {
        String wanted = s.strip().toLowerCase(Locale.ROOT);
        if (!RunSummary.SHOWN_STATUSES.contains(wanted)) {
          throw ApiError.badField("status", "status '" + JsonBody.printable(s) + "' is not one of "
              + String.join(", ", RunSummary.SHOWN_STATUSES));
        }
        statuses.add(wanted);
      }
    }
    for (String field : List.of("workflow", "id", "q")) {
      String v = ctx.queryParam(field);
      if (v != null && v.length() > RunQuery.MAX_TEXT) {
        throw ApiError.badField(field, field + " has " + v.length() + " characters; the limit is "
            + RunQuery.MAX_TEXT);
      }
    }
    RunQuery query = new RunQuery(statuses, ctx.queryParam("workflow"), ctx.queryParam("id"), ctx.queryParam("q"),
        HttpApi.intParam(ctx, "offset", 0, 0, Integer.MAX_VALUE), HttpApi.intParam(ctx, "limit", 50, 1, maxLimit));
    List<Map<String, Object>> rows = new ArrayList<>();
    for (RunSummary r : query.run(store)) {
      rows.add(r.toJson());
    }
    HttpApi.json(ctx, 200, rows);
  }
}
