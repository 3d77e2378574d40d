package dev.loopflow.llm.internal.tools;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.loopflow.core.expr.JsonSchemas;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.llm.provider.ToolSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code workflow}: another workflow file as a tool. Its arguments are the child workflow's declared inputs (a type
 * name becomes that JSON type, a JSON Schema is used as it is; an input without a default is required), read from
 * the file when the agent's workflow is loaded; the call runs the child to its end as a child run and returns its
 * output. A child that does not complete is the call's error, with its status and error. The child is loaded and
 * checked in full when it runs.
 *
 * <p>What must stay true: one model reply starts at most {@code max_runs_per_reply} runs of this tool and a tree of
 * runs at most {@code max_runs_per_run} child runs (the calls past a cap are refused to the model, never run), and a
 * child's LLM calls are reserved in the calling node's budgets before they are made (see
 * {@link NodeContext#runWorkflow(Path, Map, int)}).
 */
final class WorkflowTool implements Tool {
  static final String KEY = "workflow";
  /** A child workflow file bigger than this is refused at load. */
  static final long MAX_FILE_BYTES = 1 << 20;
  private static final Set<String> TYPES = Set.of("string", "number", "integer", "boolean", "object", "array");

  /** How many runs of one workflow tool a single model reply may start when its entry sets no limit. */
  static final int DEFAULT_RUNS_PER_REPLY = 8;
  /**
   * How many child runs a run may start through a workflow tool when its entry sets no limit; counted over the
   * whole tree of runs (a child's own children count too).
   */
  static final int DEFAULT_RUNS_PER_RUN = 50;
  /** The highest either limit may be set to. */
  static final int MAX_RUNS = 10_000;

  private final Path file;
  private final ToolSpec spec;
  private final JsonSchemas.Compiled schema;
  private final int runsPerReply;
  private final int runsPerRun;

  private WorkflowTool(Path file, ToolSpec spec, int runsPerReply, int runsPerRun) {
    this.file = file;
    this.spec = spec;
    this.schema = JsonSchemas.compile(spec.parameters());
    this.runsPerReply = runsPerReply;
    this.runsPerRun = runsPerRun;
  }

  /** How many calls of this tool one model reply may make; the calls past it are refused, in reply order. */
  int runsPerReply() {
    return runsPerReply;
  }

  /**
   * The tool for the workflow at {@code file} (already resolved), named {@code name} (null: the file's name
   * without its extension). Throws {@link IllegalArgumentException} with what is wrong with the file.
   */
  static WorkflowTool of(Path file, String name, String description) {
    return of(file, name, description, DEFAULT_RUNS_PER_REPLY, DEFAULT_RUNS_PER_RUN);
  }

  /** {@link #of(Path, String, String)} with its caps on child runs per model reply and per run. */
  static WorkflowTool of(Path file, String name, String description, int runsPerReply, int runsPerRun) {
    Map<?, ?> doc = read(file);
    String toolName = name != null ? name : defaultName(file);
    if (!ToolSpec.isValidName(toolName)) {
      throw new IllegalArgumentException("the tool name '" + toolName + "' (from the file name) is not a valid tool "
          + "name: use 1 to 64 letters, digits, '_' or '-', or give one with name:");
    }
    String about = description != null ? description
        : doc.get("description") instanceof String d ? d
        : "Runs the workflow " + (doc.get("name") instanceof String n ? n : file.getFileName()) + " and returns its "
            + "output.";
    return new WorkflowTool(file, new ToolSpec(toolName, about, parameters(file, doc)), runsPerReply, runsPerRun);
  }

  static String defaultName(Path file) {
    String base = file.getFileName().toString();
    int dot = base.indexOf('.');
    return dot > 0 ? base.substring(0, dot) : base;
  }

  private static Map<?, ?> read(Path file) {
    try {
      if (!Files.isRegularFile(file)) {
        throw new IllegalArgumentException("workflow file " + file + " does not exist");
      }
      if (Files.size(file) > MAX_FILE_BYTES) {
        throw new IllegalArgumentException("workflow file " + file + " has more than " + MAX_FILE_BYTES + " bytes");
      }
      Object doc = new ObjectMapper(new YAMLFactory()).readValue(Files.readString(file), Object.class);
      if (!(doc instanceof Map<?, ?> m)) {
        throw new IllegalArgumentException("workflow file " + file + " does not hold a workflow (a mapping)");
      }
      return m;
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read workflow file " + file + ": " + e.getMessage(), e);
    }
  }

  /** The child's declared inputs ({@code input:} or {@code flow.input:}) as an object schema. */
  private static Map<String, Object> parameters(Path file, Map<?, ?> doc) {
    Object inputs = doc.get("input");
    if (inputs == null && doc.get("flow") instanceof Map<?, ?> flow) {
      inputs = flow.get("input");
    }
    Map<String, Object> properties = new LinkedHashMap<>();
    List<String> required = new ArrayList<>();
    if (inputs instanceof Map<?, ?> declared) {
      for (Map.Entry<?, ?> e : declared.entrySet()) {
        String name = String.valueOf(e.getKey());
        if (e.getValue() instanceof String type && TYPES.contains(type)) {
          properties.put(name, Map.of("type", type));
          required.add(name);
        } else if (e.getValue() instanceof Map<?, ?> s) {
          Map<String, Object> property = new LinkedHashMap<>();
          s.forEach((k, v) -> {
            if (!k.equals("default")) {
              property.put(String.valueOf(k), v);
            }
          });
          properties.put(name, property);
          if (!s.containsKey("default")) {
            required.add(name);
          }
        } else {
          throw new IllegalArgumentException("workflow file " + file + ": input '" + name + "' needs a type name "
              + TYPES + " or a JSON Schema");
        }
      }
    } else if (inputs != null) {
      throw new IllegalArgumentException("workflow file " + file + ": input must be a mapping of input name to type");
    }
    Map<String, Object> schema = Params.object(properties, required);
    try {
      JsonSchemas.compile(schema);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("workflow file " + file + ": its inputs are not a valid JSON Schema: "
          + e.getMessage(), e);
    }
    return schema;
  }

  @Override
  public ToolSpec spec() {
    return spec;
  }

  @Override
  public JsonSchemas.Compiled schema() {
    return schema;
  }

  @Override
  public Object call(NodeContext ctx, Map<String, Object> args) throws Exception {
    // Over the cap this throws budget_exceeded, which the model is told as the call's error.
    Map<String, Object> r = ctx.runWorkflow(file, args, runsPerRun);
    if ("completed".equals(r.get("status"))) {
      return r.get("output") == null ? "" : r.get("output");
    }
    String why = r.get("error") instanceof Map<?, ?> e ? e.get("code") + ": " + e.get("message") : "no error given";
    throw new ToolError("the workflow " + file.getFileName() + " ended " + r.get("status") + " (run " + r.get("run_id")
        + "): " + why);
  }
}
