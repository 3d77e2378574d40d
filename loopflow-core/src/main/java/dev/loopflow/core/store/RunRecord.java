package dev.loopflow.core.store;

import dev.loopflow.core.run.RunError;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.spi.Usage;
import java.time.Instant;
import java.util.Map;

/**
 * A run as journaled: what ran (source and its hash, and the directory it ran in, where a resumed run's shell
 * nodes run again), with what inputs, and how it ended. A paused run also records where it waits
 * ({@code pausedAt}, a position path) and what it asks ({@code pauseMessage}).
 */
public record RunRecord(String runId, String workflow, String file, String source, String sourceHash,
    Map<String, Object> inputs, RunStatus status, Instant startedAt, Instant finishedAt, Usage usage, Object output,
    RunError error, String pausedAt, String pauseMessage, String workingDirectory) {

  public RunRecord finish(RunStatus s, Instant at, Usage u, Object out, RunError err) {
    return new RunRecord(runId, workflow, file, source, sourceHash, inputs, s, startedAt, at, u, out, err, null,
        null, workingDirectory);
  }

  public RunRecord paused(Instant at, Usage u, String where, String message) {
    return new RunRecord(runId, workflow, file, source, sourceHash, inputs, RunStatus.PAUSED, startedAt, at, u, null,
        null, where, message, workingDirectory);
  }

  public RunRecord resumed() {
    return new RunRecord(runId, workflow, file, source, sourceHash, inputs, RunStatus.RUNNING, startedAt, null, usage,
        null, null, pausedAt, pauseMessage, workingDirectory);
  }
}
