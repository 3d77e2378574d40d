package dev.loopflow.core.expr;

import com.hubspot.jinjava.tree.Node;
import java.util.Map;
import java.util.Set;

final class JinjaTemplate implements Template {
  private final String source;
  private final Set<String> roots;
  private final java.util.List<Reference> references;
  private final boolean literal;
  private final String singleExpression;
  private final Node tree;
  /** Text with plain {{ path }} insertions rendered without Jinjava (null otherwise); see FastTemplate. */
  private final FastTemplate fast;

  JinjaTemplate(String source, Set<String> roots, java.util.List<Reference> references, boolean literal,
      String singleExpression, Node tree) {
    this.source = source;
    this.roots = java.util.Collections.unmodifiableSet(new java.util.LinkedHashSet<>(roots));
    this.references = java.util.List.copyOf(references);
    this.literal = literal;
    this.singleExpression = singleExpression;
    this.tree = tree;
    this.fast = literal ? null : FastTemplate.compile(source);
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
  public boolean isLiteral() {
    return literal;
  }

  @Override
  public String render(Map<String, Object> scope) {
    if (literal) {
      return source;
    }
    if (fast != null) {
      String s = fast.render(scope);
      if (s != null) {
        return s;
      }
    }
    return Jinja.render(tree, source, scope);
  }

  @Override
  public Object evaluate(Map<String, Object> scope) {
    if (literal) {
      return source;
    }
    if (singleExpression != null) {
      return Jinja.evaluate(singleExpression, scope);
    }
    return render(scope);
  }

  @Override
  public String toString() {
    return source;
  }
}
