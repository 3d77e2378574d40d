package dev.loopflow.core.store;

import dev.loopflow.core.run.RunError;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.spi.Usage;
import java.time.Instant;
import java.util.Map;

/** A run as journaled: what ran (source and its hash), with what inputs, and how it ended. */
public record RunRecord(String runId, String workflow, String file, String source, String sourceHash,
    Map<String, Object> inputs, RunStatus status, Instant startedAt, Instant finishedAt, Usage usage, Object output,
    RunError error) {

  public RunRecord finish(RunStatus s, Instant at, Usage u, Object out, RunError err) {
    return new RunRecord(runId, workflow, file, source, sourceHash, inputs, s, startedAt, at, u, out, err);
  }
}
