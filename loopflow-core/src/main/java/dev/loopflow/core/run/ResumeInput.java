package dev.loopflow.core.run;

import java.util.Locale;

/**
 * What a person answers when a paused run continues: free text for an interactive loop gate, a decision (with an
 * optional comment) for an approval. {@link #none()} answers nothing, for a run that stopped without waiting for
 * anyone (a crash, a failure) or an approval whose timeout has passed and whose default decision applies.
 */
public record ResumeInput(String text, Decision decision, String comment) {
  private static final ResumeInput NONE = new ResumeInput(null, null, null);

  public enum Decision {
    APPROVE, REJECT;

    public String json() {
      return this == APPROVE ? "approved" : "rejected";
    }

    /** {@code approve}/{@code approved}/{@code yes}/{@code y} and the rejecting forms; null for anything else. */
    public static Decision parse(String s) {
      if (s == null) {
        return null;
      }
      return switch (s.trim().toLowerCase(Locale.ROOT)) {
        case "approve", "approved", "yes", "y" -> APPROVE;
        case "reject", "rejected", "no", "n", "deny" -> REJECT;
        default -> null;
      };
    }
  }

  public static ResumeInput none() {
    return NONE;
  }

  public static ResumeInput text(String text) {
    return text == null ? NONE : new ResumeInput(text, null, null);
  }

  public static ResumeInput approve(String comment) {
    return new ResumeInput(null, Decision.APPROVE, comment);
  }

  public static ResumeInput reject(String comment) {
    return new ResumeInput(null, Decision.REJECT, comment);
  }

  public boolean isEmpty() {
    return text == null && decision == null;
  }

  /** The decision, or the text read as one ({@code --input approve}). */
  public Decision effectiveDecision() {
    return decision != null ? decision : Decision.parse(text);
  }

  /** Text for a loop gate: the text, else the comment, else the decision's name. */
  public String gateText() {
    if (text != null) {
      return text;
    }
    if (comment != null) {
      return comment;
    }
    return decision == null ? null : decision.json();
  }
}
