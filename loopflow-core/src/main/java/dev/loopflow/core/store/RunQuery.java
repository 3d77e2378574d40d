package dev.loopflow.core.store;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A search of the run list: which runs (by shown status, workflow, run id prefix and text) and which page of them,
 * most recent first. What the server's {@code GET /api/runs} asks; immutable.
 *
 * <p>What is searchable is only what every run record holds in its row, so that a search reads no journal: the text
 * matches, case-insensitively and as plain text (no pattern), the run id, the workflow name, the workflow file, the
 * error code and message, and the position a paused run waits at. Inputs, outputs and node results are not searched
 * (they may be large values kept apart). The workflow filter matches the name or the file as a substring, as
 * {@link RunSummary#listShown} does; the id filter is a prefix of the run id.
 *
 * @param statuses shown statuses to keep (see {@link RunSummary#SHOWN_STATUSES}); empty for every status
 * @param workflow a substring of the workflow name or file, or null
 * @param idPrefix a prefix of the run id, or null
 * @param text text the run must contain in one of the searched fields, or null
 * @param offset matching runs to skip
 * @param limit matching runs to return at most, at least 1
 */
public record RunQuery(Set<String> statuses, String workflow, String idPrefix, String text, int offset, int limit) {
  /** The longest text or id prefix a query may hold, in characters. */
  public static final int MAX_TEXT = 200;

  public RunQuery {
    statuses = statuses == null ? Set.of() : Set.copyOf(statuses);
    for (String s : statuses) {
      if (!RunSummary.SHOWN_STATUSES.contains(s)) {
        throw new IllegalArgumentException("status '" + s + "' is not one of "
            + String.join(", ", RunSummary.SHOWN_STATUSES));
      }
    }
    workflow = blankToNull(workflow);
    idPrefix = blankToNull(idPrefix);
    text = blankToNull(text);
    for (String v : new String[] {workflow, idPrefix, text}) {
      if (v != null && v.length() > MAX_TEXT) {
        throw new IllegalArgumentException("a search term has " + v.length() + " characters; the limit is "
            + MAX_TEXT);
      }
    }
    if (offset < 0) {
      throw new IllegalArgumentException("offset must be at least 0, was " + offset);
    }
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, was " + limit);
    }
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.strip();
  }

  /** The rows of the page this query asks for, most recent first. */
  public List<RunSummary> run(RunStore store) {
    Set<String> wanted = new HashSet<>(statuses.isEmpty() ? RunSummary.SHOWN_STATUSES : statuses);
    String needle = text == null ? null : text.toLowerCase(Locale.ROOT);
    Instant now = Instant.now();
    List<RunSummary> rows = new ArrayList<>();
    int skipped = 0;
    for (RunRecord r : store.listRuns()) {
      if (rows.size() >= limit) {
        break;
      }
      if (idPrefix != null && !r.runId().startsWith(idPrefix)) {
        continue;
      }
      if (workflow != null && !r.workflow().contains(workflow) && (r.file() == null || !r.file().contains(workflow))) {
        continue;
      }
      if (needle != null && !matches(r, needle)) {
        continue;
      }
      boolean interrupted = RunSummary.interrupted(store, r, now);
      if (!wanted.contains(interrupted ? "interrupted" : r.status().json())) {
        continue;
      }
      if (skipped < offset) {
        skipped++;
        continue;
      }
      rows.add(RunSummary.shown(store, r, interrupted));
    }
    return List.copyOf(rows);
  }

  private static boolean matches(RunRecord r, String needle) {
    List<String> fields = new ArrayList<>(List.of(r.runId(), r.workflow()));
    Collection<String> optional = new ArrayList<>();
    optional.add(r.file());
    optional.add(r.pausedAt());
    if (r.error() != null) {
      optional.add(r.error().code());
      optional.add(r.error().message());
    }
    for (String f : optional) {
      if (f != null) {
        fields.add(f);
      }
    }
    for (String f : fields) {
      if (f.toLowerCase(Locale.ROOT).contains(needle)) {
        return true;
      }
    }
    return false;
  }
}
