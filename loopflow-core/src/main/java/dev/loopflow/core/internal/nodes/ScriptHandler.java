package dev.loopflow.core.internal.nodes;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.ScriptLimitExceededException;
import dev.loopflow.core.expr.Json;
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
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.Prototype;

/**
 * {@code script} ({@code run:}): inline code that sees {@code state} and {@code input} and returns a map
 * merged into {@code state}. Lua runs in-process in a sandbox; Python and Node run as subprocesses with
 * {@code {"state":…,"input":…}} as JSON on stdin and the returned value as JSON on stdout (the code's own
 * prints go to the node's {@code stdout} field, not into the result). Without {@code language}, the code is
 * recognized: Python by its statements ({@code import}, {@code def}, {@code try:}, a line ending in ':'),
 * JavaScript by {@code const}/{@code let}/{@code =>}, otherwise Lua.
 */
final class ScriptHandler implements NodeHandler {
  private static final Pattern PYTHON = Pattern.compile(
      "(?m)^\\s*(import\\s|from\\s+\\S+\\s+import\\s|def\\s|class\\s|try:|except\\b|elif\\s|with\\s.*:\\s*$)|:\\s*$");
  /** luaj's compiler message: {@code [string "name"]:LINE: message}. */
  private static final Pattern LUA_ERROR = Pattern.compile("(?s)\\[string \"[^\"]*\"\\]:(\\d+): (.*)");
  private static final Pattern JS = Pattern.compile("(?m)\\b(const|let|var)\\s+\\w+\\s*=|=>|console\\.|;\\s*$");

  /** The script languages; Lua runs in-process, the others as subprocesses. */
  static final List<String> LANGUAGES = List.of("lua", "python", "node", "javascript", "js");
  static final FieldSpec MAX_INSTRUCTIONS = FieldSpec.integer("max_instructions", 1000, Integer.MAX_VALUE, "Lua: the "
      + "most instructions the script may run.");
  static final FieldSpec MAX_STRING_BYTES = FieldSpec.integer("max_string_bytes", 1024, Integer.MAX_VALUE, "Lua: "
      + "the longest string the script may build, in bytes.");
  static final FieldSpec MAX_MEMORY = FieldSpec.integer("max_memory", 1 << 20, Integer.MAX_VALUE, "Lua: the most "
      + "memory the script may hold, in bytes.");
  static final NodeKindSpec SPEC = NodeKindSpec.of("script", "Runs inline code that sees state and input and "
      + "returns a map merged into state: Lua in a sandbox, or Python or Node as a subprocess.", List.of(
      FieldSpec.string("run", "The code."),
      FieldSpec.string("code", "The code (as run)."),
      FieldSpec.choice("language", LANGUAGES, "The code's language (default: recognized from the code; Lua "
          + "otherwise)."),
      MAX_INSTRUCTIONS, MAX_STRING_BYTES, MAX_MEMORY, SandboxPolicy.FIELD,
      Processes.MAX_OUTPUT_BYTES))
      .oneRequired("run", "code").atMostOne("run", "code");

  @Override
  public NodeKindSpec spec() {
    return SPEC;
  }

  @Override
  public Set<String> resultFields() {
    return Set.of("stdout", "sandbox", "stdoutBytes", "stderrBytes");
  }

