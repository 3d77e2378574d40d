package dev.loopflow.core.error;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A script went past one of its limits ({@code max_instructions}, {@code max_string_bytes}, {@code max_memory}).
 * Code {@link ErrorCode#NODE_FAILED}, like any other script failure; {@link #limit()} and {@link #value()} (also in
 * the run error's details) say which limit it was, so callers need not read the message.
 */
public final class ScriptLimitExceededException extends LoopflowException {
  private final String limit;
  private final long value;

  public ScriptLimitExceededException(String limit, long value, String message, NodePosition position) {
    super(ErrorCode.NODE_FAILED, message, position);
    this.limit = limit;
    this.value = value;
  }

  /** The node field that sets the limit, e.g. {@code max_memory}. */
  public String limit() {
    return limit;
  }

  /** The limit's value (instructions or bytes). */
  public long value() {
    return value;
  }

  @Override
  public Map<String, Object> details() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("limit", limit);
    m.put("value", value);
    return m;
  }
}
