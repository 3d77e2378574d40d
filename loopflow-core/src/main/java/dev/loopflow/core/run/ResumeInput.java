package dev.loopflow.core.run;

import dev.loopflow.core.expr.Json;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What a person answers when a paused run continues: free text for an interactive loop gate, a decision (with an
 * optional comment) for an approval, and for a step with a form ({@link Waiting#schema()}) the form's values, a JSON
 * object. {@link #none()} answers nothing, for a run that stopped without waiting for anyone (a crash, a failure)
 * or an approval whose timeout has passed and whose default decision applies.
 *
 * @param values the form's values, or null when none were given ({@link AnswerSchema#refusal} checks them)
 */
public record ResumeInput(String text, Decision decision, String comment, Map<String, Object> values) {
  private static final ResumeInput NONE = new ResumeInput(null, null, null, null);

  public ResumeInput(String text, Decision decision, String comment) {
    this(text, decision, comment, null);
  }

  public ResumeInput {
    values = values == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(values));
  }

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

  /** The same answer with the form's {@code values} (null for none). */
  public ResumeInput withValues(Map<String, Object> v) {
    return new ResumeInput(text, decision, comment, v);
  }

  public boolean isEmpty() {
    return text == null && decision == null && values == null;
  }

  /**
   * The decision, or the text read as one ({@code --input approve}); values alone approve (submitting an
   * approval's form is approving it).
   */
  public Decision effectiveDecision() {
    if (decision != null) {
      return decision;
    }
    if (text != null) {
      return Decision.parse(text);
    }
    return values != null ? Decision.APPROVE : null;
  }

  /**
   * Text for a loop gate: the text, else the comment, else the decision's name, else the values as compact JSON
   * (so {@code loop.user_input} is never empty when a person answered with a form only).
   */
  public String gateText() {
    if (text != null) {
      return text;
    }
    if (comment != null) {
      return comment;
    }
    if (decision != null) {
      return decision.json();
    }
    return values == null ? null : Json.compact(values);
  }
}
