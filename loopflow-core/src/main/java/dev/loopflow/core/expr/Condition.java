package dev.loopflow.core.expr;

import java.util.List;
import java.util.Map;
import java.util.Set;

/** A compiled boolean test: a Jinja expression or a condition written as a mapping; both compile to this type. */
public interface Condition {
  boolean test(Map<String, Object> scope);

  /** The condition as the user wrote it (structured conditions are shown in a compact form). */
  String source();

  Set<String> roots();

  /** The values the condition reads (root names with their attribute paths). */
  List<Reference> references();

  static Condition always() {
    return Conditions.ALWAYS;
  }
}
