package dev.loopflow.core.expr;

import com.hubspot.jinjava.tree.Node;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

final class JinjaTemplate implements Template {
  private final String source;
  private final Set<String> roots;
  private final List<Reference> references;
  private final boolean literal;
  private final String singleExpression;
  private final Node tree;
  /** Text with plain {{ path }} insertions rendered without Jinjava (null otherwise); see FastTemplate. */
  private final FastTemplate fast;
  /** The single expression, when it is in FastExpr's subset (null otherwise): evaluated without Jinjava. */
  private final FastExpr fastSingle;

  JinjaTemplate(String source, Set<String> roots, List<Reference> references, boolean literal,
      String singleExpression, Node tree) {
    this.source = source;
    this.roots = Collections.unmodifiableSet(new LinkedHashSet<>(roots));
    this.references = List.copyOf(references);
    this.literal = literal;
    this.singleExpression = singleExpression;
    this.tree = tree;
    this.fast = literal ? null : FastTemplate.compile(source);
    this.fastSingle = literal || singleExpression == null ? null : FastExpr.compile(singleExpression);
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
      if (fastSingle != null) {
        Object v = fastSingle.value(scope);
        if (v != FastExpr.UNKNOWN) {
          return v;
        }
      }
      return Jinja.evaluate(singleExpression, scope);
    }
    return render(scope);
  }

  @Override
  public String toString() {
    return source;
  }
}
