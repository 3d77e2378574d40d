package dev.loopflow.core.expr;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A compiled template. {@link #render} always gives text; {@link #evaluate} gives a typed value when the
 * template is exactly one {@code {{ expression }}} (an array stays an array) and the rendered text otherwise.
 * Inserted values are never evaluated again, so user data containing {@code {{ }}} stays literal.
 */
public interface Template {
  String source();

  /** Root names the template reads, e.g. {@code reviewer} for {@code {{ reviewer.text }}}. */
  Set<String> roots();

  /** The values the template reads (root names with their attribute paths), in order of appearance. */
  List<Reference> references();

  String render(Map<String, Object> scope);

  Object evaluate(Map<String, Object> scope);

  /** True when the template contains no Jinja syntax at all. */
  boolean isLiteral();
}
