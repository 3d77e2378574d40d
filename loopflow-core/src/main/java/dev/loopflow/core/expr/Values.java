package dev.loopflow.core.expr;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Conversions between the engine's plain values (String, Number, Boolean, null, List, Map) and what templates
 * and scripts produce. Everything handed to a template is wrapped read-only; everything coming back is copied
 * into plain collections so that no template-engine type leaks into results, JSON or the journal.
 */
public final class Values {
  private Values() {}

  /** A deep plain copy: Jinjava's list and map wrappers, arrays and other collections become ArrayList/LinkedHashMap. */
  public static Object plain(Object value) {
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> out = new LinkedHashMap<>();
      for (Map.Entry<?, ?> e : map.entrySet()) {
        out.put(String.valueOf(e.getKey()), plain(e.getValue()));
      }
      return out;
    }
    if (value instanceof Collection<?> c) {
      List<Object> out = new ArrayList<>(c.size());
      for (Object o : c) {
        out.add(plain(o));
      }
      return out;
    }
    if (value instanceof Object[] arr) {
      List<Object> out = new ArrayList<>(arr.length);
      for (Object o : arr) {
        out.add(plain(o));
      }
      return out;
    }
    if (value instanceof CharSequence cs && !(value instanceof String)) {
      return cs.toString();
    }
    return value;
  }

  /**
   * A deep immutable copy: maps and lists (and arrays) become unmodifiable copies all the way down, keeping
   * insertion order and null values. What a result hands out is frozen so no caller can change what another reads.
   */
  public static Object frozen(Object value) {
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> out = new LinkedHashMap<>();
      for (Map.Entry<?, ?> e : map.entrySet()) {
        out.put(String.valueOf(e.getKey()), frozen(e.getValue()));
      }
      return Collections.unmodifiableMap(out);
    }
    if (value instanceof Collection<?> || value instanceof Object[]) {
      Collection<?> c = value instanceof Object[] arr ? Arrays.asList(arr) : (Collection<?>) value;
      List<Object> out = new ArrayList<>(c.size());
      for (Object o : c) {
        out.add(frozen(o));
      }
      return Collections.unmodifiableList(out);
    }
    if (value instanceof CharSequence cs && !(value instanceof String)) {
      return cs.toString();
    }
    return value;
  }

  /** A read-only view for templates: maps and lists are wrapped (not copied) so reads stay O(1). */
  @SuppressWarnings("unchecked")
  public static Object readOnly(Object value) {
    if (value instanceof Map<?, ?> map) {
      return Collections.unmodifiableMap((Map<String, Object>) map);
    }
    if (value instanceof List<?> list) {
      return Collections.unmodifiableList(list);
    }
    return value;
  }

  /** Text form used when a value must become a string: strings as-is, others as compact JSON. */
  public static String text(Object value) {
    if (value == null) {
      return "";
    }
    if (value instanceof String s) {
      return s;
    }
    return Json.compact(value);
  }

  /** Resolves a dotted path ({@code reviewer.structuredOutput.passed}) through maps and lists; null if absent. */
  public static Object path(Map<String, Object> scope, String dotted) {
    Object current = scope;
    for (String part : dotted.split("\\.")) {
      if (current instanceof Map<?, ?> m) {
        current = m.get(part);
      } else if (current instanceof List<?> l && part.matches("\\d+")) {
        int idx = Integer.parseInt(part);
        current = idx < l.size() ? l.get(idx) : null;
      } else {
        return null;
      }
      if (current == null) {
        return null;
      }
    }
    return current;
  }

  /** A value's JSON type with an article, for messages: "an array", "a string", "null". */
  public static String describe(Object value) {
    Object v = plain(value);
    if (v == null) {
      return "null";
    }
    if (v instanceof String) {
      return "a string";
    }
    if (v instanceof List<?>) {
      return "an array";
    }
    if (v instanceof Map<?, ?>) {
      return "an object";
    }
    if (v instanceof Boolean) {
      return "a boolean";
    }
    if (v instanceof Number) {
      return "a number";
    }
    return "a " + v.getClass().getSimpleName();
  }
}
