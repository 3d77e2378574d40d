package dev.loopflow.cli;

/**
 * A problem the command line reports as one line on stderr with an exit status: 2 for a usage error (a bad
 * argument, option value or file named on the command line), 1 for a runtime failure (a store that cannot be
 * opened, a file that cannot be written). Thrown anywhere below a command and printed by {@link Errors}, so no
 * command needs its own catch-and-print.
 */
final class CliError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int exitStatus;

  private CliError(int exitStatus, String message, Throwable cause) {
    super(message, cause);
    this.exitStatus = exitStatus;
  }

  /** Exit status 2: what the user typed is wrong. */
  static CliError usage(String message) {
    return new CliError(Main.USAGE, message, null);
  }

  /** Exit status 2, keeping the cause for {@code --debug}. */
  static CliError usage(String message, Throwable cause) {
    return new CliError(Main.USAGE, message, cause);
  }

  /** Exit status 1: the arguments were fine but something failed while carrying them out. */
  static CliError failure(String message, Throwable cause) {
    return new CliError(Main.FAILED, message, cause);
  }

  int exitStatus() {
    return exitStatus;
  }
}
