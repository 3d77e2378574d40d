package dev.loopflow.core.error;

import java.util.Map;

/** A run was started without a required input (one with no default). A front end says how to pass it. */
public final class MissingInputException extends LoopflowException {
  private static final long serialVersionUID = 1L;
  private final String input;

  public MissingInputException(String input, String message) {
    super(ErrorCode.USAGE, message);
    this.input = input;
  }

  /** The name of the missing input. */
  public String input() {
    return input;
  }

  @Override
  public Map<String, Object> details() {
    return Map.of("input", input);
  }
}
