package dev.loopflow.core.expr;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.util.ArrayList;
import java.util.List;

/** JSON Schema (draft 2020-12 unless the schema says otherwise), compiled once and reused. */
public final class JsonSchemas {
  private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

  private JsonSchemas() {}

  /** A compiled schema; thread-safe. */
  public interface Compiled {
    /** Problems as "path: message" strings; empty when valid. */
    List<String> validate(Object value);

    Object schema();
  }

  /** Compiles a schema given as plain data (a map) or JSON text; IllegalArgumentException when it is not one. */
  public static Compiled compile(Object schema) {
    String text = schema instanceof String s ? s : Json.compact(schema);
    Schema compiled;
    try {
      compiled = REGISTRY.getSchema(text);
      compiled.initializeValidators();
    } catch (RuntimeException e) {
      // One line, bounded: the checker's message may quote a regex over several lines with a caret under it.
      String why = String.valueOf(e.getMessage()).replaceAll("\\s+", " ").strip();
      throw new IllegalArgumentException("not a valid JSON Schema: "
          + (why.length() > 300 ? why.substring(0, 300) + "…" : why), e);
    }
    Object plain = schema instanceof String s ? Json.parse(s) : schema;
    return new Compiled() {
      @Override
      public List<String> validate(Object value) {
        JsonNode node = Json.mapper().valueToTree(value);
        List<String> out = new ArrayList<>();
        for (Error e : compiled.validate(node)) {
          String where = e.getInstanceLocation() == null ? "$" : e.getInstanceLocation().toString();
          out.add(where + ": " + e.getMessage());
        }
        return out;
      }

      @Override
      public Object schema() {
        return plain;
      }
    };
  }
}
