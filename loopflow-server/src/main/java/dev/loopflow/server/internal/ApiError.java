package dev.loopflow.server.internal;

import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.Problem;
import dev.loopflow.core.error.WorkflowInvalidException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A request the API refuses: its status and code (from {@link ErrorTable}), a one-line message, and extra fields of
 * the error body (a workflow's {@code problems}, the {@code field} a request got wrong). Thrown by handlers and
 * written by the one exception mapper as {@code {"error": {"code", "message", ...extra}}}.
 */
final class ApiError extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final transient ErrorTable.Entry entry;
  private final transient Map<String, Object> extra;

  private ApiError(ErrorTable.Entry entry, String message, Map<String, Object> extra, Throwable cause) {
    super(message, cause, false, false);
    this.entry = entry;
    this.extra = extra == null ? Map.of() : extra;
  }

  static ApiError of(ErrorTable.Kind kind, String message) {
    return new ApiError(ErrorTable.of(kind), message, null, null);
  }

  /** A request field that is missing or wrong: the body names it as {@code field}. */
  static ApiError badField(String field, String message) {
    return new ApiError(ErrorTable.of(ErrorTable.Kind.BAD_REQUEST), message, Map.of("field", field), null);
  }

  static ApiError runNotFound(String runId) {
    return of(ErrorTable.Kind.RUN_NOT_FOUND, "no run '" + runId + "' in this store");
  }

  /** An engine error: mapped by its code; a workflow's problems and the error's details come along. */
  static ApiError of(LoopflowException e) {
    Map<String, Object> extra = new LinkedHashMap<>(e.details());
    if (e instanceof WorkflowInvalidException w) {
      extra.put("problems", problems(w.problems()));
    }
    String message = e instanceof WorkflowInvalidException w ? "the workflow is invalid: " + w.problems().size()
        + (w.problems().size() == 1 ? " problem" : " problems") : e.getMessage();
    return new ApiError(ErrorTable.of(e.code()), oneLine(message), extra, e);
  }

  static ApiError withExtra(ErrorTable.Entry entry, String message, Map<String, Object> extra) {
    return new ApiError(entry, oneLine(message), extra, null);
  }

  int status() {
    return entry.status();
  }

  String code() {
    return entry.code();
  }

  /** {@code {"error": {"code", "message", ...}}}. */
  Map<String, Object> body() {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("code", entry.code());
    e.put("message", getMessage() == null ? "" : getMessage());
    extra.forEach(e::putIfAbsent);
    return Map.of("error", e);
  }

  /** Every problem as {@code {"line", "col", "path", "message"}}, in the loader's order. */
  static List<Map<String, Object>> problems(List<Problem> problems) {
    return problems.stream().map(p -> {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("line", p.location().line());
      m.put("col", p.location().column());
      m.put("path", p.path() == null ? "" : p.path());
      m.put("message", p.message());
      return (Map<String, Object>) m;
    }).toList();
  }

  /** A message on one line: the first line of a multi-line one, as an error body's message must be. */
  static String oneLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    return (nl < 0 ? s : s.substring(0, nl)).strip();
  }
}
