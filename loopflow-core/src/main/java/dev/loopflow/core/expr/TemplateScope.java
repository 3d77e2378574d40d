package dev.loopflow.core.expr;

import java.util.Map;
import java.util.Set;

/**
 * The names a template can read and the fields beneath them, as the loader checks them. Work-node kinds declare
 * their result fields themselves ({@link dev.loopflow.core.spi.NodeHandler#resultFields()}); the kinds the engine
 * interprets (control nodes and loops) are described here. What must stay true: every field the engine puts in a
 * result or variable is listed (ResultFieldsTest runs each kind and compares), or a correct template fails to load.
 */
public final class TemplateScope {
  private TemplateScope() {}

  /** Root names besides node ids. {@code range} is Jinja's function. */
  public static final Set<String> ROOTS = Set.of("input", "flow", "state", "loop", "env", "run", "range",
      "pipeline");

  /** Every node result may have these, whatever its kind (error: when it failed under allow_failure). */
  public static final Set<String> COMMON_RESULT_FIELDS = Set.of("status", "output", "error");

  /** The result of a loop construct, and of the exit/aggregator marker paired with it. */
  public static final Set<String> LOOP_RESULT_FIELDS = Set.of("iterations", "count", "exit_reason", "usage",
      "errors");

  /** Result fields of the kinds the engine interprets itself (work-node kinds declare theirs in their handler). */
  public static final Map<String, Set<String>> CONTROL_RESULT_FIELDS = Map.ofEntries(
      Map.entry("router", Set.of("selectedBranch", "value", "reason")),
      Map.entry("cancel", Set.of("reason")),
      Map.entry("approval", Set.of("decision", "approved", "comment", "message", "timed_out", "deadline",
          "default", "values")),
      Map.entry("input", Set.of()),
      Map.entry("output", Set.of()),
      Map.entry("exit", LOOP_RESULT_FIELDS),
      Map.entry("aggregator", LOOP_RESULT_FIELDS),
      Map.entry("loop", LOOP_RESULT_FIELDS),
      Map.entry("while_loop", LOOP_RESULT_FIELDS),
      Map.entry("loop_group", LOOP_RESULT_FIELDS),
      Map.entry("iterator", LOOP_RESULT_FIELDS));

  /** The field a loop edge's source node gets, holding the summary of the edge's passes. */
  public static final String LOOP_EDGE_FIELD = "loop";

  /** The fields of that summary. */
  public static final Set<String> LOOP_EDGE_SUMMARY_FIELDS = Set.of("output", "iterations", "count", "exit_reason",
      "usage", "edge", "max_iterations");

  /** The fields of {@code loop} inside a loop body ({@code parent} is the enclosing loop's {@code loop}). */
  public static final Set<String> LOOP_VARIABLE_FIELDS = Set.of("iteration", "index", "max", "input", "prev",
      "user_input", "user_values", "id", "parent", "item", "restart");

  /** The fields of {@code run}. */
  public static final Set<String> RUN_FIELDS = Set.of("id", "workflow", "file", "started_at");

  /** The fields of {@code flow}: {@code flow.input.X} is the same value as {@code input.X}. */
  public static final Set<String> FLOW_FIELDS = Set.of("input", "name");
}
