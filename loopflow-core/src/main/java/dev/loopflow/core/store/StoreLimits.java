package dev.loopflow.core.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * What the command bus and shared memory of every store accept, checked before anything is written; a refusal is an
 * {@link IllegalArgumentException} naming the field, its size and the limit. The in-memory store and the durable
 * stores apply these same checks (the store contract suite pins them on each), so a workflow that works in tests
 * works on a durable store.
 *
 * <p>Names (run ids, kinds, scopes, namespaces, keys) must be text both databases keep exactly: no NUL character
 * (PostgreSQL text cannot hold it) and no unpaired surrogate (UTF-8 cannot encode it). Their byte limits keep a
 * primary key within PostgreSQL's index entry limit of about 2.7 KB. Documents (payloads, responses, metadata) must
 * be JSON data, so that they read back as they were written; they are measured as UTF-8 JSON.
 */
public final class StoreLimits {
  /** One shared-memory value, in bytes as stored (compressed or not). */
  public static final int MAX_VALUE_BYTES = 16 * 1024 * 1024;
  /** One command payload, command response or shared-memory metadata map, as UTF-8 JSON. */
  public static final int MAX_DOCUMENT_BYTES = 64 * 1024;
  /** A run id, a shared-memory scope or key, as UTF-8. */
  public static final int MAX_NAME_BYTES = 1024;
  /** A command kind or a shared-memory namespace, as UTF-8. */
  public static final int MAX_SHORT_NAME_BYTES = 256;
  /** Deeper documents are refused before Jackson (which stops at 1000 levels) or a cycle could fail obscurely. */
  public static final int MAX_DEPTH = 256;

  // The UTF-8 generator escapes every character outside ASCII it cannot write as such (an unpaired surrogate too),
  // so the text stored is exactly what reads back.
  private static final ObjectMapper JSON = JsonMapper.builder().build();

  private StoreLimits() {}

  /** {@code value} when it is a name the stores keep exactly and within {@code maxBytes}. */
  public static String name(String field, String value, int maxBytes, boolean mayBeEmpty) {
    if (value == null) {
      throw new IllegalArgumentException(field + " is missing");
    }
    if (value.isEmpty() && !mayBeEmpty) {
      throw new IllegalArgumentException(field + " is empty");
    }
    for (int i = 0; i < value.length(); i++) {
      char ch = value.charAt(i);
      if (ch == 0) {
        throw new IllegalArgumentException(field + " contains a NUL character at index " + i);
      }
      if (Character.isHighSurrogate(ch) && i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(ch)) {
        throw new IllegalArgumentException(field + " contains an unpaired surrogate at index " + i);
      }
    }
    int bytes = value.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > maxBytes) {
      throw new IllegalArgumentException(field + " is " + bytes + " bytes as UTF-8; the limit is " + maxBytes);
    }
    return value;
  }

  /**
   * The JSON of {@code document} (a map of JSON data) as stored, within {@link #MAX_DOCUMENT_BYTES}: a durable store
   * writes this text, and the in-memory store keeps what reading it back gives.
   */
  public static String document(String field, Map<String, ?> document) {
    plain(field, Where.ROOT, document, 0);
    byte[] json;
    try {
      json = JSON.writeValueAsBytes(document);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(field + " cannot be written as JSON: " + e.getOriginalMessage(), e);
    }
    if (json.length > MAX_DOCUMENT_BYTES) {
      throw new IllegalArgumentException(field + " is " + json.length + " bytes as JSON; the limit is "
          + MAX_DOCUMENT_BYTES);
    }
    return new String(json, StandardCharsets.UTF_8);
  }

  /** {@code value} when it is within {@link #MAX_VALUE_BYTES}. */
  public static byte[] value(String field, byte[] value) {
    if (value.length > MAX_VALUE_BYTES) {
      throw new IllegalArgumentException(field + " is " + value.length + " bytes; the limit is " + MAX_VALUE_BYTES);
    }
    return value;
  }

  /**
   * Refuses what would not read back as written: objects that are not JSON data, non-finite numbers (JSON has none;
   * they would come back as strings) and decimals beyond a double (they would come back rounded).
   */
  private static void plain(String field, Where where, Object v, int depth) {
    if (depth > MAX_DEPTH) {
      throw new IllegalArgumentException(field + " is nested deeper than " + MAX_DEPTH + " levels at " + where);
    }
    if (v == null || v instanceof String || v instanceof Boolean || v instanceof Integer || v instanceof Long
        || v instanceof Short || v instanceof Byte || v instanceof BigInteger) {
      return;
    }
    if (v instanceof Double d && Double.isFinite(d) || v instanceof Float f && Float.isFinite(f)) {
      return;
    }
    if (v instanceof Map<?, ?> m) {
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (!(e.getKey() instanceof String k)) {
          throw new IllegalArgumentException(field + " has a key that is not a string at " + where + ": "
              + describe(e.getKey()));
        }
        plain(field, new Where(where, k, -1), e.getValue(), depth + 1);
      }
      return;
    }
    if (v instanceof List<?> l) {
      for (int i = 0; i < l.size(); i++) {
        plain(field, new Where(where, null, i), l.get(i), depth + 1);
      }
      return;
    }
    throw new IllegalArgumentException(field + " holds " + describe(v) + " at " + where + "; only JSON data (maps "
        + "with string keys, lists, strings, finite numbers, booleans, null) can be stored");
  }

  /** Where in a document a value is, spelled only when an error names it ({@code $.a[2].b}). */
  private record Where(Where parent, String key, int index) {
    static final Where ROOT = new Where(null, null, -1);

    @Override
    public String toString() {
      if (parent == null) {
        return "$";
      }
      return parent + (key != null ? "." + key : "[" + index + "]");
    }
  }

  private static String describe(Object v) {
    return v == null ? "null" : v instanceof Number ? "the number " + v + " (" + v.getClass().getSimpleName() + ")"
        : "a " + v.getClass().getName();
  }
}
