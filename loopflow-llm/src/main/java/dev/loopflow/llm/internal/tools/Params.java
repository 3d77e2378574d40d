package dev.loopflow.llm.internal.tools;

import dev.loopflow.core.expr.JsonSchemas;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Builds the parameter schemas of the built-in tools, as plain data. */
final class Params {
  private Params() {}

  /** An object schema with these properties (name → schema, in order), of which {@code required} are required. */
  static Map<String, Object> object(Map<String, Object> properties, List<String> required) {
    Map<String, Object> schema = new LinkedHashMap<>();
    schema.put("type", "object");
    schema.put("properties", properties);
    if (!required.isEmpty()) {
      schema.put("required", required);
    }
    schema.put("additionalProperties", false);
    return schema;
  }

  static Map<String, Object> string(String description) {
    return Map.of("type", "string", "description", description);
  }

  static Map<String, Object> oneOf(String description, List<String> values) {
    return Map.of("type", "string", "enum", values, "description", description);
  }

  static JsonSchemas.Compiled compile(Map<String, Object> schema) {
    return JsonSchemas.compile(schema);
  }

  /** Ordered properties from name/schema pairs. */
  static Map<String, Object> props(Object... pairs) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      m.put((String) pairs[i], pairs[i + 1]);
    }
    return m;
  }
}
