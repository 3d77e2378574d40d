package dev.loopflow.core.internal.load;

import dev.loopflow.core.error.Names;
import dev.loopflow.core.model.InputSpec;
import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.yaml.YNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/** The {@code input:} section (top level or under {@code flow:}): input name to a type name or a JSON Schema. */
final class Inputs {
  private Inputs() {}

  static final List<String> TYPES = List.of("string", "number", "integer", "boolean", "object", "array");
  /** One declared input: a type name or a JSON Schema ({@code type}, {@code default}, {@code description}, ...). */
  static final FieldSpec INPUT = FieldSpec.oneOf("input", null,
      FieldSpec.choice("input", TYPES, "The input's type."),
      FieldSpec.map("input", null, "A JSON Schema for the input: its type (one of the type names), default and "
          + "description; writeOnly: true marks a credential, masked wherever it is shown."));
  static final FieldSpec SECTION = FieldSpec.map("input", INPUT, "The run's inputs: name to a type name (string, "
      + "number, integer, boolean, object, array) or a JSON Schema.");

  /** The declared inputs; an input whose type is wrong is reported and left out. */
  static Map<String, InputSpec> read(YNode n, String path, Problems problems) {
    Map<String, InputSpec> out = new LinkedHashMap<>();
    if (!(n instanceof YNode.YMap m)) {
      problems.add(n.location(), path, "expected a mapping of input name to type, found " + n.describe());
      return out;
    }
    for (YNode.YMap.Entry e : m.entries().values()) {
      String p = path + "." + e.key();
      YNode v = e.value();
      if (v instanceof YNode.YScalar s && s.value() instanceof String type) {
        if (!TYPES.contains(type)) {
          problems.add(v.location(), p, "unknown input type '" + type + "'" + Names.suggest(type, TYPES)
              + "; expected one of " + new TreeSet<>(TYPES) + " or a JSON Schema");
          continue;
        }
        out.put(e.key(), new InputSpec(e.key(), type, null, false, null, null));
      } else if (v instanceof YNode.YMap schema) {
        @SuppressWarnings("unchecked")
        Map<String, Object> plain = (Map<String, Object>) schema.toPlain();
        Object type = plain.get("type");
        if (type != null && !(type instanceof String t && TYPES.contains(t))) {
          problems.add(schema.get("type").location(), p + ".type", "unknown input type '" + type + "'"
              + (type instanceof String t ? Names.suggest(t, TYPES) : "") + "; expected one of "
              + new TreeSet<>(TYPES));
          continue;
        }
        out.put(e.key(), new InputSpec(e.key(), (String) type, plain, plain.containsKey("default"),
            plain.get("default"), plain.get("description") instanceof String d ? d : null));
      } else {
        problems.add(v.location(), p, "expected a type name or a JSON Schema mapping, found " + v.describe());
      }
    }
    return out;
  }
}
