package dev.loopflow.core.run;

import java.time.Instant;
import java.util.Optional;

/**
 * Why a journaled run cannot be resumed with a given answer. The one place that decides whether a run is resumable
 * and whether an answer fits what it waits for: the engine refuses a resume with it, and a front end (the CLI) asks
 * it first to word the refusal in its own terms ({@link #reason()} and {@link #waiting()}), never by reading the
 * journal itself.
 *
 * @param waiting what the run waits for, or null when it waits for nothing
 * @param message a refusal in front-end-neutral words
 */
public record ResumeRefusal(Reason reason, RunStatus status, Waiting waiting, String message) {

  public enum Reason {
    /** The run completed or was cancelled. */
    NOT_RESUMABLE,
    /** The run failed or was interrupted: it waits for nobody, yet an answer was given. */
    NO_ANSWER_EXPECTED,
    /** The run waits for a person and no answer was given (an approval's deadline has not passed). */
    ANSWER_REQUIRED,
    /** An approval was given something that is not a decision, or a loop gate a bare decision. */
    WRONG_ANSWER,
    /**
     * The step has a form and its values are missing or do not fit it, or the step has no form and values were
     * given. The run stays paused.
     */
    INVALID_VALUES
  }

  /**
   * Empty when a run with this status, waiting for {@code waiting}, may be resumed with {@code answer} at
   * {@code now}. A run that waits for an approval whose deadline has passed may be resumed without an answer: the
   * approval's default decision applies.
   */
  public static Optional<ResumeRefusal> check(String runId, RunStatus status, Waiting waiting, ResumeInput answer,
      Instant now) {
    ResumeInput in = answer == null ? ResumeInput.none() : answer;
    if (status == RunStatus.COMPLETED || status == RunStatus.CANCELLED) {
      return refuse(Reason.NOT_RESUMABLE, status, null, "run '" + runId + "' is " + status.json()
          + " and cannot be resumed");
    }
    Waiting w = status == RunStatus.PAUSED ? waiting : null;
    if (w == null) {
      return in.isEmpty() ? Optional.empty() : refuse(Reason.NO_ANSWER_EXPECTED, status, null, "run '" + runId
          + "' is " + (status == RunStatus.RUNNING ? "interrupted" : status.json()) + " and waits for no answer");
    }
    if (w.kind() == Waiting.Kind.APPROVAL) {
      if (!in.isEmpty() && in.effectiveDecision() == null) {
        return refuse(Reason.WRONG_ANSWER, status, w, "run '" + runId + "' waits for an approval at " + w.path()
            + "; answer approve or reject, not '" + in.text() + "'");
      }
      if (in.isEmpty() && !w.deadlinePassed(now)) {
        return refuse(Reason.ANSWER_REQUIRED, status, w, "run '" + runId + "' waits for an approval at " + w.path()
            + ": " + w.message());
      }
      // A rejection needs no values (values given with one are still checked); an approval with a form needs them.
      boolean needsValues = !in.isEmpty() && (in.effectiveDecision() == ResumeInput.Decision.APPROVE
          || in.values() != null);
      return needsValues ? values(runId, status, w, in) : Optional.empty();
    }
    if (in.text() == null && in.decision() != null) {
      return refuse(Reason.WRONG_ANSWER, status, w, "run '" + runId + "' waits for text at loop gate " + w.path()
          + ", not for an approval");
    }
    if (in.isEmpty()) {
      return refuse(Reason.ANSWER_REQUIRED, status, w, "run '" + runId + "' waits for an answer at " + w.path()
          + ": " + w.message());
    }
    return values(runId, status, w, in);
  }

  /** Whether the answer's values fit the step's form; values for a step without one are refused too. */
  private static Optional<ResumeRefusal> values(String runId, RunStatus status, Waiting w, ResumeInput in) {
    if (w.schema() == null) {
      return in.values() == null ? Optional.empty() : refuse(Reason.INVALID_VALUES, status, w, "run '" + runId
          + "' waits at " + w.path() + ", which asks for no values; answer without them");
    }
    String why;
    try {
      why = AnswerSchema.of(w.schema()).refusal(in.values());
    } catch (IllegalArgumentException notAForm) {
      why = "its form is not valid: " + notAForm.getMessage();
    }
    return why == null ? Optional.empty() : refuse(Reason.INVALID_VALUES, status, w, "run '" + runId
        + "' waits for a form at " + w.path() + ": " + why);
  }

  private static Optional<ResumeRefusal> refuse(Reason r, RunStatus s, Waiting w, String message) {
    return Optional.of(new ResumeRefusal(r, s, w, message));
  }
}
