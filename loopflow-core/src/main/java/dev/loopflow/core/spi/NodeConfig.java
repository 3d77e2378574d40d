package dev.loopflow.core.spi;

import dev.loopflow.core.error.Location;
import dev.loopflow.core.expr.Condition;
import dev.loopflow.core.expr.Template;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A node's configuration as written, for a handler to validate and compile. Every typed accessor reports a
 * located problem when the value has the wrong type or range and returns null, so a handler can keep going
 * and report all of a node's problems at once.
 */
public interface NodeConfig {
  String id();

  String kind();

  Location location();

  /** The location of a field's value (the node's location when the field is absent). */
  Location location(String field);

  Set<String> keys();

  boolean has(String field);

  String string(String field);

  String requiredString(String field);

  Template template(String field);

  Template requiredTemplate(String field);

  Condition condition(String field);

  Integer integer(String field, int min, int max);

  Double number(String field);

  Boolean bool(String field);

  Duration duration(String field);

  /** The value as plain Java data (maps, lists, scalars), or null when absent. */
  Object plain(String field);

  /** The value as a map with plain values, reporting a problem when it is not a mapping. */
  Map<String, Object> map(String field);

  /** The value as a list with plain values, reporting a problem when it is not a list. */
  List<Object> list(String field);

  /** Compiles a template from a string the handler found itself (e.g. inside a list), reporting at field. */
  Template template(String field, String source);

  /**
   * The field's name as the workflow file spells it, for messages at run time. It differs from {@code field}
   * when the engine compiles a field of another construct as a node (a loop_group's {@code until_bash} is the
   * {@code bash} of a shell node).
   */
  default String fieldName(String field) {
    return field;
  }

  /** Reports a problem on a field (or on the node when field is null). */
  void error(String field, String message);

  /**
   * Reports a problem at a line of a multi-line field value (1-based within the value, such as the line of a
   * script a compiler complains about); a single-line value is reported at the field.
   */
  default void error(String field, int lineInValue, String message) {
    error(field, message);
  }

  /** The workflow's {@code defaults} block (e.g. {@code model}). */
  Map<String, Object> defaults();

  /** A top-level section of the workflow as plain data (e.g. {@code prices}), or null when absent. */
  Object workflowSection(String name);

  /**
   * Reports {@code message} at {@code field} (the node when null) if a budget with {@code max_usd} applies to this
   * node: the run's, or that of a loop the node runs in. For what a cost limit cannot be enforced without, such as
   * a model with no known price. The loader adds which budget it is once it knows every loop the node runs in.
   */
  void errorUnderCostLimit(String field, String message);
}
