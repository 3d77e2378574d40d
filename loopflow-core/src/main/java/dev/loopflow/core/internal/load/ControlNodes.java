package dev.loopflow.core.internal.load;

import dev.loopflow.core.expr.Condition;
import dev.loopflow.core.expr.Template;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.run.AnswerSchema;
import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.yaml.YNode;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The control nodes the scheduler interprets itself: router, approval, cancel, and the input/output markers.
 * Each method returns the node's body, or null after reporting why it cannot be built.
 */
final class ControlNodes {
  private final LoadState st;
  private final Problems problems;

  /** {@code approval}'s {@code default}: the decision taken when its timeout passes; the first is the default. */
  static final List<String> APPROVAL_DEFAULTS = List.of("reject", "approve");
  /** {@code approval}'s {@code on_reject}; the first is the default. */
  static final List<String> ON_REJECT = List.of("fail", "continue");

  /** The control kinds and the fields each takes besides the common ones. */
  static final Map<String, NodeKindSpec> KINDS = kinds(
      NodeKindSpec.of("router", "Picks one branch: the first route whose condition holds, or with 'model' the "
          + "branch a model chooses. Edges from it name their branch.", List.of(
          FieldSpec.map("routes", FieldSpec.condition("routes", null), "Branch name to its condition, in order; "
              + "'default' (or true) marks the fallback. With 'model', branch name to a description for the model.")
              .asRequired(),
          FieldSpec.template("value", "The router's value, which its route conditions and the branch taken see "
              + "(default: the output of the node feeding it)."),
          FieldSpec.string("model", "Let this model choose the branch from the routes' descriptions "
              + "(provider:model)."),
          FieldSpec.template("instructions", "What the model choosing the branch is told."),
          FieldSpec.template("prompt", "Same as instructions."))),
      NodeKindSpec.of("cancel", "Ends the run as cancelled, with a reason.", List.of(
          FieldSpec.template("reason", "Why the run is cancelled."),
          FieldSpec.template("cancel", "The reason, in the shorthand form 'cancel: REASON'."))),
      NodeKindSpec.of("approval", "Pauses the run until a person approves or rejects, with an optional comment.",
          List.of(
              FieldSpec.template("message", "What the person is asked."),
              FieldSpec.template("approval", "The message, in the shorthand form 'approval: TEXT'."),
              FieldSpec.choice("default", APPROVAL_DEFAULTS, "The decision taken when 'timeout' passes unanswered "
                  + "(needs a timeout)."),
              FieldSpec.choice("on_reject", ON_REJECT, "What a rejection does: fail the node (default) or "
                  + "continue."),
              FieldSpec.jsonSchema("schema", "A form the person fills to approve: a JSON Schema object whose "
                  + "properties are strings, numbers, integers, booleans or enums. Its answer is the node's values.")))
          .atMostOne("message", "approval"),
      NodeKindSpec.of("input", "Passes the run's input (or its value) through.", List.of(
          FieldSpec.template("value", "The value to pass on instead of the run's input."))),
      NodeKindSpec.of("output", "Passes its value through and marks the workflow's result.", List.of(
          FieldSpec.template("value", "The workflow's result."))));

  /** The field names of each control kind, besides the common ones. */
  static final Map<String, Set<String>> FIELDS = fieldNames(KINDS);

  static Map<String, NodeKindSpec> kinds(NodeKindSpec... specs) {
    Map<String, NodeKindSpec> m = new LinkedHashMap<>();
    for (NodeKindSpec k : specs) {
      m.put(k.kind(), k);
    }
    return Collections.unmodifiableMap(m);
  }

  static Map<String, Set<String>> fieldNames(Map<String, NodeKindSpec> kinds) {
    Map<String, Set<String>> m = new LinkedHashMap<>();
    kinds.forEach((k, spec) -> m.put(k, spec.fieldNames()));
    return Collections.unmodifiableMap(m);
  }

  ControlNodes(LoadState st) {
    this.st = st;
    this.problems = st.problems;
  }

  Node.Body control(String kind, NodeConfigImpl cfg) {
    return switch (kind) {
      case "router" -> router(cfg);
      case "cancel" -> {
        Template reason = cfg.has("reason") ? cfg.template("reason")
            : cfg.has("cancel") ? cfg.template("cancel") : null;
        yield new Node.Cancel(reason);
      }
      case "approval" -> approval(cfg);
      case "input" -> new Node.Input(cfg.template("value"));
      case "output" -> new Node.Output(cfg.template("value"));
      default -> throw new IllegalStateException(kind);
    };
  }

