package dev.loopflow.core.internal.nodes;

import dev.loopflow.core.error.NodeFailedException;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.expr.JsonSchemas;
import dev.loopflow.core.expr.Template;
import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.NodeProgram;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code validator}: checks {@code value} against {@code schema}. The result is {@code valid} and
 * {@code errors}; with {@code fail_on_invalid: true} an invalid value fails the node. A string value that
 * parses as JSON is validated as that JSON (LLM text is usually JSON in a string).
 */
final class ValidatorHandler implements NodeHandler {
  static final NodeKindSpec SPEC = NodeKindSpec.of("validator", "Checks a value against a JSON Schema; the result "
      + "has valid and errors.", List.of(
      FieldSpec.jsonSchema("schema", "The JSON Schema.").asRequired(),
      FieldSpec.template("value", "The value to check (a string that parses as JSON is checked as that JSON).")
          .asRequired(),
      FieldSpec.bool("fail_on_invalid", "Fail the node when the value does not match.")));

  @Override
  public NodeKindSpec spec() {
    return SPEC;
  }

  @Override
  public Set<String> resultFields() {
    return Set.of("valid", "errors", "value");
  }

  @Override
  public NodeProgram compile(NodeConfig cfg) {
    Object schema = cfg.plain("schema");
    if (schema == null) {
      cfg.error(null, "missing required field 'schema'");
    }
    Template value = cfg.requiredTemplate("value");
    Boolean fail = cfg.bool("fail_on_invalid");
    JsonSchemas.Compiled compiled = null;
    if (schema != null) {
      try {
        compiled = JsonSchemas.compile(schema);
      } catch (IllegalArgumentException e) {
        cfg.error("schema", e.getMessage());
      }
    }
    if (compiled == null || value == null) {
      return null;
    }
    JsonSchemas.Compiled s = compiled;
    boolean failOnInvalid = Boolean.TRUE.equals(fail);
    return ctx -> {
      Object v = ctx.evaluate(value);
      if (v instanceof String str) {
        try {
          v = Json.parse(str);
        } catch (IllegalArgumentException notJson) {
          // validate the string itself
        }
      }
      List<String> errors = s.validate(v);
      Map<String, Object> fields = new LinkedHashMap<>();
      fields.put("valid", errors.isEmpty());
      fields.put("errors", errors);
      fields.put("value", v);
      if (!errors.isEmpty() && failOnInvalid) {
        throw new NodeFailedException("value does not match the schema: " + String.join("; ", errors), fields);
      }
      return new NodeOutcome(errors.isEmpty(), fields, null, null);
    };
  }
}
