package dev.loopflow.core.error;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A shell command was not run because one of the values it would receive could make the shell run a command:
 * a value where bash evaluates arithmetic or a variable name (which expands array subscripts such as
 * {@code a[$(cmd)]}) was not a plain integer or name. Code {@link ErrorCode#NODE_FAILED}; {@link #rule()} says
 * which requirement the value missed, {@link #field()} which field of the node and {@link #source()} which
 * template (or {@code env.NAME}) produced it. Nothing was executed.
 */
public final class ShellValueRejectedException extends LoopflowException {
  /** What a value must be where it is used. */
  public enum Rule {
    /** Used in arithmetic: a decimal integer (optional sign, surrounding blanks), 64-bit. */
    INTEGER,
    /** Used as a variable name: letters, digits and {@code _} not starting with a digit, or an integer. */
    NAME,
    /** Passed to a command that evaluates arithmetic or variable names: no {@code [} followed by {@code $} or a backquote. */
    ARITHMETIC_INERT,
    /**
     * Passed where a program that runs code reads its options (python3 VALUE, ssh VALUE cmd, sed -e s/a/b/ VALUE):
     * must not start with {@code -} or {@code +}, which would make it an option.
     */
    OPERAND;

    /** The lower-case form used in a run's error details, e.g. {@code integer}. */
    public String code() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final String field;
  private final String source;
  private final Rule rule;

  public ShellValueRejectedException(String field, String source, Rule rule, String message) {
    super(ErrorCode.NODE_FAILED, message);
    this.field = field;
    this.source = source;
    this.rule = rule;
  }

  /** The node field as written in the workflow ({@code command}, {@code bash}, {@code until_bash}, ...). */
  public String field() {
    return field;
  }

  /** The template that produced the value, as written (e.g. {@code {{ input.n }}}), or {@code env.NAME}. */
  public String source() {
    return source;
  }

  public Rule rule() {
    return rule;
  }

  @Override
  public Map<String, Object> details() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("field", field);
    m.put("source", source);
    m.put("rule", rule.code());
    return m;
  }
}
