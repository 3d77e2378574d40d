package dev.loopflow.cli;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.WorkflowInvalidException;
import dev.loopflow.core.model.Problem;
import dev.loopflow.core.model.Workflow;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;

/** Loading shared by the commands: prints every problem and maps them to exit status 2. */
final class Support {
  private Support() {}

  /** The workflow, or null after printing its problems. */
  static Workflow load(Loopflow engine, Path file, PrintWriter err) {
    if (!Files.isRegularFile(file)) {
      err.println(file + ": no such file");
      return null;
    }
    try {
      return engine.load(file);
    } catch (WorkflowInvalidException e) {
      for (Problem p : e.problems()) {
        err.println(p.format());
      }
      err.println(file + ": " + e.problems().size() + (e.problems().size() == 1 ? " problem" : " problems"));
      return null;
    }
  }
}
