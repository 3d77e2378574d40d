package dev.loopflow.core.schema;

import dev.loopflow.core.expr.Expressions;
import dev.loopflow.core.time.Durations;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes the description of the workflow format as JSON Schema (draft 2020-12) values: one field at a time
 * ({@link #field}) and one node kind in each of the forms a node can take ({@link #kind}). Every schema is plain
 * data (maps and lists, in a fixed order), so the JSON written from it is the same on every machine.
 */
final class SchemaWriter {
  static final String DEFS = "#/$defs/";
  static final String NODE = "node";
  static final String NODE_ID = "nodeId";
  static final String CONDITION = "condition";
  static final String STRUCTURED_CONDITION = "structuredCondition";
  static final String DURATION = "duration";

  private SchemaWriter() {}

  static Map<String, Object> ref(String def) {
    return map("$ref", DEFS + def);
  }

  /** The schema of one field's value. */
  static Map<String, Object> field(FieldSpec f) {
    Map<String, Object> s = new LinkedHashMap<>();
    if (f.description() != null) {
      s.put("description", f.description());
    }
    switch (f.type()) {
      // YAML reads 1.0 or 2024 as numbers; the loader takes them as their text wherever it wants text.
      case STRING, TEMPLATE -> s.put("type", List.of("string", "number"));
      case CONDITION -> s.putAll(ref(CONDITION));
      case INTEGER -> {
        s.put("type", "integer");
        range(f, s);
      }
      case NUMBER -> {
        s.put("type", "number");
        range(f, s);
      }
      case BOOLEAN -> s.put("type", "boolean");
      case DURATION -> s.putAll(ref(DURATION));
      case CHOICE -> s.put("enum", f.values());
      case NODE_ID -> s.putAll(ref(NODE_ID));
      case NODE_IDS -> s.put("anyOf", List.of(ref(NODE_ID), map("type", "array", "items", ref(NODE_ID)),
          map("type", "null")));
      case SECTION -> s.putAll(object(f.fields(), Map.of()));
      case MAP -> {
        s.put("type", "object");
        s.put("additionalProperties", f.items() == null ? true : field(f.items()));
      }
      case LIST -> {
        s.put("type", "array");
        if (f.items() != null) {
          s.put("items", field(f.items()));
        }
      }
      case ONE_OF -> s.put("anyOf", f.alternatives().stream().map(SchemaWriter::field).toList());
      case NODES -> {
        s.put("type", "array");
        s.put("minItems", 1);
        s.put("items", ref(NODE));
      }
      case JSON_SCHEMA -> s.put("type", List.of("object", "boolean", "string"));
      case ANY -> { }
    }
    return s;
  }

  private static void range(FieldSpec f, Map<String, Object> s) {
    if (f.minimum() != null) {
      s.put("minimum", f.minimum());
    }
    if (f.maximum() != null) {
      s.put("maximum", f.maximum());
    }
  }

  /**
   * A closed mapping of {@code fields}: no other key, the required ones given (under any of their names), no two
   * names of one field given together. {@code overrides} replace the schema of the named properties.
   */
  static Map<String, Object> object(List<FieldSpec> fields, Map<String, Map<String, Object>> overrides) {
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("type", "object");
    s.put("properties", properties(fields, overrides));
    s.put("additionalProperties", false);
    List<Object> all = new ArrayList<>();
    for (FieldSpec f : fields) {
      if (f.required()) {
        all.add(oneOf(f.names(), null));
      }
      if (!f.aliases().isEmpty()) {
        all.add(atMostOne(f.names()));
      }
    }
    if (!all.isEmpty()) {
      s.put("allOf", all);
    }
    return s;
  }

  static Map<String, Object> properties(List<FieldSpec> fields, Map<String, Map<String, Object>> overrides) {
    Map<String, Object> props = new LinkedHashMap<>();
    for (FieldSpec f : fields) {
      for (String name : f.names()) {
        props.put(name, overrides.containsKey(name) ? overrides.get(name) : field(f));
      }
    }
    return props;
  }

  /**
   * The form of a node of one kind. {@code holder}: null for a node written with its fields on it; else the key
   * whose mapping may hold the kind's fields instead ({@code input} under {@code type:}, {@code with} under
   * {@code uses:}, {@code loop_group} as a shorthand), so a required field may be given there.
   */
  static Map<String, Object> kind(List<FieldSpec> common, NodeKindSpec kind, String holder,
      Map<String, Object> typeSchema) {
    List<FieldSpec> fields = new ArrayList<>(common);
    Set<String> own = kind.fieldNames();
    for (FieldSpec f : kind.fields()) {
      // A kind's own meaning of a common field wins (a loop_group's output, a router's model).
      fields.removeIf(c -> f.names().stream().anyMatch(c.names()::contains));
    }
    fields.addAll(kind.fields());
    Map<String, Map<String, Object>> overrides = new LinkedHashMap<>(ownFields(kind));
    for (FieldSpec c : common) {
      if (fields.contains(c)) {
        c.names().forEach(n -> overrides.put(n, ref(commonDef(c))));
      }
    }
    if (typeSchema != null) {
      overrides.put("type", typeSchema);
    }
    if (holder != null) {
      // What must be given may be given on the node itself, so the holder's mapping only keeps what cannot go
      // together.
      Map<String, Object> inner = object(kind.fields(), ownFields(kind));
      List<Object> exclusive = new ArrayList<>();
      for (FieldSpec f : kind.fields()) {
        if (!f.aliases().isEmpty()) {
          exclusive.add(atMostOne(f.names()));
        }
      }
      kind.atMostOne().forEach(group -> exclusive.add(atMostOne(group)));
      inner.remove("allOf");
      if (!exclusive.isEmpty()) {
        inner.put("allOf", exclusive);
      }
      FieldSpec ownHolder = FieldSpec.find(kind.fields(), holder);
      overrides.put(holder, ownHolder == null ? inner : map("anyOf", List.of(ref(ownDef(kind, ownHolder)), inner)));
      if (ownHolder == null && !own.contains(holder) && FieldSpec.find(common, holder) == null) {
        fields.add(FieldSpec.any(holder, null)); // listed so that it is a property; its schema is the override
      }
    }
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("type", "object");
    s.put("properties", properties(fields, overrides));
    s.put("additionalProperties", false);
    List<Object> all = new ArrayList<>();
    for (FieldSpec f : fields) {
      if (f.required()) {
        all.add(oneOf(f.names(), own.contains(f.name()) ? holder : null));
      }
      if (!f.aliases().isEmpty()) {
        all.add(atMostOne(f.names()));
      }
    }
    for (List<String> group : kind.oneRequired()) {
      all.add(oneOf(group, holder));
    }
    for (List<String> group : kind.atMostOne()) {
      all.add(atMostOne(group));
    }
    if (!all.isEmpty()) {
      s.put("allOf", all);
    }
    return s;
  }

  /** A kind's own fields as references to their definitions ({@link #ownDef}), by every name they have. */
  private static Map<String, Map<String, Object>> ownFields(NodeKindSpec kind) {
    Map<String, Map<String, Object>> refs = new LinkedHashMap<>();
    for (FieldSpec f : kind.fields()) {
      f.names().forEach(n -> refs.put(n, ref(ownDef(kind, f))));
    }
    return refs;
  }

  /** The definition of one of a kind's own fields, shared by the kind's forms. */
  static String ownDef(NodeKindSpec kind, FieldSpec f) {
    return "field:" + kind.kind() + "." + f.name();
  }

  /** The definition of a common node field, shared by every kind's forms. */
  static String commonDef(FieldSpec f) {
    return "field:" + f.name();
  }

  /** At least one of {@code names} is given, on the node or (when {@code holder} is not null) in its holder. */
  private static Map<String, Object> oneOf(List<String> names, String holder) {
    List<Object> any = new ArrayList<>();
    for (String n : names) {
      any.add(map("required", List.of(n)));
      if (holder != null) {
        any.add(map("required", List.of(holder), "properties", map(holder, map("required", List.of(n)))));
      }
    }
    return any.size() == 1 ? castMap(any.get(0)) : map("anyOf", any);
  }

  /** No two of {@code names} are given together. */
  private static Map<String, Object> atMostOne(List<String> names) {
    List<Object> pairs = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      for (int j = i + 1; j < names.size(); j++) {
        pairs.add(map("required", List.of(names.get(i), names.get(j))));
      }
    }
    return map("not", pairs.size() == 1 ? pairs.get(0) : map("anyOf", pairs));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> castMap(Object o) {
    return (Map<String, Object>) o;
  }

  /** The shared definitions: a node id, a condition, a duration. */
  static Map<String, Object> sharedDefs(Vocabulary vocabulary) {
    Map<String, Object> defs = new LinkedHashMap<>();
    defs.put(NODE_ID, map("description", "A node id: a letter or '_', then letters, digits, '_' and '-'.",
        "type", "string", "pattern", "^" + vocabulary.idPattern() + "$",
        "not", map("enum", vocabulary.reservedIds().stream().sorted().toList())));
    defs.put(CONDITION, map("description", "A condition: a Jinja expression (state.count < 3), a boolean, or the "
        + "structured form with one operator.", "anyOf", List.of(map("type", "string"), map("type", "boolean"),
        ref(STRUCTURED_CONDITION))));
    defs.put(STRUCTURED_CONDITION, map("description", "A structured condition: a mapping with exactly one "
        + "operator, e.g. {not: {equals: {var: reviewer.json.passed, value: true}}}.", "type", "object",
        "minProperties", 1, "maxProperties", 1,
        "propertyNames", map("enum", Expressions.structuredOperators().stream().sorted().toList())));
    defs.put(DURATION, map("description", "A positive duration: 30s, 5m, 1h30m, 500ms, or a number of seconds.",
        "anyOf", List.of(map("type", "number", "exclusiveMinimum", 0),
            map("type", "string", "pattern", durationPattern()))));
    return defs;
  }

  /** What {@code Durations} reads: a number of seconds, or amounts with units, in any case, blanks around. */
  static String durationPattern() {
    List<String> units = new ArrayList<>();
    for (String u : Durations.UNITS) {
      StringBuilder sb = new StringBuilder();
      for (char c : u.toCharArray()) {
        sb.append('[').append(c).append(Character.toUpperCase(c)).append(']');
      }
      units.add(sb.toString());
    }
    String amount = "[0-9]+(\\.[0-9]+)?";
    return "^ *(" + amount + "|(" + amount + " *(" + String.join("|", units) + ") *)+) *$";
  }

  /** A map of alternating keys and values, in order. */
  static Map<String, Object> map(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }
}
