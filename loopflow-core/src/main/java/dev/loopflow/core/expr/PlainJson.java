package dev.loopflow.core.expr;

import java.util.Collection;
import java.util.Map;
import java.util.function.BiPredicate;
import java.util.function.UnaryOperator;

/*
 * Design notes.
 *
 * Compact JSON of plain values (what nodes produce: maps with text keys, lists, text, int and long numbers, finite
 * doubles, booleans and null) written straight into a StringBuilder, for the texts made on every node completion
 * (an event's output preview, the size of an output). Jackson's mapper writes the same text through a generator, a
 * serializer lookup per value and a writer, which costs most in a short run, before the JVM has compiled it.
 *
 * What must stay true: the text is exactly what Json's mapper writes for the same value, byte for byte (the test
 * compares the two over a generated corpus). Anything this class does not know how to write exactly as Jackson
 * does (other number types, non-finite doubles, keys that are not strings, arrays, other objects, and nesting
 * deeper than MAX_DEPTH, where Jackson's own limits apply) makes it answer null, and the caller uses Jackson.
 *
 * The journal writes its documents with the same writer (Json.appendPlain), giving each string to its own escape
 * first and writing its own record types (loop frames): one place decides how a plain value is written.
 */
final class PlainJson {
  /** Deeper values go to Jackson, so its nesting limit and its error stay what they were. */
  static final int MAX_DEPTH = 64;
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private PlainJson() {}

  /** The compact JSON of {@code value}, or null when the value is not plain (see the design notes). */
  static String text(Object value) {
    StringBuilder sb = new StringBuilder(64);
    return value(sb, value, 0, null, null) ? sb.toString() : null;
  }

  /**
   * Appends {@code v}; false when it is not plain (the builder then holds part of it). {@code strings}, when not
   * null, is applied to every string value (not to keys) before it is written; {@code other}, when not null, may
   * write a value of another type and answer true.
   */
  static boolean value(StringBuilder sb, Object v, int depth, UnaryOperator<String> strings,
      BiPredicate<StringBuilder, Object> other) {
    if (v == null) {
      sb.append("null");
    } else if (v instanceof String s) {
      quote(sb, strings == null ? s : strings.apply(s));
    } else if (v instanceof Integer i) {
      sb.append(i.intValue());
    } else if (v instanceof Long l) {
      sb.append(l.longValue());
    } else if (v instanceof Boolean b) {
      sb.append(b.booleanValue());
    } else if (v instanceof Double d) {
      if (!Double.isFinite(d)) {
        return false;
      }
      sb.append(d.doubleValue());
    } else if (depth >= MAX_DEPTH) {
      return false;
    } else if (v instanceof Map<?, ?> m) {
      sb.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (!(e.getKey() instanceof String k)) {
          return false;
        }
        if (!first) {
          sb.append(',');
        }
        first = false;
        quote(sb, k);
        sb.append(':');
        if (!value(sb, e.getValue(), depth + 1, strings, other)) {
          return false;
        }
      }
      sb.append('}');
    } else if (v instanceof Collection<?> c) {
      sb.append('[');
      boolean first = true;
      for (Object x : c) {
        if (!first) {
          sb.append(',');
        }
        first = false;
        if (!value(sb, x, depth + 1, strings, other)) {
          return false;
        }
      }
      sb.append(']');
    } else {
      return other != null && other.test(sb, v);
    }
    return true;
  }

  /**
   * Appends {@code s} as a JSON string the way Jackson's generator escapes it by default: quote, backslash and the
   * control characters below U+0020 (the usual short forms, else {@code \}{@code u00XX}); everything else as is.
   */
  static void quote(StringBuilder sb, String s) {
    sb.append('"');
    int from = 0;
    for (int i = 0, n = s.length(); i < n; i++) {
      char c = s.charAt(i);
      if (c >= 0x20 && c != '"' && c != '\\') {
        continue;
      }
      sb.append(s, from, i);
      from = i + 1;
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\b' -> sb.append("\\b");
        case '\t' -> sb.append("\\t");
        case '\n' -> sb.append("\\n");
        case '\f' -> sb.append("\\f");
        case '\r' -> sb.append("\\r");
        default -> sb.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
      }
    }
    sb.append(s, from, s.length()).append('"');
  }
}
