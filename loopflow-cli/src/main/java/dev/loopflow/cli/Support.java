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

  /** The environment variable that turns {@code --http-deny-private} on for every run and resume. */
  static final String HTTP_DENY_PRIVATE_ENV = "LOOPFLOW_HTTP_DENY_PRIVATE";

  /**
   * Applies {@code --http-deny-private}, or {@code LOOPFLOW_HTTP_DENY_PRIVATE} set to 1 or true: http nodes refuse
   * private addresses. False after printing why when the variable holds anything else (0, false and empty: off).
   */
  static boolean httpPolicy(dev.loopflow.core.run.RunOptions.Builder opts, boolean flag,
      java.util.Map<String, String> env, PrintWriter err) {
    String v = env.get(HTTP_DENY_PRIVATE_ENV);
    String value = v == null ? "" : v.strip().toLowerCase(java.util.Locale.ROOT);
    if (!java.util.Set.of("", "0", "1", "false", "true").contains(value)) {
      err.println("loopflow: " + HTTP_DENY_PRIVATE_ENV + " must be 1, true, 0 or false, was '" + v + "'");
      return false;
    }
    if (flag || value.equals("1") || value.equals("true")) {
      opts.option(dev.loopflow.core.run.RunOptions.HTTP_DENY_PRIVATE, true);
    }
    return true;
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
