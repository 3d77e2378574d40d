package dev.loopflow.core.store;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One message on a run's command bus: a request sent to the engine executing the run (a restart request today),
 * and the engine's response once it decided. The bus is durable: a command appended by any process is seen by
 * the engine that holds the run's lease, and a command without a response survives a crash and is decided after
 * the run resumes.
 *
 * @param seq the command's number within its run, 1-based, in the order the store accepted them
 * @param kind what the command asks for ({@code restart})
 * @param payload the request, as plain JSON-compatible data
 * @param response the engine's answer, or null while the command is pending
 * @param respondedAt when the answer was written, or null while pending
 */
public record RunCommand(String runId, long seq, String kind, Map<String, Object> payload, Instant createdAt,
    Map<String, Object> response, Instant respondedAt) {
  public RunCommand {
    Objects.requireNonNull(runId, "runId");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(createdAt, "createdAt");
    payload = payload == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(payload));
    response = response == null ? null
        : Collections.unmodifiableMap(new LinkedHashMap<>(response));
    if (seq < 1) {
      throw new IllegalArgumentException("seq must be >= 1 but was " + seq);
    }
  }

  public boolean pending() {
    return response == null;
  }
}
