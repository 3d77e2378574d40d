package dev.loopflow.core.error;

/**
 * One thing wrong with a workflow file.
 *
 * @param location where it is
 * @param path the field path, e.g. {@code nodes.coder.prompt} or {@code edges[2].to}; empty for the whole file
 * @param message what is wrong, in words a user can act on
 */
public record Problem(Location location, String path, String message) {
  /** {@code file:line:col: path: message}, the form the CLI prints. */
  public String format() {
    return location + ": " + (path == null || path.isEmpty() ? "" : path + ": ") + message;
  }

  @Override
  public String toString() {
    return format();
  }
}
