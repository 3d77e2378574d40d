package dev.loopflow.core.store;

import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.ResumeRefusal;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.run.Waiting;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What a journaled run is, read once: its record (workflow, source, status, times), what it waits for, whether and
 * with what answer it can be resumed, and its result object (the one {@code run --json} printed, or for a run that
 * is still running or whose process died, rebuilt from its journal). Front ends (the CLI, a server) ask this
 * instead of reading the journal or deciding resumability themselves.
 */
public record RunInfo(RunRecord record, RunResult result) {
  public RunInfo {
    Objects.requireNonNull(record, "record");
    Objects.requireNonNull(result, "result");
  }

  public String runId() {
    return record.runId();
  }

  public RunStatus status() {
    return record.status();
  }

  /** What the run waits for; empty unless it is paused. */
  public Optional<Waiting> waiting() {
    return Optional.ofNullable(record.status() == RunStatus.PAUSED ? record.waiting() : null);
  }

  /**
   * Why resuming the run with {@code answer} (null: none) at {@code now} would be refused; empty when it would be
   * accepted. The engine checks the same again under the run's lease when it resumes.
   */
  public Optional<ResumeRefusal> refusal(ResumeInput answer, Instant now) {
    return ResumeRefusal.check(record.runId(), record.status(), record.waiting(), answer, now);
  }

  /** Whether the run can be resumed at all (paused, failed, or interrupted by a crash), with the right answer. */
  public boolean resumable() {
    return refusal(null, Instant.MAX).filter(r -> r.reason() == ResumeRefusal.Reason.NOT_RESUMABLE).isEmpty();
  }
}