  @Override
  public NodeProgram compile(NodeConfig cfg) {
    // The loader has refused a node that gives both (the spec's atMostOne).
    String field = cfg.has("run") ? "run" : "code";
    String code = cfg.requiredString(field);
    String language = cfg.string("language");
    Integer maxInstr = integer(cfg, MAX_INSTRUCTIONS);
    Integer maxString = integer(cfg, MAX_STRING_BYTES);
    Integer maxMemory = integer(cfg, MAX_MEMORY);
    if (code == null) {
      return null;
    }
    if (language == null) {
      language = detect(code);
    } else if (!LANGUAGES.contains(language)) {
      cfg.error("language", "unknown script language '" + language + "'; expected lua, python or node");
      return null;
    }
    if (language.equals("lua") && (cfg.has(SandboxPolicy.FIELD.name()) || cfg.has(Processes.MAX_OUTPUT_BYTES.name()))) {
      String f = cfg.has(SandboxPolicy.FIELD.name()) ? SandboxPolicy.FIELD.name() : Processes.MAX_OUTPUT_BYTES.name();
      cfg.error(f, "'" + f + "' applies to Python and Node scripts, which run as processes; Lua runs inside the "
          + "engine under its own limits (max_instructions, max_string_bytes, max_memory)");
      return null;
    }
    Processes.Settings settings = Processes.settings(cfg);
    LuaSandbox.Limits limits = new LuaSandbox.Limits(
        maxInstr == null ? LuaSandbox.DEFAULT_MAX_INSTRUCTIONS : maxInstr,
        maxString == null ? LuaSandbox.DEFAULT_MAX_STRING_BYTES : maxString,
        maxMemory == null ? LuaSandbox.DEFAULT_MAX_MEMORY : maxMemory);
    return switch (language) {
      case "lua" -> {
        Prototype proto;
        try {
          proto = LuaSandbox.compile(code, cfg.id());
        } catch (LuaError e) {
          Matcher m = LUA_ERROR.matcher(String.valueOf(e.getMessage()));
          if (m.matches()) {
            cfg.error(field, Integer.parseInt(m.group(1)), "Lua syntax error on line " + m.group(1) + " of the script: "
                + m.group(2).replaceAll("unexpected symbol \\d+ \\((.+)\\)", "unexpected symbol '$1'")
                // luaj names the end of the chunk by its token number (286), printed as 'Ğ'
                .replace("unexpected symbol 'Ğ'", "unexpected end of the script"));
          } else {
            cfg.error(field, "Lua syntax error: " + e.getMessage());
          }
          yield null;
        }
        // Lua runs in-process; its guard checks for interruption every thousand instructions or pattern steps.
        yield NodeProgram.inline(ctx -> runLua(ctx, proto, limits));
      }
      case "python" -> ctx -> runSubprocess(ctx, List.of("python3", "-c", pythonWrapper(code)), "python3", settings);
      case "node", "javascript", "js" -> ctx -> runSubprocess(ctx, List.of("node", "-e", nodeWrapper(code)), "node",
          settings);
      default -> {
        cfg.error("language", "unknown script language '" + language + "'; expected lua, python or node");
        yield null;
      }
    };
  }

  private static Integer integer(NodeConfig cfg, FieldSpec spec) {
    return cfg.integer(spec.name(), spec.minimumInt(), spec.maximumInt());
  }

  static String detect(String code) {
    if (PYTHON.matcher(code).find() && !code.contains(" then") && !code.contains(" end")) {
      return "python";
    }
    if (JS.matcher(code).find()) {
      return "node";
    }
    return "lua";
  }

  /** What a script sees; converted to Lua key by key on first read. */
  private static final List<String> BINDINGS = List.of("state", "input", "loop");
  private static final Set<String> LAZY = Set.copyOf(BINDINGS);

  /** {@code copy}: plain deep copies (for a subprocess's JSON); otherwise the read-only views themselves. */
  private static Map<String, Object> bindings(NodeContext ctx, boolean copy) {
    Map<String, Object> b = LinkedHashMap.newLinkedHashMap(BINDINGS.size());
    for (String name : BINDINGS) {
      Object v = ctx.scope().get(name);
      if (v != null || !name.equals("loop")) {
        b.put(name, copy ? Values.plain(v) : v);
      }
    }
    return b;
  }

  private static NodeOutcome runLua(NodeContext ctx, Prototype proto, LuaSandbox.Limits limits)
      throws InterruptedException {
    LuaSandbox.Result r;
    try {
      // Converted to Lua key by key on first read: a pass that never reads a long list in state does not pay for it.
      r = LuaSandbox.run(proto, bindings(ctx, false), limits, LAZY);
    } catch (LuaSandbox.LimitExceeded e) {
      throw new ScriptLimitExceededException(e.limit, e.value, "Lua error: " + e.getMessage(), ctx.position());
    } catch (LuaError e) {
      String m = String.valueOf(e.getMessage());
      throw new LoopflowException(ErrorCode.NODE_FAILED, "Lua error" + (m.startsWith("line ") ? " on " : ": ") + m,
          ctx.position());
    }
    return outcome(r.value(), r.printed(), ctx);
  }

