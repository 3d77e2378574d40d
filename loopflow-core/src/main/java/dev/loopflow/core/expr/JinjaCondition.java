package dev.loopflow.core.expr;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A condition written as an expression. Expressions in FastExpr's subset are compiled without Jinjava: that
 * subset is valid Jinjava syntax by construction (no filters, keywords or calls), so checking it with Jinjava would
 * only load Jinjava (some 400 classes and its set-up) into runs that never need it. Jinjava is then used only if an
 * evaluation falls outside what FastExpr decides.
 */
final class JinjaCondition implements Condition {
  private final String source;
  private final String expression;
  private final Set<String> roots;
  private final List<Reference> references;
  /** The common subset evaluated without Jinjava (null when the expression is outside it); see FastExpr. */
  private final FastExpr fast;

  JinjaCondition(String source, String expression, Set<String> roots, List<Reference> references) {
    this(source, expression, roots, references, FastExpr.compile(expression));
  }

  private JinjaCondition(String source, String expression, Set<String> roots, List<Reference> references,
      FastExpr fast) {
    this.source = source;
    this.references = List.copyOf(references);
    this.expression = expression;
    this.fast = fast;
    this.roots = Collections.unmodifiableSet(new LinkedHashSet<>(roots));
  }

  /** The expression a condition's source means: a condition written as a template means the same expression. */
  static String expressionOf(String source) {
    String expr = source.trim();
    if (expr.startsWith("{{") && expr.endsWith("}}")) {
      expr = expr.substring(2, expr.length() - 2).trim();
    }
    return expr;
  }

  /** The condition compiled without Jinjava when its expression is in FastExpr's subset, else null. */
  static JinjaCondition ofFastSubset(String source) {
    if (source == null || source.isBlank()) {
      return null;
    }
    String expr = expressionOf(source);
    FastExpr fast = FastExpr.compile(expr);
    if (fast == null) {
      return null;
    }
    RootScanner.Result scan = RootScanner.scan("{{ " + expr + " }}");
    return new JinjaCondition(source, expr, scan.roots(), scan.references(), fast);
  }

  @Override
  public boolean test(Map<String, Object> scope) {
    if (fast != null) {
      Object r = fast.test(scope);
      if (r != FastExpr.UNKNOWN) {
        return (Boolean) r;
      }
    }
    return Jinja.truthy(Jinja.evaluate(expression, scope));
  }

  @Override
  public String source() {
    return source;
  }

  @Override
  public Set<String> roots() {
    return roots;
  }

  @Override
  public List<Reference> references() {
    return references;
  }

  @Override
  public String toString() {
    return source;
  }
}
