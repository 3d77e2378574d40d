package dev.loopflow.core.expr;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/*
 * Design notes.
 *
 * Prompts and commands are mostly text with a few `{{ a.b }}` insertions, rendered on every execution; a Jinjava
 * render builds an interpreter and a context each time. This renders that form directly and must produce exactly
 * Jinjava's text whenever it produces any:
 *  - compile() accepts only literal text, `{{ dotted.path }}` expressions (a path as FastExpr parses it) and a path
 *    plus or minus a decimal integer literal, spaced (`{{ state.reviews + 1 }}`, a counter in a loop's prompt): no `{%`,
 *    no `{#`, no whitespace control (`{{-`), no filters, no other expression syntax; anything else returns null and
 *    the template always renders with Jinjava.
 *    A path may also name a key in brackets, quoted, of letters, digits, `_` and `-` (`loop.prev['draft-1'].output`,
 *    what `$LOOP_PREV.draft-1.output` becomes): Jinjava reads a map's `['k']` as its `.k`.
 *  - render() answers only when every path resolves through existing map entries to a String, Integer or Long
 *    (whose text Jinjava prints the same way), and a path with arithmetic only to an Integer or Long whose sum
 *    does not overflow a long (Jinjava adds integers as longs); otherwise it returns null and the caller renders
 *    with Jinjava. The one exception is a missing value: a plain path whose root is in the scope and which then goes
 *    through maps only, to a key that is not there or holds null, renders as empty text, as Jinjava prints it
 *    (`loop.prev['review'].output` in a loop's first pass). A missing root, or a path through anything but a map,
 *    is still Jinjava's to decide. So is text longer than half of Jinjava's output limit (LONGEST).
 * FastTemplateTest compares both on generated templates and scopes.
 */
final class FastTemplate {
  private final List<Object> parts; // String literal, String[] path, or Sum

  /** {@code path + add} ({@code add} negative for a minus). */
  private record Sum(String[] path, long add) {}

  /**
   * A path, {@code +} or {@code -} with white space on both sides (Jinjava reads {@code x+1} as {@code x} then
   * the number {@code +1}, a syntax error), and a decimal literal without leading zeros (at most 9 digits).
   */
  private static final Pattern SUM =
      Pattern.compile("\\s*([A-Za-z_][A-Za-z0-9_.]*)\\s+([+-])\\s+(0|[1-9][0-9]{0,8})\\s*");

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
      String[] path = path(expr);
      if (path != null) {
        parts.add(path);
      } else {
        Matcher m = SUM.matcher(expr);
        String[] summed = m.matches() ? FastExpr.pathOf(m.group(1)) : null;
        if (summed == null) {
          return null;
        }
        long n = Long.parseLong(m.group(3));
        parts.add(new Sum(summed, m.group(2).equals("-") ? -n : n));
      }
      i = close + 2;
    }
    for (Object p : parts) {
      if (p instanceof String s && (s.contains("}}") || s.contains("{{"))) {
        return null;
      }
    }
    return new FastTemplate(parts);
  }

  /** A quoted key in brackets, and what follows it. */
  private static final Pattern SUBSCRIPT = Pattern.compile("\\[(?:'([A-Za-z0-9_-]+)'|\"([A-Za-z0-9_-]+)\")\\]");
  private static final Pattern NAME = Pattern.compile("\\.([A-Za-z_][A-Za-z0-9_]*)");

  /**
   * The parts of a path: dotted (as FastExpr reads one), then any mix of quoted keys in brackets and dotted names;
   * null for anything else. A name after a bracket must be one FastExpr reads after a dot (no keyword).
   */
  static String[] path(String expression) {
    int bracket = expression.indexOf('[');
    if (bracket < 0) {
      return FastExpr.pathOf(expression);
    }
    String[] head = FastExpr.pathOf(expression.substring(0, bracket));
    if (head == null || Character.isWhitespace(expression.charAt(bracket - 1))) {
      return null;
    }
    List<String> parts = new ArrayList<>(List.of(head));
    String rest = expression.substring(bracket);
    int end = rest.length();
    while (end > 0 && " \t\r\n".indexOf(rest.charAt(end - 1)) >= 0) {
      end--;
    }
    int i = 0;
    while (i < end) {
      Matcher m = SUBSCRIPT.matcher(rest).region(i, end);
      if (m.lookingAt()) {
        parts.add(m.group(1) != null ? m.group(1) : m.group(2));
        i = m.end();
        continue;
      }
      m = NAME.matcher(rest).region(i, end);
      if (!m.lookingAt() || FastExpr.pathOf("x." + m.group(1)) == null) {
        return null;
      }
      parts.add(m.group(1));
      i = m.end();
    }
    return parts.toArray(String[]::new);
  }

  /** What a plain path's insertion prints: "" for a missing value (see the notes), null when Jinjava must decide. */
  private static String text(String[] path, Map<String, Object> scope) {
    Object v = scope.get(path[0]);
    if (v == null) {
      return null;
    }
    for (int i = 1; i < path.length; i++) {
      if (!(v instanceof Map<?, ?> m)) {
        return null;
      }
      v = m.get(path[i]);
      if (v == null) {
        return "";
      }
    }
    return v instanceof String || v instanceof Integer || v instanceof Long ? v.toString() : null;
  }

  /**
   * The longest text rendered here. Longer text (a value inserted thousands of times) is left to Jinjava, which
   * holds every template to its output limit and fails it with a message naming the limit: this path never builds
   * past half of it, so it never answers where Jinjava would refuse.
   */
  static final int LONGEST = JinjaLimits.MAX_STRING / 2;

  /** The rendered text, or null when Jinjava must decide. */
  String render(Map<String, Object> scope) {
    StringBuilder sb = new StringBuilder();
    for (Object p : parts) {
      if (p instanceof String s) {
        sb.append(s);
        continue;
      }
      if (p instanceof Sum sum) {
        Object v = FastExpr.resolve(sum.path(), scope);
        if (!(v instanceof Integer || v instanceof Long)) {
          return null;
        }
        try {
          sb.append(Math.addExact(((Number) v).longValue(), sum.add()));
        } catch (ArithmeticException overflow) {
          return null;
        }
        continue;
      }
      String t = text((String[]) p, scope);
      if (t == null) {
        return null;
      }
      sb.append(t);
      if (sb.length() > LONGEST) {
        return null;
      }
    }
    return sb.toString();
  }
}
