package dev.loopflow.core.expr;

import java.util.Map;
import java.util.Set;

/**
 * Compiles templates and conditions. Compilation checks syntax (a {@link TemplateSyntaxException} names the
 * problem) and records the root names a template reads, so the loader can report references to nodes that do
 * not exist. The compiled objects are immutable and safe to share between threads.
 */
public final class Expressions {
  private Expressions() {}

  /** Compiles a Jinja template ({@code "Review: {{ coder.text }}"}). */
  public static Template template(String source) {
    return Jinja.compileTemplate(source);
  }

  /** Compiles a bare Jinja expression used as a condition ({@code state.count < 3}). */
  public static Condition condition(String expression) {
    Condition fast = JinjaCondition.ofFastSubset(expression);
    return fast != null ? fast : Jinja.compileCondition(expression);
  }

  /**
   * The operators of the structured condition form ({@code not}, {@code and}, {@code or}, {@code equals}, ...): a
   * structured condition is a mapping with exactly one of them.
   */
  public static Set<String> structuredOperators() {
    return Conditions.OPERATORS;
  }

  /**
   * Compiles a condition written as a mapping: a map with one operator key among {@code not}, {@code and}, {@code or},
   * {@code equals}, {@code exists}, {@code gt}, {@code lt}, {@code gte}, {@code lte}, {@code in},
   * {@code expr}; operands are {@code {var: path, value: literal}}.
   */
  public static Condition structured(Map<String, ?> form) {
    return Conditions.compile(form);
  }

  /** Evaluates a bare expression to a value (used by routers' {@code value} when given as an expression). */
  public static Object evaluateExpression(String expression, Map<String, Object> scope) {
    return Jinja.evaluate(expression, scope);
  }

  /** Jinja truthiness of a value: empty strings, empty collections, zero, false and null are false. */
  public static boolean truthy(Object value) {
    return Jinja.truthy(value);
  }
}
