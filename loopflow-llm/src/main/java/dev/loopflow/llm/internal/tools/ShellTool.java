package dev.loopflow.llm.internal.tools;

import dev.loopflow.core.expr.JsonSchemas;
import dev.loopflow.core.sandbox.ProcessSandbox;
import dev.loopflow.core.sandbox.SandboxPolicy;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.llm.provider.ToolSpec;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code shell}: runs a command the model wrote with {@code bash -c}, in the run's working directory with the
 * run's environment and under the agent node's sandbox, and returns its exit code, stdout and stderr (each kept to
 * its first and last halves of {@code maxOutputBytes}) and how it was contained. It executes whatever the model
 * writes, so a node only offers it with {@code {shell: {allow: true}}}. A command still running after the timeout is
 * killed with everything it started, and the call fails; stdin is empty.
 */
final class ShellTool implements Tool {
  static final String NAME = "shell";

  private static final Map<String, Object> PARAMETERS = Params.object(Params.props(
      "command", Params.string("the bash command line to run")), List.of("command"));
  private static final JsonSchemas.Compiled SCHEMA = Params.compile(PARAMETERS);

  private final SandboxPolicy sandbox;
  private final Duration timeout;
  private final int maxOutputBytes;
  private final ToolSpec spec;

  ShellTool(Duration timeout, int maxOutputBytes, SandboxPolicy sandbox) {
    this.sandbox = sandbox;
    this.timeout = timeout;
    this.maxOutputBytes = maxOutputBytes;
    this.spec = new ToolSpec(NAME, "Runs a bash command in the working directory and returns its exit code, stdout "
        + "and stderr. Commands are killed after " + Toolbox.human(timeout) + ".", PARAMETERS);
  }

  @Override
  public ToolSpec spec() {
    return spec;
  }

  @Override
  public JsonSchemas.Compiled schema() {
    return SCHEMA;
  }

  @Override
  public Object call(NodeContext ctx, Map<String, Object> args) throws Exception {
    ProcessSandbox.Finished r;
    try {
      r = ProcessSandbox.run(ctx, sandbox, List.of("bash", "-c", (String) args.get("command")), ctx.environment(),
          ctx.workingDirectory(), null, timeout, maxOutputBytes);
    } catch (IOException e) {
      throw new ToolError("cannot start bash: " + e.getMessage());
    }
    if (r.timedOut()) {
      throw new ToolError("the command did not finish within " + Toolbox.human(timeout) + " and was killed; "
          + "stdout so far: " + r.stdout());
    }
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("exit_code", r.exitCode());
    result.put("stdout", r.stdout());
    result.put("stderr", r.stderr());
    result.put("sandbox", r.sandbox());
    return result;
  }
}
