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

  /**
   * Applies {@code --mock-llm [SCRIPT]} (null: not given; empty: the workflow's own mock block). False after
   * printing why when the script file does not exist.
   */
  static boolean mockOption(dev.loopflow.core.run.RunOptions.Builder opts, String mockScript, PrintWriter err) {
    if (mockScript == null) {
      return true;
    }
    opts.option("llm.mock", true);
    if (!mockScript.isEmpty()) {
      Path p = Path.of(mockScript);
      if (!Files.isRegularFile(p)) {
        err.println("loopflow: --mock-llm " + mockScript + ": no such file");
        return false;
      }
      opts.option("llm.mock_script", p.toAbsolutePath().toString());
    }
    return true;
  }
}