  private static NodeOutcome outcome(Object value, String printed, NodeContext ctx) {
    Map<String, Object> patch = null;
    if (value instanceof Map<?, ?> m) {
      patch = stringKeyed(m);
    } else if (value != null) {
      throw new LoopflowException(ErrorCode.NODE_FAILED, "a script must return a table/dict (merged into state) "
          + "or nothing, returned " + Values.text(value), ctx.position());
    }
    // NodeOutcome copies both maps.
    return new NodeOutcome(value, Map.of("stdout", printed), null, patch);
  }

  /** The map itself when its keys are all strings (a Lua table or a JSON object always), else a copy. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> stringKeyed(Map<?, ?> m) {
    for (Object k : m.keySet()) {
      if (!(k instanceof String)) {
        Map<String, Object> copy = new LinkedHashMap<>();
        m.forEach((key, v) -> copy.put(String.valueOf(key), v));
        return copy;
      }
    }
    return (Map<String, Object>) m;
  }

  private static NodeOutcome runSubprocess(NodeContext ctx, List<String> command, String program,
      Processes.Settings settings) throws Exception {
    Map<String, Object> b = bindings(ctx, true);
    ProcessSandbox.Finished r;
    try {
      r = ProcessSandbox.run(ctx, settings.sandbox(), command, ctx.environment(), ctx.workingDirectory(),
          Json.compact(b), null, settings.maxOutputBytes());
    } catch (IOException e) {
      throw new LoopflowException(ErrorCode.NODE_FAILED, "cannot start " + program + ": " + e.getMessage()
          + " (is it installed and on PATH?)", ctx.position());
    }
    if (r.exitCode() != 0) {
      throw new LoopflowException(ErrorCode.NODE_FAILED, program + " script failed (exit " + r.exitCode() + "): "
          + ShellHandler.abbreviate(r.stderr().strip()), ctx.position());
    }
    if (r.stdoutCut()) {
      throw new LoopflowException(ErrorCode.NODE_FAILED, program + " script returned " + r.stdoutBytes() + " bytes "
          + "of JSON; the limit is " + settings.maxOutputBytes() + " (max_output_bytes)", ctx.position());
    }
    String out = r.stdout().strip();
    Object value = out.isEmpty() ? null : Json.parse(out);
    Map<String, Object> fields = new LinkedHashMap<>();
    Processes.describe(r, fields);
    return outcome(value, r.stderr(), ctx).withFields(fields);
  }

  /*
   * The user's code is the body of a function `main(state, input)`, so that a `return` at the top level of the
   * code (how a script gives its result) works.
   * While it runs, sys.stdout points at stderr, so print() cannot corrupt the JSON result.
   */
  static String pythonWrapper(String code) {
    StringBuilder body = new StringBuilder();
    for (String line : code.split("\n", -1)) {
      body.append("    ").append(line).append('\n');
    }
    return "import sys, json\n"
        + "__lf = json.load(sys.stdin)\n"
        + "def __lf_main(state, input):\n" + body + "    return None\n"
        + "__out = sys.stdout\n"
        + "sys.stdout = sys.stderr\n"
        + "__r = __lf_main(__lf.get('state') or {}, __lf.get('input') or {})\n"
        + "sys.stdout = __out\n"
        + "sys.stdout.write(json.dumps(__r))\n";
  }

  static String nodeWrapper(String code) {
    return "const __lf = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n"
        + "const __log = console.log; console.log = (...a) => console.error(...a);\n"
        + "Promise.resolve((async (state, input) => {\n" + code + "\n})(__lf.state || {}, __lf.input || {}))"
        + ".then(r => { process.stdout.write(r === undefined ? '' : JSON.stringify(r)); })"
        + ".catch(e => { console.error(e && e.stack || String(e)); process.exit(1); });\n";
  }
}
