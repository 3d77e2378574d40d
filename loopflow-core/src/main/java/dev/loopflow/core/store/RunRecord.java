package dev.loopflow.core.store;

import dev.loopflow.core.run.RunError;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.spi.Usage;
import java.time.Instant;
import java.util.Map;

/**
 * A run as journaled: what ran (source and its hash, and the directory it ran in, where a resumed run's shell
 * nodes run again), with what inputs, and how it ended. A paused run also records where it waits
 * ({@code pausedAt}, a position path) and what it asks ({@code pauseMessage}). A run that ended or paused keeps
 * its final {@code state} and top-level {@code nodes} report, so it is shown exactly as {@code run --json} printed
 * it; both are null while it runs (a crashed run is shown from its node executions).
 */
public record RunRecord(String runId, String workflow, String file, String source, String sourceHash,
    Map<String, Object> inputs, RunStatus status, Instant startedAt, Instant finishedAt, Usage usage, Object output,
    RunError error, String pausedAt, String pauseMessage, String workingDirectory, Map<String, Object> state,
    Map<String, Object> nodes) {

  /**
   * Whether {@code source} is exactly the text the run started from. False when credentials written in it were
   * masked before it was journaled: the hash is always of the text as written, so it no longer matches, and the
   * journaled source cannot run as it is.
   */
  public boolean sourceIsExact() {
    return source == null || sourceHash == null || sourceHash.equals(dev.loopflow.core.Loopflow.sourceHash(source));
  }

  public RunRecord finish(RunStatus s, Instant at, Usage u, Object out, RunError err) {
    return finish(s, at, u, out, err, state, nodes);
  }

  public RunRecord finish(RunStatus s, Instant at, Usage u, Object out, RunError err, Map<String, Object> finalState,
      Map<String, Object> nodeReports) {
    return new RunRecord(runId, workflow, file, source, sourceHash, inputs, s, startedAt, at, u, out, err, null,
        null, workingDirectory, finalState, nodeReports);
  }

  public RunRecord paused(Instant at, Usage u, String where, String message) {
    return paused(at, u, where, message, state, nodes);
  }

  public RunRecord paused(Instant at, Usage u, String where, String message, Map<String, Object> finalState,
      Map<String, Object> nodeReports) {
    return new RunRecord(runId, workflow, file, source, sourceHash, inputs, RunStatus.PAUSED, startedAt, at, u, null,
        null, where, message, workingDirectory, finalState, nodeReports);
  }

  public RunRecord resumed() {
    return new RunRecord(runId, workflow, file, source, sourceHash, inputs, RunStatus.RUNNING, startedAt, null, usage,
        null, null, pausedAt, pauseMessage, workingDirectory, null, null);
  }
}
