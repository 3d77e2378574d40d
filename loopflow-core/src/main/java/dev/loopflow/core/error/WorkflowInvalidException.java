package dev.loopflow.core.error;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/** A workflow that failed to load: carries every problem found, each with its file, line and column. */
public final class WorkflowInvalidException extends LoopflowException {
  private final List<Problem> problems;

  public WorkflowInvalidException(List<Problem> problems) {
    this(problems, null);
  }

  private WorkflowInvalidException(List<Problem> problems, Throwable cause) {
    super(ErrorCode.WORKFLOW_INVALID, summarize(problems), null, cause);
    this.problems = List.copyOf(problems);
  }

  /**
   * A workflow file that cannot be read (missing, not readable, an I/O error): one problem at the file's start, so
   * that callers report it like any other problem of the file. The I/O exception is the cause.
   */
  public static WorkflowInvalidException unreadable(Path file, IOException e) {
    String reason = switch (e) {
      case NoSuchFileException n -> "no such file";
      case AccessDeniedException a -> "permission denied";
      case FileSystemException f when f.getReason() != null -> f.getReason();
      default -> e.getMessage() == null ? "input/output error" : e.getMessage();
    };
    return new WorkflowInvalidException(List.of(new Problem(new Location(file.toString(), 1, 1), "",
        "cannot read the file: " + reason)), e);
  }

  public List<Problem> problems() {
    return problems;
  }

  private static String summarize(List<Problem> problems) {
    return problems.size() + (problems.size() == 1 ? " problem" : " problems") + ":\n"
        + problems.stream().map(Problem::format).collect(Collectors.joining("\n"));
  }
}
