package dev.loopflow.core;

import dev.loopflow.core.model.Problem;
import java.util.List;
import java.util.stream.Collectors;

/** A workflow that failed to load: carries every problem found, each with its file, line and column. */
public final class WorkflowInvalidException extends LoopflowException {
  private final List<Problem> problems;

  public WorkflowInvalidException(List<Problem> problems) {
    super(ErrorCode.WORKFLOW_INVALID, summarize(problems));
    this.problems = List.copyOf(problems);
  }

  public List<Problem> problems() {
    return problems;
  }

  private static String summarize(List<Problem> problems) {
    return problems.size() + (problems.size() == 1 ? " problem" : " problems") + ":\n"
        + problems.stream().map(Problem::format).collect(Collectors.joining("\n"));
  }
}
