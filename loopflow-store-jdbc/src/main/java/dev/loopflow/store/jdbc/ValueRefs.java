package dev.loopflow.store.jdbc;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/*
 * Design notes.
 *
 * A large value is journaled once per run, however many documents hold it: an http node's body is its result's
 * output and body, the run's output, a node report and maybe a state key; an LLM reply is text, content and output.
 * Before a document is written, every part of it of at least THRESHOLD characters (estimated as JSON) is moved to
 * lf_values under the SHA-256 of its JSON, and the document holds a reference in its place. Equal parts have equal
 * JSON, so they share one row whatever document or execution they come from.
 *
 * The parts are chosen the same way for equal content, so they meet: a string of THRESHOLD or more; a list or map
 * of THRESHOLD or more none of whose items is that large (otherwise its large items are the parts). The document
 * itself always stays in its column.
 *
 * A reference is a JSON string starting with NUL: REF + hash. Strings of the value that start with NUL are escaped
 * with one more NUL, so no value can pass for a reference; reading removes it again. Map keys are never touched.
 */
final class ValueRefs {
  /** Parts of at least this many characters (estimated as JSON) are stored once, by hash. */
  static final int THRESHOLD = 16 * 1024;
  static final String REF = "\u0000lf:v1:";
  private static final char NUL = '\u0000';

  private ValueRefs() {}

  /** A document split for writing: {@code document} holds references; {@code parts} maps hash to part. */
  record Split(Object document, Map<String, Object> parts) {}

  static Split split(Object value) {
    Sizes sizes = new Sizes();
    Map<String, Object> parts = new LinkedHashMap<>();
    return new Split(splitNode(value, sizes, parts, true), parts);
  }

  private static Object splitNode(Object v, Sizes sizes, Map<String, Object> parts, boolean root) {
    if (v instanceof String s) {
      return !root && s.length() >= THRESHOLD ? ref(escaped(s), parts) : escape(s);
    }
    if (!(v instanceof Map<?, ?> || v instanceof Collection<?>)) {
      return v;
    }
    boolean large = sizes.of(v) >= THRESHOLD;
    if (large && !root && !sizes.hasLargeChild(v)) {
      return ref(escaped(v), parts);
    }
    if (v instanceof Map<?, ?> m) {
      Map<String, Object> out = new LinkedHashMap<>();
      m.forEach((k, x) -> out.put(String.valueOf(k), large ? splitNode(x, sizes, parts, false) : escaped(x)));
      return out;
    }
    List<Object> out = new ArrayList<>();
    for (Object x : (Collection<?>) v) {
      out.add(large ? splitNode(x, sizes, parts, false) : escaped(x));
    }
    return out;
  }

  private static String ref(Object part, Map<String, Object> parts) {
    String hash = sha256(Codec.plainJson(part));
    parts.putIfAbsent(hash, part);
    return REF + hash;
  }

  /** The value with every string starting with NUL escaped; other values are returned as they are. */
  private static Object escaped(Object v) {
    if (v instanceof String s) {
      return escape(s);
    }
    if (v instanceof Map<?, ?> m) {
      Map<String, Object> out = new LinkedHashMap<>();
      m.forEach((k, x) -> out.put(String.valueOf(k), escaped(x)));
      return out;
    }
    if (v instanceof Collection<?> c) {
      List<Object> out = new ArrayList<>(c.size());
      for (Object x : c) {
        out.add(escaped(x));
      }
      return out;
    }
    return v;
  }

  static String escape(String s) {
    return !s.isEmpty() && s.charAt(0) == NUL ? NUL + s : s;
  }

  /** Puts the parts back: {@code part} gives a part (as parsed from its JSON) by hash. */
  static Object join(Object doc, Function<String, Object> part) {
    if (doc instanceof String s && !s.isEmpty() && s.charAt(0) == NUL) {
      if (s.startsWith(REF)) {
        return join(part.apply(s.substring(REF.length())), part);
      }
      return s.length() > 1 && s.charAt(1) == NUL ? s.substring(1) : s;
    }
    if (doc instanceof Map<?, ?> m) {
      Map<String, Object> out = new LinkedHashMap<>();
      m.forEach((k, x) -> out.put(String.valueOf(k), join(x, part)));
      return out;
    }
    if (doc instanceof List<?> l) {
      List<Object> out = new ArrayList<>(l.size());
      for (Object x : l) {
        out.add(join(x, part));
      }
      return out;
    }
    return doc;
  }

  /** True when the JSON text may hold a reference or an escaped string (both start with a NUL). */
  static boolean mayHoldRefs(String json) {
    return json != null && json.contains("\\u0000");
  }

  private static String sha256(String json) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(json.getBytes(
          StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Estimated JSON sizes, computed once per part (identity), so splitting costs one walk of the value. */
  private static final class Sizes {
    private final IdentityHashMap<Object, Long> known = new IdentityHashMap<>();

    long of(Object v) {
      if (v instanceof String s) {
        return s.length() + 2L;
      }
      if (!(v instanceof Map<?, ?> || v instanceof Collection<?>)) {
        return v == null ? 4 : String.valueOf(v).length();
      }
      Long k = known.get(v);
      if (k != null) {
        return k;
      }
      long total = 2;
      if (v instanceof Map<?, ?> m) {
        for (Map.Entry<?, ?> e : m.entrySet()) {
          total += String.valueOf(e.getKey()).length() + 4 + of(e.getValue());
        }
      } else {
        for (Object x : (Collection<?>) v) {
          total += 1 + of(x);
        }
      }
      known.put(v, total);
      return total;
    }

    boolean hasLargeChild(Object v) {
      Collection<?> children = v instanceof Map<?, ?> m ? m.values() : (Collection<?>) v;
      for (Object x : children) {
        if (of(x) >= THRESHOLD) {
          return true;
        }
      }
      return false;
    }
  }
}
