package dev.loopflow.core.expr;

import java.util.List;
import java.util.Set;

/**
 * One value a template or condition reads: a root name and the attribute names that follow it, so
 * {@code reviewer.json.passed} and {@code reviewer['json'].passed} are root {@code reviewer} with fields
 * {@code [json, passed]}. A subscript that is not a string literal, a method call or a filter ends the path.
 * {@code forLoopVariable} is true for {@code loop} inside a {@code {% for %}} block, where the name is Jinja's own
 * loop variable (fields {@link #FOR_LOOP_FIELDS}) and not the workflow's {@code loop}.
 */
public record Reference(String root, List<String> fields, boolean forLoopVariable) {
  /** The fields of the {@code loop} variable inside a {@code {% for %}} block. */
  public static final Set<String> FOR_LOOP_FIELDS = Set.of("index", "index0", "revindex", "revindex0", "first",
      "last", "length", "depth", "depth0", "counter", "revcounter", "continued");

  public Reference {
    fields = List.copyOf(fields);
  }

  /** The reference as written in dotted form, e.g. {@code reviewer.json.passed}. */
  public String dotted() {
    return fields.isEmpty() ? root : root + "." + String.join(".", fields);
  }
}