  /**
   * The message is {@code approval: TEXT} or {@code message:}. {@code default} is the decision taken when the
   * node's timeout passes unanswered, so it needs a timeout; a rejection fails the node unless
   * {@code on_reject: continue}.
   */
  private Node.Approval approval(NodeConfigImpl cfg) {
    if (cfg.has("message") && cfg.has("approval")) {
      cfg.error("approval", "give the message as 'approval: TEXT' or 'message:', not both");
    }
    Template message = cfg.has("message") ? cfg.template("message")
        : cfg.has("approval") ? cfg.template("approval") : null;
    String dflt = cfg.choice(cfg.has("default") ? "default" : null, Set.copyOf(APPROVAL_DEFAULTS),
        APPROVAL_DEFAULTS.get(0));
    if (cfg.has("default") && cfg.duration("timeout") == null) {
      cfg.error("default", "'default' is the decision taken when 'timeout' passes unanswered; give a timeout");
    }
    String onReject = cfg.choice(cfg.has("on_reject") ? "on_reject" : null, Set.copyOf(ON_REJECT), ON_REJECT.get(0));
    return new Node.Approval(message, dflt.equals("approve"), onReject.equals("fail"), answerSchema(cfg, "schema"));
  }

  /** The form {@code field} describes, or null when absent or refused (the refusal is reported at the field). */
  static AnswerSchema answerSchema(NodeConfigImpl cfg, String field) {
    if (!cfg.has(field)) {
      return null;
    }
    try {
      return AnswerSchema.of(cfg.plain(field));
    } catch (IllegalArgumentException e) {
      cfg.error(field, e.getMessage());
      return null;
    }
  }

  /**
   * Expression routes map a branch to a condition ({@code default} or {@code true} for the fallback), and their
   * conditions may read the router's {@code value}; with {@code model}, a model picks the branch from each
   * branch's description.
   */
  private Node.Router router(NodeConfigImpl cfg) {
    YNode routesNode = cfg.raw("routes");
    String model = cfg.string("model");
    if (model != null && st.modelPrices != null) {
      String unpriced = st.modelPrices.unpriced(model, st.sections.get("prices"));
      if (unpriced != null) {
        cfg.errorUnderCostLimit("model", unpriced);
      }
    }
    Template instructions = cfg.has("instructions") ? cfg.template("instructions") : cfg.template("prompt");
    Template value = cfg.template("value");
    if (routesNode == null) {
      cfg.error(null, "missing required field 'routes'");
      return null;
    }
    if (!(routesNode instanceof YNode.YMap rm) || rm.entries().isEmpty()) {
      cfg.error("routes", "expected a non-empty mapping of branch name to condition, found "
          + routesNode.describe());
      return null;
    }
    Map<String, Condition> routes = new LinkedHashMap<>();
    Map<String, String> descriptions = new LinkedHashMap<>();
    boolean ok = true;
    for (YNode.YMap.Entry e : rm.entries().values()) {
      String branchPath = cfg.path("routes") + "." + e.key();
      YNode v = e.value();
      if (model != null) {
        if (v instanceof YNode.YScalar s && s.value() instanceof String d) {
          descriptions.put(e.key(), d);
        } else {
          problems.add(v.location(), branchPath, "an LLM-chosen route needs a description string, found "
              + v.describe());
          ok = false;
        }
        continue;
      }
      if (v instanceof YNode.YScalar s && ("default".equals(s.value()) || Boolean.TRUE.equals(s.value()))) {
        routes.put(e.key(), null);
        continue;
      }
      int before = st.refs.size();
      Condition c = LoaderSupport.compileCondition(v, branchPath, problems, st.refs);
      for (int r = before; r < st.refs.size(); r++) {
        st.refs.set(r, st.refs.get(r).withLocals(Set.of("value"))); // route conditions see the router's value
      }
      if (c == null) {
        ok = false;
      } else {
        routes.put(e.key(), c);
      }
    }
    return ok ? new Node.Router(routes, descriptions, model, instructions, value) : null;
  }
}
