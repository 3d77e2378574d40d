package dev.loopflow.server.internal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A request's JSON object body, read strictly: one object, no duplicate keys, nothing after it, and only the fields
 * the route knows (a misspelt field would otherwise be ignored silently). Every accessor checks the field's JSON
 * type and names the field when it is wrong ({@code bad_request} with {@code field}).
 */
final class JsonBody {
  private static final ObjectMapper STRICT = JsonMapper.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  private final Map<String, Object> fields;

  private JsonBody(Map<String, Object> fields) {
    this.fields = fields;
  }

  /**
   * Parses {@code bytes} as a JSON object whose keys are all in {@code allowed}. An empty body is an empty object
   * when {@code emptyIsObject} (routes whose fields are all optional), else an error.
   */
  static JsonBody parse(byte[] bytes, Set<String> allowed, boolean emptyIsObject) {
    if (bytes.length == 0 || new String(bytes, StandardCharsets.UTF_8).isBlank()) {
      if (emptyIsObject) {
        return new JsonBody(Map.of());
      }
      throw ApiError.of(ErrorTable.Kind.BAD_REQUEST, "the request body is empty; expected a JSON object with "
          + String.join(", ", allowed.stream().sorted().toList()));
    }
    Object parsed;
    try (JsonParser p = STRICT.createParser(bytes)) {
      parsed = STRICT.readValue(p, Object.class);
      if (p.nextToken() != null) {
        throw ApiError.of(ErrorTable.Kind.BAD_REQUEST, "the request body has text after its JSON value (line "
            + p.currentTokenLocation().getLineNr() + ", column " + p.currentTokenLocation().getColumnNr() + ")");
      }
    } catch (JsonProcessingException e) {
      var at = e.getLocation();
      throw ApiError.of(ErrorTable.Kind.BAD_REQUEST, "the request body is not valid JSON"
          + (at == null ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")") + ": "
          + ApiError.oneLine(e.getOriginalMessage()));
    } catch (IOException e) {
      throw ApiError.of(ErrorTable.Kind.BAD_REQUEST, "the request body cannot be read: " + e.getMessage());
    }
    if (!(parsed instanceof Map<?, ?> m)) {
      throw ApiError.of(ErrorTable.Kind.BAD_REQUEST, "the request body must be a JSON object, was "
          + describe(parsed));
    }
    Map<String, Object> out = new LinkedHashMap<>();
    for (Map.Entry<?, ?> e : m.entrySet()) {
      String key = String.valueOf(e.getKey());
      if (!allowed.contains(key)) {
        throw ApiError.badField(key, "unknown field '" + printable(key) + "'; this request takes "
            + String.join(", ", allowed.stream().sorted().toList()));
      }
      out.put(key, e.getValue());
    }
    return new JsonBody(out);
  }

  boolean has(String field) {
    return fields.get(field) != null;
  }

  /** The string field, or null when absent or null. */
  String string(String field) {
    Object v = fields.get(field);
    if (v == null || v instanceof String) {
      return (String) v;
    }
    throw wrongType(field, "a string", v);
  }

  String requiredString(String field) {
    String s = string(field);
    if (s == null) {
      throw ApiError.badField(field, "field '" + field + "' is required (a string)");
    }
    return s;
  }

  Boolean bool(String field) {
    Object v = fields.get(field);
    if (v == null || v instanceof Boolean) {
      return (Boolean) v;
    }
    throw wrongType(field, "true or false", v);
  }

  /** The object field with string keys, or null when absent or null. */
  @SuppressWarnings("unchecked")
  Map<String, Object> object(String field) {
    Object v = fields.get(field);
    if (v == null || v instanceof Map) {
      return (Map<String, Object>) v;
    }
    throw wrongType(field, "a JSON object", v);
  }

  /** The object field whose every value is a string (for a restart's parameters), or null when absent. */
  Map<String, String> stringMap(String field) {
    Map<String, Object> m = object(field);
    if (m == null) {
      return null;
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : m.entrySet()) {
      if (!(e.getValue() instanceof String s)) {
        throw wrongType(field + "." + e.getKey(), "a string", e.getValue());
      }
      out.put(e.getKey(), s);
    }
    return out;
  }

  private static ApiError wrongType(String field, String expected, Object v) {
    return ApiError.badField(field, "field '" + printable(field) + "' must be " + expected + ", was "
        + describe(v));
  }

  static String describe(Object v) {
    return switch (v) {
      case null -> "null";
      case String s -> "a string";
      case Boolean b -> "a boolean";
      case Number n -> "a number";
      case List<?> l -> "an array";
      case Map<?, ?> m -> "an object";
      default -> "a " + v.getClass().getSimpleName();
    };
  }

  /** A name from the request, quoted back safely: at most 100 characters, control characters escaped. */
  static String printable(String s) {
    StringBuilder sb = new StringBuilder();
    s.codePoints().limit(100).forEach(cp -> {
      if (Character.isISOControl(cp)) {
        sb.append(String.format("\\u%04x", cp));
      } else {
        sb.appendCodePoint(cp);
      }
    });
    return s.codePointCount(0, s.length()) > 100 ? sb + "…" : sb.toString();
  }
}
