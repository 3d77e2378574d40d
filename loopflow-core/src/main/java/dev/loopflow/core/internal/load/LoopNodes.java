package dev.loopflow.core.internal.load;

import dev.loopflow.core.expr.Condition;
import dev.loopflow.core.expr.Template;
import dev.loopflow.core.model.Budget;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.LoopConfig;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.schema.NodeKindSpec;
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
  private final LoadState st;
  private final Problems problems;
  private final NodeLoader nodes;
  private final LoopGroups groups;

  /** Loop constructs, interpreted by the loop core. */
  static final Set<String> KINDS = Set.of("loop", "while_loop", "loop_group", "iterator");
  /** The markers that close the graph-form loops. */
  static final Set<String> MARKERS = Set.of("exit", "aggregator");
  /** {@code exitCondition} values; the first is the default. */
  static final List<String> EXIT_CONDITIONS = LoaderSupport.lower(LoopConfig.ExitCondition.values());
  /** {@code feedbackMode} values; the first is the default. */
  static final List<String> FEEDBACK_MODES = LoaderSupport.lower(LoopConfig.Feedback.values());
  static final FieldSpec LOOP_MAX = FieldSpec.integer("maxIterations", 1, 50, "The most passes, the first included "
      + "(default 5).").alias("max_iterations");
  static final FieldSpec WHILE_MAX = FieldSpec.integer("max_iterations", 1, 1000, "The most passes, the first "
      + "included.").asRequired().alias("maxIterations");
  static final FieldSpec GROUP_MAX = WHILE_MAX;
  static final FieldSpec THRESHOLD = FieldSpec.number("stabilityThreshold", 0.0, 1.0, "For stable_output: the loop "
      + "stops when two consecutive outputs are more similar than this (default 0.95; below 1).").alias("stability_threshold");
  static final FieldSpec CONCURRENCY = FieldSpec.integer("concurrency", 1, 1024, "How many items run at once "
      + "(default 1).");

  /** The loop kinds and markers, and the fields each takes besides the common ones. */
  static final Map<String, NodeKindSpec> KIND_SPECS = ControlNodes.kinds(
      NodeKindSpec.of("loop", "Repeats the nodes between it and its paired exit node, refining one value pass after "
          + "pass until an evaluator, a stable output or the bound says done.", List.of(
          FieldSpec.template("input", "The first pass's loop.input (default: the output of the node feeding the "
              + "loop)."),
          LOOP_MAX,
          FieldSpec.choice("exitCondition", EXIT_CONDITIONS, "How the loop decides it is done: run every pass, "
              + "let a router in the body choose done or continue, or stop when two passes' outputs are similar "
              + "enough.").alias("exit_condition"),
          THRESHOLD,
          FieldSpec.choice("feedbackMode", FEEDBACK_MODES, "How a pass's result becomes the next loop.input: "
              + "replace it, or append it to the text.").alias("feedback_mode"),
          LoaderSupport.onExhaustedField("continue"),
          Settings.budgetField("all passes"),
          FieldSpec.nodeId("exit", "The paired exit node (default: the single exit node downstream)."))),
      NodeKindSpec.of("exit", "Closes the body of a loop node; its output is the loop's result.", List.of()),
      NodeKindSpec.of("while_loop", "Runs its body, in order, while its condition holds (tested before every "
          + "pass).", List.of(
          FieldSpec.condition("condition", "Tested before every pass; the loop runs while it holds.").asRequired(),
          WHILE_MAX,
          FieldSpec.nodes("body", "The nodes of one pass, run in listed order unless they declare depends_on.")
              .asRequired(),
          LoaderSupport.onExhaustedField("fail"),
          Settings.budgetField("all passes"))),
      NodeKindSpec.of("loop_group", "Repeats a sealed sub-graph as one unit until a signal or a command says it is "
          + "done.", List.of(
          FieldSpec.nodes("nodes", "The body: its depends_on resolve inside it.").asRequired(),
          FieldSpec.string("until", "The completion signal: a pass whose output contains <promise>SIGNAL</promise> "
              + "or a line that is exactly SIGNAL ends the loop."),
          FieldSpec.oneOf("until_command", "A command run after a pass without the signal (under sh, or as an "
              + "argv list); exit status 0 ends the loop.", FieldSpec.string("until_command", null),
              FieldSpec.list("until_command", FieldSpec.oneOf("until_command", null,
                  FieldSpec.string("until_command", null), FieldSpec.bool("until_command", null)), null)),
          FieldSpec.string("until_bash", "As until_command, run under bash."),
          GROUP_MAX,
          FieldSpec.bool("fresh_context", "Start LLM sessions afresh every pass (default false: they continue)."),
          FieldSpec.bool("interactive", "Pause for a person after every pass that did not finish; the answer is "
              + "the next pass's loop.user_input."),
          FieldSpec.template("gate_message", "What the paused run shows the person."),
          FieldSpec.jsonSchema("gate_schema", "A form the person fills at the gate (needs interactive): a JSON "
              + "Schema object whose properties are strings, numbers, integers, booleans or enums. Its answer is "
              + "the next pass's loop.user_values."),
          LoaderSupport.onExhaustedField("fail with until or until_command, else continue"),
          Settings.budgetField("all passes"),
          FieldSpec.string("model", "The model of the body's llm nodes that name none."),
          FieldSpec.string("provider", "The provider paired with the group's model.")))
          .atMostOne("until_command", "until_bash"),
      NodeKindSpec.of("iterator", "Runs the nodes between it and its paired aggregator once per item.", List.of(
          FieldSpec.template("items", "A template yielding the array of items.").asRequired(),
          CONCURRENCY,
          FieldSpec.bool("continue_on_error", "Let the other items finish when one fails."),
          FieldSpec.nodeId("aggregator", "The paired aggregator node (default: the single aggregator downstream)."),
          Settings.budgetField("all items"))),
      NodeKindSpec.of("aggregator", "Closes the body of an iterator; its output is the list of per-item results.",
          List.of()));
  /** The field names of each loop kind and marker, besides the common ones. */
  static final Map<String, Set<String>> FIELDS = ControlNodes.fieldNames(KIND_SPECS);

  LoopNodes(LoadState st, NodeLoader nodes) {
    this.st = st;
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
    Integer max = maxField == null ? Integer.valueOf(5) : cfg.integer(maxField, LOOP_MAX);
    String ec = cfg.choice(cfg.alias("exitCondition", "exit_condition"), Set.copyOf(EXIT_CONDITIONS),
        EXIT_CONDITIONS.get(0));
    String thrField = cfg.alias("stabilityThreshold", "stability_threshold");
    Double thr = thrField == null ? Double.valueOf(0.95) : cfg.number(thrField);
    double low = THRESHOLD.minimum().doubleValue();
    double high = THRESHOLD.maximum().doubleValue();
    if (thr != null && (thr < low || thr > high)) {
      cfg.error(thrField, "'" + thrField + "' must be between " + (int) low + " and " + (int) high + ", found " + thr);
    } else if (thr != null && thr == high && "stable_output".equals(ec)) {
      // The loop stops when the similarity exceeds the threshold; nothing exceeds 1, so the loop would never stop
      // on a stable output and always run to its bound.
      cfg.error(thrField, "'" + thrField + "' 1 can never be exceeded: stable_output stops when the similarity of "
          + "two consecutive outputs is above the threshold, and identical outputs have similarity 1; use a value "
          + "below 1 (0.999 stops on identical or nearly identical outputs)");
    }
    String fb = cfg.choice(cfg.alias("feedbackMode", "feedback_mode"), Set.copyOf(FEEDBACK_MODES),
        FEEDBACK_MODES.get(0));
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
      cfg.error(null, "while_loop '" + id + "' requires max_iterations (" + WHILE_MAX.minimum() + ".."
          + WHILE_MAX.maximum() + ")");
    } else {
      max = cfg.integer(maxField, WHILE_MAX);
    }
    List<Node> body = List.of();
    Scope bodyScope = null;
    if (!cfg.has("body")) {
      cfg.error(null, "while_loop '" + id + "' requires body");
    } else {
      body = nodes.body(cfg.raw("body"), id, "while_loop", path + ".body");
      bodyScope = st.lastBody;
    }
    Condition cond = null;
    if (!cfg.has("condition")) {
      cfg.error(null, "while_loop '" + id + "' requires condition");
    } else {
      // The condition reads the body's latest results by id, so its references are checked in the body's scope.
      int before = st.refs.size();
      cond = cfg.condition("condition");
      if (bodyScope != null) {
        for (int r = before; r < st.refs.size(); r++) {
          st.refScopes.put(st.refs.get(r), bodyScope);
        }
      }
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
    Integer conc = cfg.has("concurrency") ? cfg.integer("concurrency", CONCURRENCY) : Integer.valueOf(1);
    Boolean coe = cfg.bool("continue_on_error");
    String agg = cfg.string("aggregator");
    if (items == null || conc == null) {
      return null;
    }
    return new Node.Loop(new LoopConfig.Iterate(agg == null ? "" : agg, items, conc, Boolean.TRUE.equals(coe)),
        Integer.MAX_VALUE, Edge.OnExhausted.CONTINUE, budget, null, List.of());
  }
}
