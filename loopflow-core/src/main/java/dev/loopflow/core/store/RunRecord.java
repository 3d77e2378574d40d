package dev.loopflow.core.store;

import dev.loopflow.core.run.RunError;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.run.Waiting;
import dev.loopflow.core.spi.Usage;
import java.time.Instant;
import java.util.Map;

/**
 * A run as journaled: what ran (source and its hash, and the directory it ran in, where a resumed run's shell
 * nodes run again), with what inputs and run options (those a resume must reuse, such as the mock LLM provider
 * and its script), and how it ended. A paused run also records what it waits for ({@code waiting}). A run that
 * ended or paused keeps its final {@code state} and top-level {@code nodes} report, so it is shown exactly as
 * {@code run --json} printed it; both are null while it runs (a crashed run is shown from its node executions).
 *
 * @param options run options as plain JSON values; never null (empty when none)
 */
public record RunRecord(String runId, String workflow, String file, String source, String sourceHash,
    Map<String, Object> inputs, Map<String, Object> options, RunStatus status, Instant startedAt, Instant finishedAt,
    Usage usage, Object output, RunError error, Waiting waiting, String workingDirectory, Map<String, Object> state,
    Map<String, Object> nodes) {

  public RunRecord {
    options = options == null ? Map.of() : options;
  }

  /** The position path the run waits at, or null when it waits for nothing. */
  public String pausedAt() {
    return waiting == null ? null : waiting.path();
  }

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
    return new RunRecord(runId, workflow, file, source, sourceHash, inputs, options, s, startedAt, at, u, out, err,
        null, workingDirectory, finalState, nodeReports);
  }

  public RunRecord paused(Instant at, Usage u, Waiting w) {
    return paused(at, u, w, state, nodes);
  }

  public RunRecord paused(Instant at, Usage u, Waiting w, Map<String, Object> finalState,
      Map<String, Object> nodeReports) {
    return new RunRecord(runId, workflow, file, source, sourceHash, inputs, options, RunStatus.PAUSED, startedAt, at,
        u, null, null, w, workingDirectory, finalState, nodeReports);
  }

  /** Running again, with the options the resumed attempt runs with; it no longer waits for anything. */
  public RunRecord resumed(Map<String, Object> runOptions) {
    return new RunRecord(runId, workflow, file, source, sourceHash, inputs, runOptions, RunStatus.RUNNING, startedAt,
        null, usage, null, null, null, workingDirectory, null, null);
  }
}
