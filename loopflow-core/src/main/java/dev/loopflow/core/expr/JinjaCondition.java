package dev.loopflow.core.expr;

import java.util.Map;
import java.util.Set;

final class JinjaCondition implements Condition {
  private final String source;
  private final String expression;
  private final Set<String> roots;
  private final java.util.List<Reference> references;
  /** The common subset evaluated without Jinjava (null when the expression is outside it); see FastExpr. */
  private final FastExpr fast;

  JinjaCondition(String source, String expression, Set<String> roots, java.util.List<Reference> references) {
    this.source = source;
    this.references = java.util.List.copyOf(references);
    this.expression = expression;
    this.fast = FastExpr.compile(expression);
    this.roots = java.util.Collections.unmodifiableSet(new java.util.LinkedHashSet<>(roots));
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
  public java.util.List<Reference> references() {
    return references;
  }

  @Override
  public String toString() {
    return source;
  }
}
