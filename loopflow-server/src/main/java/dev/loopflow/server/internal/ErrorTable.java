package dev.loopflow.server.internal;

import dev.loopflow.core.error.ErrorCode;
import java.util.EnumMap;
import java.util.Map;

/**
 * The one mapping from an error to what the API answers: its HTTP status and the {@code code} in the error body.
 * Errors are told apart by their {@link ErrorCode} (core errors, restart responses) or by the server's own
 * {@link Kind}, never by message text. Every {@link ErrorCode} has an entry (a test checks it).
 */
final class ErrorTable {
  private ErrorTable() {}

  /** A status and the code the body carries. */
  record Entry(int status, String code) {}

  /** Errors of the server itself: requests it cannot serve for reasons no engine error names. */
  enum Kind {
    BAD_REQUEST(400, "bad_request"),
    UNAUTHORIZED(401, "unauthorized"),
    NOT_FOUND(404, "not_found"),
    RUN_NOT_FOUND(404, "run_not_found"),
    WORKFLOW_NOT_FOUND(404, "workflow_not_found"),
    TEMPLATE_NOT_FOUND(404, "template_not_found"),
    METHOD_NOT_ALLOWED(405, "method_not_allowed"),
    NOT_ACCEPTABLE(406, "not_acceptable"),
    CONFLICT(409, "conflict"),
    PAYLOAD_TOO_LARGE(413, "payload_too_large"),
    UNSUPPORTED_MEDIA_TYPE(415, "unsupported_media_type"),
    MISDIRECTED(421, "misdirected_request"),
    INTERNAL(500, "internal"),
    UNAVAILABLE(503, "unavailable");

    final Entry entry;

    Kind(int status, String code) {
      this.entry = new Entry(status, code);
    }
  }

  private static final Map<ErrorCode, Entry> BY_CODE = new EnumMap<>(ErrorCode.class);

  static {
    // Problems of the request.
    put(ErrorCode.WORKFLOW_INVALID, 400);
    BY_CODE.put(ErrorCode.USAGE, Kind.BAD_REQUEST.entry);
    put(ErrorCode.ANSWER_INVALID, 422);
    // The run's state does not allow what was asked.
    put(ErrorCode.RUN_BUSY, 409);
    put(ErrorCode.RUN_NOT_RESUMABLE, 409);
    put(ErrorCode.WORKFLOW_CHANGED, 409);
    put(ErrorCode.FORK_REFUSED, 409);
    put(ErrorCode.RUN_HAS_FORKS, 409);
    // Restart responses, with the statuses the iterative pipeline's API gives them.
    put(ErrorCode.RESTART_VALIDATION_FAILED, 400);
    put(ErrorCode.STAGE_NOT_RESTARTABLE, 403);
    put(ErrorCode.REQUESTER_NOT_AUTHORIZED, 403);
    put(ErrorCode.RESTART_COOLDOWN_NOT_ELAPSED, 429);
    put(ErrorCode.MAX_ITERATIONS_EXCEEDED, 500);
    put(ErrorCode.VALIDATION_RETRY_EXHAUSTED, 500);
    put(ErrorCode.SHARED_MEMORY_KEY_NOT_FOUND, 404);
    // The store cannot be reached: the request may succeed later.
    put(ErrorCode.STORE_UNAVAILABLE, 503);
    // Outcomes of a run, never the answer to a request: one escaping a request is the server's failure.
    for (ErrorCode c : new ErrorCode[] {ErrorCode.LOOP_ITERATION_EXCEEDED, ErrorCode.BUDGET_EXCEEDED,
        ErrorCode.NODE_FAILED, ErrorCode.TIMEOUT, ErrorCode.CANCELLED, ErrorCode.MAX_STEPS_EXCEEDED,
        ErrorCode.INTERNAL_ERROR, ErrorCode.LEASE_LOST, ErrorCode.SANDBOX_REQUIRED}) {
      BY_CODE.put(c, Kind.INTERNAL.entry);
    }
  }

  private static void put(ErrorCode code, int status) {
    BY_CODE.put(code, new Entry(status, code.code()));
  }

  static Entry of(ErrorCode code) {
    Entry e = BY_CODE.get(code);
    if (e == null) {
      throw new IllegalStateException("no HTTP mapping for error code " + code);
    }
    return e;
  }

  static Entry of(Kind kind) {
    return kind.entry;
  }

  /** A status the HTTP layer produced by itself (no route, a body over the limit): the code for it. */
  static Entry ofStatus(int status) {
    return switch (status) {
      case 401 -> Kind.UNAUTHORIZED.entry;
      case 404 -> Kind.NOT_FOUND.entry;
      case 405 -> Kind.METHOD_NOT_ALLOWED.entry;
      case 406 -> Kind.NOT_ACCEPTABLE.entry;
      case 409 -> Kind.CONFLICT.entry;
      case 413 -> Kind.PAYLOAD_TOO_LARGE.entry;
      case 415 -> Kind.UNSUPPORTED_MEDIA_TYPE.entry;
      case 421 -> Kind.MISDIRECTED.entry;
      case 503 -> Kind.UNAVAILABLE.entry;
      default -> status >= 400 && status < 500 ? new Entry(status, Kind.BAD_REQUEST.entry.code())
          : Kind.INTERNAL.entry;
    };
  }
}
