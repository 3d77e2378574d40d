package dev.loopflow.core.internal.nodes;

import dev.loopflow.core.error.NodeFailedException;
import dev.loopflow.core.expr.Template;
import dev.loopflow.core.expr.Values;
import dev.loopflow.core.sandbox.ProcessSandbox;
import dev.loopflow.core.sandbox.SandboxPolicy;
import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.NodeProgram;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code shell}: a command as a string (run with {@code sh -c}; template values arrive as environment
 * variables and are checked for how the shell uses them, see {@link ShellTemplate}) or as an argv list (each
 * element rendered, no shell involved).
 */
final class ShellHandler implements NodeHandler {
  /** A value the node turns into text: a template, or a number or boolean written as it is. */
  static final FieldSpec TEXT = FieldSpec.oneOf("text", null, FieldSpec.template("text", null),
      FieldSpec.bool("text", null));
  static final NodeKindSpec SPEC = NodeKindSpec.of("shell", "Runs a command: a string under sh -c (bash for "
      + "'bash:'), template values reaching it as quoted variables, or an argv list run without a shell. A non-zero "
      + "exit status fails the node unless allow_failure.", List.of(
      FieldSpec.oneOf("command", "The command: a string run under the node's shell, or an argv list (each "
          + "element a template).", FieldSpec.template("command", null),
          FieldSpec.list("command", TEXT, null)),
      FieldSpec.oneOf("bash", "The command, run under bash.", FieldSpec.template("bash", null),
          FieldSpec.list("bash", TEXT, null)),
      FieldSpec.map("env", TEXT, "Environment variables for the command (values are templates)."),
      FieldSpec.template("cwd", "The working directory, relative to the run's."),
      FieldSpec.string("shell", "The shell a string command runs under (default sh; bash for 'bash:')."),
      SandboxPolicy.FIELD, Processes.MAX_OUTPUT_BYTES))
      .oneRequired("command", "bash").atMostOne("command", "bash");

  @Override
  public NodeKindSpec spec() {
    return SPEC;
  }

  @Override
  public Set<String> resultFields() {
    return Set.of("stdout", "stderr", "exitCode", "sandbox", "stdoutBytes", "stderrBytes");
  }

  @Override
  public NodeProgram compile(NodeConfig cfg) {
    // The loader has refused a node that gives both (the spec's atMostOne).
    String field = cfg.has("command") ? "command" : "bash";
    if (!cfg.has(field)) {
      cfg.error(null, "missing required field 'command'");
      return null;
    }
    ShellTemplate script = null;
    List<Template> argv = null;
    Object raw = cfg.plain(field);
    if (raw instanceof List<?> list) {
      if (list.isEmpty()) {
        cfg.error(field, "an argv list needs at least the program");
        return null;
      }
      argv = new ArrayList<>();
      for (Object o : list) {
        argv.add(cfg.template(field, String.valueOf(o)));
      }
    } else {
      String src = cfg.requiredString(field);
      if (src == null) {
        return null;
      }
      script = ShellTemplate.compile(cfg, field, cfg.fieldName(field), src);
      if (script == null) {
        return null;
      }
    }
    Map<String, Template> env = new LinkedHashMap<>();
    Map<String, Object> envRaw = cfg.map("env");
    if (envRaw != null) {
      envRaw.forEach((k, v) -> env.put(k, cfg.template("env", v == null ? "" : String.valueOf(v))));
    }
    ShellTemplate.checkEnv(cfg, env, script);
    Template cwd = cfg.template("cwd");
    String shell = cfg.has("shell") ? cfg.string("shell") : (field.equals("bash") ? "bash" : "sh");
    ShellTemplate fScript = script;
    List<Template> fArgv = argv;
    Processes.Settings settings = Processes.settings(cfg);
    return ctx -> execute(ctx, fScript, fArgv, env, cwd, shell, settings);
  }

  private static NodeOutcome execute(NodeContext ctx, ShellTemplate script, List<Template> argv,
      Map<String, Template> env, Template cwdT, String shell, Processes.Settings settings) throws Exception {
    Map<String, String> environment = new LinkedHashMap<>(ctx.environment());
    Map<String, String> extra = new LinkedHashMap<>();
    env.forEach((k, t) -> extra.put(k, Values.text(ctx.evaluate(t))));
    environment.putAll(extra);
    List<String> command = new ArrayList<>();
    if (argv != null) {
      for (Template t : argv) {
        command.add(Values.text(ctx.evaluate(t)));
      }
    } else {
      // Every value is checked before anything runs: a refused value fails the node with nothing executed.
      ShellTemplate.Bound bound = script.bind(ctx, extra);
      environment.putAll(bound.variables());
      command.add(shell);
      command.add("-c");
      command.add(bound.script());
    }
    Path cwd = ctx.workingDirectory();
    if (cwdT != null) {
      cwd = cwd.resolve(ctx.render(cwdT));
    }
    ProcessSandbox.Finished r = ProcessSandbox.run(ctx, settings.sandbox(), command, environment, cwd, null, null,
        settings.maxOutputBytes());
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("stdout", r.stdout());
    fields.put("stderr", r.stderr());
    fields.put("exitCode", r.exitCode());
    Processes.describe(r, fields);
    if (r.exitCode() != 0) {
      fields.put("output", Processes.chomp(r.stdout()));
      String err = r.stderr().strip();
      throw new NodeFailedException("command exited with status " + r.exitCode()
          + (err.isEmpty() ? "" : ": " + abbreviate(err)), fields);
    }
    return new NodeOutcome(Processes.chomp(r.stdout()), fields, null, null);
  }

  static String abbreviate(String s) {
    String last = s.length() > 500 ? "..." + s.substring(s.length() - 497) : s;
    return last;
  }
}
