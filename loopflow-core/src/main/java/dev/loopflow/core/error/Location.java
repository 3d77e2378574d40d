package dev.loopflow.core.error;

/** A place in a workflow file; line and column are 1-based. */
public record Location(String file, int line, int column) {
  public static final Location UNKNOWN = new Location("<unknown>", 0, 0);

  public Location {
    file = file == null ? "<unknown>" : file;
  }

  @Override
  public String toString() {
    return file + ":" + line + ":" + column;
  }
}
