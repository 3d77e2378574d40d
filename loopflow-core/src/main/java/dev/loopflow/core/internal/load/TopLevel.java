package dev.loopflow.core.internal.load;

import dev.loopflow.core.error.Names;
import dev.loopflow.core.expr.Template;
import dev.loopflow.core.model.InputSpec;
import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.yaml.YNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The workflow's top-level keys, its identity ({@code name}, {@code description}, {@code flow:}) and {@code output}. */
final class TopLevel {
  private TopLevel() {}

  static final List<FieldSpec> FLOW = List.of(
      FieldSpec.string("name", "The workflow's name."),
      Inputs.SECTION,
      FieldSpec.string("description", "Free text about the workflow."));
  /** The top-level fields, in the order a file usually has them. */
  static final List<FieldSpec> SPECS = List.of(
      FieldSpec.string("name", "The workflow's name (default: the file's name up to its first dot)."),
      FieldSpec.string("description", "Free text about the workflow."),
      FieldSpec.any("version", "Accepted and ignored."),
      FieldSpec.section("flow", FLOW, "The alternative form {name, input, description}; a top-level name or input "
          + "overrides or extends it."),
      Inputs.SECTION,
      FieldSpec.section("defaults", Settings.DEFAULTS, "Defaults for llm nodes: model, temperature, max_tokens, "
          + "system."),
      Settings.budgetField("the whole run"),
      Prices.SECTION,
      FieldSpec.section("limits", Settings.LIMITS, "Limits of the run: max_steps, timeout, concurrency."),
      FieldSpec.map("state", Settings.STATE_KEY, "How node writes merge into state keys: key to replace or append."),
      FieldSpec.nodes("nodes", "The workflow's nodes (not with workflow_pattern, which declares stages instead)."),
      FieldSpec.list("edges", FieldSpec.section("edges", Edges.SPECS, "One edge."), "Dependencies between top-level "
          + "nodes, branches of routers, and loop edges (type: loop)."),
      FieldSpec.template("output", "The run's result (default: the first completed output node's value, else the "
          + "output of the last node to complete)."),
      FieldSpec.any("mock", "Scripted answers for the mock LLM provider: {responses: [...] or {node id: [...]}}."),
      FieldSpec.section("workflow_pattern", Pipelines.PATTERN, "An iterative pipeline: its stages, iteration bound "
          + "and restart policy (instead of nodes)."),
      FieldSpec.map("agents", null, "A pipeline's per-stage agent settings: stage agent_id to the fields of its "
          + "agent node (model, system, tools, ...), without id and type."),
      FieldSpec.section("restart_policy", Pipelines.WORKFLOW_POLICY, "Lets nodes send the run back to an earlier "
          + "node, under this policy."));
  static final Set<String> FIELDS = FieldSpec.names(SPECS);
  static final Set<String> FLOW_FIELDS = FieldSpec.names(FLOW);
  /** A workflow has nodes or is a pipeline. */
  static final List<String> ONE_REQUIRED = List.of("nodes", "workflow_pattern");
  /** What a pipeline declares under workflow_pattern instead. */
  static final List<String> NOT_WITH_PIPELINE = List.of("nodes", "edges", "restart_policy");
  /** What only a pipeline has. */
  static final List<String> ONLY_WITH_PIPELINE = List.of("agents");

  /** What the file says the workflow is; {@code name} falls back to the file's base name. */
  record Header(String name, String description, Map<String, InputSpec> inputs) {}

  static void checkFields(YNode.YMap top, Problems problems) {
    for (YNode.YMap.Entry e : top.entries().values()) {
      if (!FIELDS.contains(e.key())) {
        String hint = Names.suggest(e.key(), FIELDS);
        problems.add(e.keyLocation(), e.key(), "unknown field '" + e.key() + "'" + hint);
      }
    }
  }

  /**
   * Name and inputs may be given at the top level or under {@code flow:}; a top-level name wins, and inputs of
   * both are declared (a top-level input replaces a flow input of the same name).
   */
  static Header header(YNode.YMap top, String file, Problems problems) {
    String name = null;
    Map<String, InputSpec> inputs = new LinkedHashMap<>();
    YNode flow = top.get("flow");
    if (flow != null) {
      if (flow instanceof YNode.YMap fm) {
        LoaderSupport.unknownFields(fm, FLOW_FIELDS, "flow.", problems);
        if (fm.get("name") != null) {
          name = LoaderSupport.string(fm.get("name"), "name", "flow.name", problems);
        }
        if (fm.get("input") != null) {
          inputs.putAll(Inputs.read(fm.get("input"), "flow.input", problems));
        }
      } else {
        problems.add(flow.location(), "flow", "expected a mapping with name and input, found " + flow.describe());
      }
    }
    if (top.get("name") != null) {
      name = LoaderSupport.string(top.get("name"), "name", "name", problems);
    }
    if (top.get("input") != null) {
      inputs.putAll(Inputs.read(top.get("input"), "input", problems));
    }
    String description = top.get("description") == null ? null
        : LoaderSupport.string(top.get("description"), "description", "description", problems);
    return new Header(name == null ? deriveName(file) : name, description, inputs);
  }

  /** The name of a workflow text that comes from no file (an API request's source) and names itself nowhere. */
  static final String UNNAMED = "workflow";

  /**
   * The file's base name up to its first dot: {@code dir/review.yaml} is named {@code review}; a text without a file
   * name (null or blank) is named {@link #UNNAMED}.
   */
  static String deriveName(String f) {
    if (f == null || f.isBlank()) {
      return UNNAMED;
    }
    String base = f.replace('\\', '/');
    base = base.substring(base.lastIndexOf('/') + 1);
    int dot = base.indexOf('.');
    return dot > 0 ? base.substring(0, dot) : base;
  }

  /** The workflow's {@code output:} template, written at the top level; null when absent or invalid. */
  static Template output(LoadState st) {
    YNode out = st.top.get("output");
    if (out == null) {
      return null;
    }
    String src = LoaderSupport.string(out, "output", "output", st.problems);
    if (src == null) {
      return null;
    }
    NodeConfigImpl cfg = st.config("", "", out.location(), "", Map.of("output",
        new YNode.YMap.Entry("output", out.location(), out)));
    return cfg.template("output", src);
  }
}
