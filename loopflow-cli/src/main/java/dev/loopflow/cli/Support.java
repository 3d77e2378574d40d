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
   * Applies {@code --mock-llm} and {@code --mock-script FILE} (which implies the mock). The script is read here and
   * handed to the run as its content, so it is journaled with the run and a resume answers from the same script
   * whatever happens to the file. False after printing why when the script cannot be read.
   */
  static boolean mockOption(dev.loopflow.core.run.RunOptions.Builder opts, boolean mock, Path script,
      PrintWriter err) {
    if (!mock && script == null) {
      return true;
    }
    opts.option("llm.mock", true);
    if (script != null) {
      try {
        opts.option("llm.mock_script", dev.loopflow.llm.MockScripts.read(script));
      } catch (IllegalArgumentException e) {
        err.println("loopflow: --mock-script " + script + ": " + (Files.isRegularFile(script) ? e.getMessage()
            : "no such file"));
        return false;
      }
    }
    return true;
  }
}
