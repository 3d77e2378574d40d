package dev.loopflow.core.internal.load;

import dev.loopflow.core.expr.Condition;
import dev.loopflow.core.expr.Template;
import dev.loopflow.core.model.Budget;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.LoopConfig;
import dev.loopflow.core.model.Node;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The loop constructs: {@code loop} (closed by an {@code exit} marker), {@code while_loop}, {@code loop_group}
 * (see {@link LoopGroups}) and {@code iterator} (closed by an {@code aggregator} marker). Markers are paired with
 * their loop once the whole graph is loaded (see {@link Graphs#pair}); loop edges are read with the other edges.
 */
final class LoopNodes {
  private final Problems problems;
  private final NodeLoader nodes;
  private final LoopGroups groups;

  /** Loop constructs, interpreted by the loop core. */
  static final Set<String> KINDS = Set.of("loop", "while_loop", "loop_group", "iterator");
  /** The markers that close the graph-form loops. */
  static final Set<String> MARKERS = Set.of("exit", "aggregator");
  /** The fields each loop kind and marker takes besides the common ones. */
  static final Map<String, Set<String>> FIELDS = Map.of(
      "exit", Set.<String>of(),
      "aggregator", Set.<String>of(),
      "loop", Set.of("input", "maxIterations", "max_iterations", "exitCondition", "exit_condition",
          "stabilityThreshold", "stability_threshold", "feedbackMode", "feedback_mode", "on_exhausted", "budget",
          "exit"),
      "while_loop", Set.of("condition", "max_iterations", "maxIterations", "body", "on_exhausted", "budget"),
      "loop_group", Set.of("nodes", "until", "until_command", "until_bash", "max_iterations", "maxIterations",
          "fresh_context", "interactive", "gate_message", "on_exhausted", "budget", "model", "provider"),
      "iterator", Set.of("items", "concurrency", "continue_on_error", "aggregator", "budget"));

  LoopNodes(LoadState st, NodeLoader nodes) {
    this.problems = st.problems;
    this.nodes = nodes;
    this.groups = new LoopGroups(st, nodes);
  }

  /** An exit or aggregator marker; which loop it closes is filled in when the graph is paired. */
  Node.Body marker() {
    return new Node.Marker("");
  }

  /** A loop node's body, or null when any of its fields (or its nested body) had a problem. */
  Node.Body loop(String kind, String id, NodeConfigImpl cfg, String path) {
    if (id == null) {
      return null;
    }
    Budget budget = Settings.budget(cfg.raw("budget"), path + ".budget", problems);
    int before = problems.size();
    Node.Body result = switch (kind) {
      case "loop" -> refine(cfg, path, budget);
      case "while_loop" -> whileLoop(id, cfg, path, budget);
      case "loop_group" -> groups.group(id, cfg, path, budget);
      case "iterator" -> iterator(id, cfg, budget);
      default -> throw new IllegalStateException(kind);
    };
    return problems.size() > before ? null : result;
  }

  /** {@code loop}: repeats the nodes between it and its exit, up to maxIterations (default 5, at most 50). */
  private Node.Body refine(NodeConfigImpl cfg, String path, Budget budget) {
    String maxField = cfg.alias("maxIterations", "max_iterations");
    Integer max = maxField == null ? Integer.valueOf(5) : cfg.integer(maxField, 1, 50);
    String ec = cfg.choice(cfg.alias("exitCondition", "exit_condition"),
        Set.of("max_iterations", "evaluator", "stable_output"), "max_iterations");
    String thrField = cfg.alias("stabilityThreshold", "stability_threshold");
    Double thr = thrField == null ? Double.valueOf(0.95) : cfg.number(thrField);
    if (thr != null && (thr < 0 || thr > 1)) {
      cfg.error(thrField, "'" + thrField + "' must be between 0 and 1, found " + thr);
    }
    String fb = cfg.choice(cfg.alias("feedbackMode", "feedback_mode"), Set.of("replace", "append"), "replace");
    String exit = cfg.string("exit");
    Template input = cfg.template("input");
    Edge.OnExhausted oe = LoaderSupport.onExhausted(cfg.raw("on_exhausted"), path + ".on_exhausted",
        Edge.OnExhausted.CONTINUE, problems);
    if (max == null || thr == null) {
      return null;
    }
    return new Node.Loop(new LoopConfig.Refine(exit == null ? "" : exit,
        LoopConfig.ExitCondition.valueOf(ec.toUpperCase(Locale.ROOT)), thr,
        LoopConfig.Feedback.valueOf(fb.toUpperCase(Locale.ROOT))), max, oe, budget, input, List.of());
  }

  /** {@code while_loop}: runs its nested body while condition holds; max_iterations is required. */
  private Node.Body whileLoop(String id, NodeConfigImpl cfg, String path, Budget budget) {
    String maxField = cfg.alias("maxIterations", "max_iterations");
    Integer max = null;
    if (maxField == null) {
      cfg.error(null, "while_loop '" + id + "' requires max_iterations (1..1000)");
    } else {
      max = cfg.integer(maxField, 1, 1000);
    }
    Condition cond = null;
    if (!cfg.has("condition")) {
      cfg.error(null, "while_loop '" + id + "' requires condition");
    } else {
      cond = cfg.condition("condition");
    }
    List<Node> body = List.of();
    if (!cfg.has("body")) {
      cfg.error(null, "while_loop '" + id + "' requires body");
    } else {
      body = nodes.body(cfg.raw("body"), id, "while_loop", path + ".body");
    }
    Edge.OnExhausted oe = LoaderSupport.onExhausted(cfg.raw("on_exhausted"), path + ".on_exhausted",
        Edge.OnExhausted.FAIL, problems);
    if (max == null || cond == null || body.isEmpty()) {
      return null;
    }
    return new Node.Loop(new LoopConfig.While(cond), max, oe, budget, null, body);
  }

  /** {@code iterator}: runs the nodes between it and its aggregator once per item of {@code items}. */
  private Node.Body iterator(String id, NodeConfigImpl cfg, Budget budget) {
    Template items = cfg.has("items") ? cfg.template("items") : null;
    if (!cfg.has("items")) {
      cfg.error(null, "iterator '" + id + "' requires items (a template yielding an array)");
    }
    Integer conc = cfg.has("concurrency") ? cfg.integer("concurrency", 1, 1024) : Integer.valueOf(1);
    Boolean coe = cfg.bool("continue_on_error");
    String agg = cfg.string("aggregator");
    if (items == null || conc == null) {
      return null;
    }
    return new Node.Loop(new LoopConfig.Iterate(agg == null ? "" : agg, items, conc, Boolean.TRUE.equals(coe)),
        Integer.MAX_VALUE, Edge.OnExhausted.CONTINUE, budget, null, List.of());
  }
}
