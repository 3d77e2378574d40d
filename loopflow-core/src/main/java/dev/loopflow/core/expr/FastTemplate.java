package dev.loopflow.core.expr;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/*
 * Design notes.
 *
 * Prompts and commands are mostly text with a few `{{ a.b }}` insertions, rendered on every execution; a Jinjava
 * render builds an interpreter and a context each time. This renders that form directly and must produce exactly
 * Jinjava's text whenever it produces any:
 *  - compile() accepts only literal text and `{{ dotted.path }}` expressions (a path as FastExpr parses it): no
 *    `{%`, no `{#`, no whitespace control (`{{-`), no filters, no other expression syntax; anything else returns
 *    null and the template always renders with Jinjava.
 *  - render() answers only when every path resolves through existing map entries to a String, Integer or Long
 *    (whose text Jinjava prints the same way); otherwise it returns null and the caller renders with Jinjava.
 * FastTemplateTest compares both on generated templates and scopes.
 */
final class FastTemplate {
  private final List<Object> parts; // String literal, or String[] path

  private FastTemplate(List<Object> parts) {
    this.parts = parts;
  }

  static FastTemplate compile(String source) {
    if (source.contains("{%") || source.contains("{#")) {
      return null;
    }
    List<Object> parts = new ArrayList<>();
    int i = 0;
    while (i < source.length()) {
      int open = source.indexOf("{{", i);
      if (open < 0) {
        parts.add(source.substring(i));
        break;
      }
      int close = source.indexOf("}}", open + 2);
      if (close < 0) {
        return null;
      }
      if (open > i) {
        parts.add(source.substring(i, open));
      }
      String expr = source.substring(open + 2, close);
      if (expr.startsWith("-") || expr.endsWith("-")) {
        return null;
      }
      String[] path = FastExpr.pathOf(expr);
      if (path == null) {
        return null;
      }
      parts.add(path);
      i = close + 2;
    }
    for (Object p : parts) {
      if (p instanceof String s && (s.contains("}}") || s.contains("{{"))) {
        return null;
      }
    }
    return new FastTemplate(parts);
  }

  /** The rendered text, or null when Jinjava must decide. */
  String render(Map<String, Object> scope) {
    StringBuilder sb = new StringBuilder();
    for (Object p : parts) {
      if (p instanceof String s) {
        sb.append(s);
        continue;
      }
      Object v = FastExpr.resolve((String[]) p, scope);
      if (v instanceof String || v instanceof Integer || v instanceof Long) {
        sb.append(v);
      } else {
        return null;
      }
    }
    return sb.toString();
  }
}
