package dev.loopflow.core.internal.load;

import dev.loopflow.core.expr.Template;
import dev.loopflow.core.internal.util.Names;
import dev.loopflow.core.internal.yaml.YNode;
import dev.loopflow.core.model.InputSpec;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** The workflow's top-level keys, its identity ({@code name}, {@code description}, {@code flow:}) and {@code output}. */
final class TopLevel {
  private TopLevel() {}

  static final Set<String> FIELDS = Set.of("name", "description", "flow", "input", "defaults", "budget", "limits",
      "nodes", "edges", "output", "mock", "version", "state", "prices", "workflow_pattern", "agents",
      "restart_policy");
  static final Set<String> FLOW_FIELDS = Set.of("name", "input", "description");

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

  /** The file's base name up to its first dot: {@code dir/review.yaml} is named {@code review}. */
  static String deriveName(String f) {
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
