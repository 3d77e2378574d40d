package dev.loopflow.core.run;

import dev.loopflow.core.expr.Json;
import dev.loopflow.core.expr.JsonSchemas;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The form a paused human step asks a person to fill: an approval's {@code schema} or an interactive loop_group's
 * {@code gate_schema}. It is a JSON Schema (the validator node's dialect and checker) restricted to what a form
 * draws: one object whose properties are strings, numbers, integers, booleans or enums. The one place that decides
 * whether a schema is a form (at load) and whether an answer fits it (when a resume is asked, under the run's lease).
 * Everything is bounded, so a hostile workflow or answer costs little: schema and answer bytes, property and enum
 * counts, label lengths, answer nesting.
 */
public final class AnswerSchema {
  /** The largest schema, as compact JSON. */
  public static final int MAX_SCHEMA_BYTES = 64 * 1024;
  /** The most fields a form has. */
  public static final int MAX_PROPERTIES = 100;
  /** The most choices an enum field offers. */
  public static final int MAX_ENUM = 200;
  /** The longest title or description. */
  public static final int MAX_LABEL = 2000;
  /** The largest answer, as compact JSON. */
  public static final int MAX_VALUES_BYTES = 64 * 1024;
  /** The deepest answer (a form's fields are scalars, so anything deeper is refused before it is checked). */
  public static final int MAX_VALUES_DEPTH = 8;
  /** Field names double as template keys ({@code loop.user_values.NAME}) and {@code --value NAME=...} arguments. */
  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");
  private static final Set<String> TYPES = Set.of("string", "number", "integer", "boolean");
  private static final Set<String> TOP_KEYS = Set.of("type", "properties", "required", "title", "description",
      "additionalProperties", "$schema");
  /** Keywords a field may not use: they describe nested values, which a form does not draw. */
  private static final Set<String> NESTING = Set.of("properties", "items", "prefixItems", "additionalProperties",
      "patternProperties", "allOf", "anyOf", "oneOf", "not", "$ref", "$defs", "if", "then", "else");
  /** How many problems one refusal names; the rest are counted. */
  private static final int MAX_PROBLEMS = 3;
  private static final int MAX_PROBLEM_CHARS = 200;

  private final Map<String, Object> schema;
  private final Map<String, Map<String, Object>> fields;
  private final List<String> required;
  private final JsonSchemas.Compiled compiled;

  private AnswerSchema(Map<String, Object> schema, Map<String, Map<String, Object>> fields, List<String> required,
      JsonSchemas.Compiled compiled) {
    this.schema = schema;
    this.fields = fields;
    this.required = required;
    this.compiled = compiled;
  }

  /**
   * The form {@code schema} (plain data, as YAML or JSON read it) describes; IllegalArgumentException with a
   * one-line message naming the offending part when it is not one.
   */
  @SuppressWarnings("unchecked")
  public static AnswerSchema of(Object schema) {
    if (!(schema instanceof Map<?, ?>)) {
      throw new IllegalArgumentException("expected a JSON Schema object with type: object and properties, found "
          + kindOf(schema));
    }
    String text = Json.compact(schema);
    if (text.getBytes(StandardCharsets.UTF_8).length > MAX_SCHEMA_BYTES) {
      throw new IllegalArgumentException("the schema is larger than " + MAX_SCHEMA_BYTES + " bytes");
    }
    // A copy of its own: the plan keeps nothing the caller can change.
    Map<String, Object> top = (Map<String, Object>) Json.parse(text);
    for (Object k : top.keySet()) {
      if (!TOP_KEYS.contains(String.valueOf(k))) {
        throw new IllegalArgumentException("'" + printable(String.valueOf(k)) + "' is not drawn by a form; the "
            + "schema takes " + String.join(", ", sorted(TOP_KEYS)));
      }
    }
    if (!"object".equals(top.get("type"))) {
      throw new IllegalArgumentException("the schema's type must be 'object' (the answer is one JSON object)");
    }
    Object ap = top.get("additionalProperties");
    if (ap != null && !Boolean.FALSE.equals(ap)) {
      throw new IllegalArgumentException("additionalProperties may only be false: a form's answer has only its "
          + "declared fields");
    }
    if (!(top.get("properties") instanceof Map<?, ?> props) || props.isEmpty()) {
      throw new IllegalArgumentException("the schema needs 'properties': a mapping of field name to its schema");
    }
    if (props.size() > MAX_PROPERTIES) {
      throw new IllegalArgumentException("the form has " + props.size() + " fields; at most " + MAX_PROPERTIES);
    }
    label(top, "title", "the schema");
    label(top, "description", "the schema");
    Map<String, Map<String, Object>> fields = new LinkedHashMap<>();
    for (Map.Entry<?, ?> e : props.entrySet()) {
      String name = String.valueOf(e.getKey());
      if (!NAME.matcher(name).matches()) {
        throw new IllegalArgumentException("field name '" + printable(name) + "' must be 1 to 64 letters, digits "
            + "or '_', not starting with a digit");
      }
      fields.put(name, field(name, e.getValue()));
    }
    List<String> required = new ArrayList<>();
    Object req = top.get("required");
    if (req != null) {
      if (!(req instanceof List<?> list)) {
        throw new IllegalArgumentException("'required' must be a list of field names, found " + kindOf(req));
      }
      for (Object r : list) {
        if (!(r instanceof String s) || !fields.containsKey(s)) {
          throw new IllegalArgumentException("'required' names '" + printable(String.valueOf(r)) + "', which is "
              + "not a field of the form");
        }
        required.add(s);
      }
    }
    JsonSchemas.Compiled compiled = JsonSchemas.compile(top);
    for (Map.Entry<String, Map<String, Object>> f : fields.entrySet()) {
      if (f.getValue().containsKey("default")) {
        List<String> bad = JsonSchemas.compile(f.getValue()).validate(f.getValue().get("default"));
        if (!bad.isEmpty()) {
          throw new IllegalArgumentException("field '" + f.getKey() + "': its default does not fit it: "
              + summary(bad));
        }
      }
    }
    return new AnswerSchema(Collections.unmodifiableMap(top),
        Collections.unmodifiableMap(fields), List.copyOf(required), compiled);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> field(String name, Object spec) {
    if (!(spec instanceof Map<?, ?> m)) {
      throw new IllegalArgumentException("field '" + name + "': expected a schema object, found " + kindOf(spec));
    }
    for (Object k : m.keySet()) {
      if (NESTING.contains(String.valueOf(k))) {
        throw new IllegalArgumentException("field '" + name + "': '" + k + "' describes nested values, which a "
            + "form does not draw; fields are strings, numbers, integers, booleans or enums");
      }
    }
    Object type = m.get("type");
    Object en = m.get("enum");
    if (type != null && !(type instanceof String t && TYPES.contains(t))) {
      throw new IllegalArgumentException("field '" + name + "': type " + printable(Json.compact(type)) + " is not "
          + "drawn by a form; use string, number, integer or boolean (or enum)");
    }
    if (en != null) {
      if (!(en instanceof List<?> choices) || choices.isEmpty()) {
        throw new IllegalArgumentException("field '" + name + "': enum must be a non-empty list of choices");
      }
      if (choices.size() > MAX_ENUM) {
        throw new IllegalArgumentException("field '" + name + "': enum has " + choices.size() + " choices; at most "
            + MAX_ENUM);
      }
      for (Object c : choices) {
        if (!(c instanceof String || c instanceof Number || c instanceof Boolean)) {
          throw new IllegalArgumentException("field '" + name + "': enum choices are strings, numbers or "
              + "booleans, found " + kindOf(c));
        }
      }
    } else if (type == null) {
      throw new IllegalArgumentException("field '" + name + "': give a type (string, number, integer, boolean) or "
          + "an enum");
    }
    label(m, "title", "field '" + name + "'");
    label(m, "description", "field '" + name + "'");
    return Collections.unmodifiableMap((Map<String, Object>) m);
  }

  private static void label(Map<?, ?> m, String key, String where) {
    Object v = m.get(key);
    if (v == null) {
      return;
    }
    if (!(v instanceof String s)) {
      throw new IllegalArgumentException(where + ": '" + key + "' must be text, found " + kindOf(v));
    }
    if (s.length() > MAX_LABEL) {
      throw new IllegalArgumentException(where + ": '" + key + "' is longer than " + MAX_LABEL + " characters");
    }
  }

  /** The schema as plain JSON data: what {@link Waiting#schema()} carries and the form is drawn from. */
  public Map<String, Object> json() {
    return schema;
  }

  /** The fields' names, in the schema's order. */
  public Set<String> names() {
    return fields.keySet();
  }

  public List<String> required() {
    return required;
  }

  /**
   * The fields in one bounded line for a terminal: {@code NAME (TYPE[, required])}, an enum's first choices, the
   * first ten fields. Names are checked at load; types and choices are cut, so a hostile form stays one short line.
   */
  public String fieldsLine() {
    List<String> parts = new ArrayList<>();
    for (Map.Entry<String, Map<String, Object>> e : fields.entrySet()) {
      if (parts.size() == 10) {
        parts.add("and " + (fields.size() - 10) + " more");
        break;
      }
      Map<String, Object> f = e.getValue();
      String type;
      if (f.get("enum") instanceof List<?> choices) {
        List<String> shown = new ArrayList<>();
        for (Object c : choices.subList(0, Math.min(5, choices.size()))) {
          String t = printable(String.valueOf(c));
          shown.add(t.length() > 20 ? t.substring(0, 20) + "…" : t);
        }
        type = "one of " + String.join("|", shown) + (choices.size() > 5 ? "|…" : "");
      } else {
        type = String.valueOf(f.get("type"));
      }
      parts.add(e.getKey() + " (" + type + (required.contains(e.getKey()) ? ", required" : "") + ")");
    }
    return String.join(", ", parts);
  }

  /**
   * Why {@code values} does not answer the form, in one line; null when it does. Missing values, unknown fields,
   * oversized or deep answers and schema mismatches are all refused.
   */
  public String refusal(Map<String, Object> values) {
    if (values == null) {
      return "values are required: a JSON object with " + (required.isEmpty() ? "any of the fields "
          + list(fields.keySet()) : "the required fields " + list(required));
    }
    if (depth(values, 0) > MAX_VALUES_DEPTH) {
      return "the values nest deeper than " + MAX_VALUES_DEPTH + " levels";
    }
    if (Json.compact(values).getBytes(StandardCharsets.UTF_8).length > MAX_VALUES_BYTES) {
      return "the values are larger than " + MAX_VALUES_BYTES + " bytes";
    }
    for (String k : values.keySet()) {
      if (!fields.containsKey(k)) {
        return "'" + printable(k) + "' is not a field of the form (its fields: " + list(fields.keySet()) + ")";
      }
    }
    List<String> problems = compiled.validate(values);
    return problems.isEmpty() ? null : summary(problems);
  }

  /**
   * {@code raw} read as field {@code name}'s type: integers and numbers as numbers, booleans as true/false, an enum
   * choice as the choice whose text it is; text otherwise. IllegalArgumentException for an unknown field or text
   * that is not of the field's type.
   */
  public Object typed(String name, String raw) {
    Map<String, Object> f = fields.get(name);
    if (f == null) {
      throw new IllegalArgumentException("'" + printable(name) + "' is not a field of the form (its fields: "
          + list(fields.keySet()) + ")");
    }
    if (f.get("enum") instanceof List<?> choices) {
      for (Object c : choices) {
        if (String.valueOf(c).equals(raw)) {
          return c;
        }
      }
      return raw;
    }
    String type = String.valueOf(f.get("type"));
    try {
      return switch (type) {
        case "integer" -> new BigDecimal(raw.trim()).toBigIntegerExact().longValueExact();
        case "number" -> {
          BigDecimal d = new BigDecimal(raw.trim());
          if (d.stripTrailingZeros().scale() <= 0 && d.abs().compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) < 0) {
            yield d.longValue();
          }
          double x = d.doubleValue();
          if (Double.isInfinite(x)) {
            throw new IllegalArgumentException("out of range");
          }
          yield x;
        }
        case "boolean" -> switch (raw.trim().toLowerCase(Locale.ROOT)) {
          case "true" -> true;
          case "false" -> false;
          default -> throw new IllegalArgumentException("not true or false");
        };
        default -> raw;
      };
    } catch (ArithmeticException | IllegalArgumentException e) {
      throw new IllegalArgumentException("field '" + name + "' is " + ("integer".equals(type) ? "an " : "a ")
          + type + ", not '" + printable(raw) + "'");
    }
  }

  private static int depth(Object v, int d) {
    if (d > MAX_VALUES_DEPTH) {
      return d;
    }
    int max = d;
    if (v instanceof Map<?, ?> m) {
      for (Object x : m.values()) {
        max = Math.max(max, depth(x, d + 1));
      }
    } else if (v instanceof Collection<?> c) {
      for (Object x : c) {
        max = Math.max(max, depth(x, d + 1));
      }
    }
    return max;
  }

  private static String summary(List<String> problems) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < Math.min(MAX_PROBLEMS, problems.size()); i++) {
      if (i > 0) {
        sb.append("; ");
      }
      String p = printable(problems.get(i));
      sb.append(p.length() > MAX_PROBLEM_CHARS ? p.substring(0, MAX_PROBLEM_CHARS) + "…" : p);
    }
    if (problems.size() > MAX_PROBLEMS) {
      sb.append(" (and ").append(problems.size() - MAX_PROBLEMS).append(" more)");
    }
    return sb.toString();
  }

  private static String list(Collection<String> names) {
    List<String> all = new ArrayList<>(names);
    return all.size() <= 10 ? String.join(", ", all)
        : String.join(", ", all.subList(0, 10)) + " and " + (all.size() - 10) + " more";
  }

  private static List<String> sorted(Set<String> s) {
    List<String> l = new ArrayList<>(s);
    Collections.sort(l);
    return l;
  }

  /** One line, bounded: control characters become spaces, long text is cut. */
  static String printable(String s) {
    String t = s.length() > 80 ? s.substring(0, 80) + "…" : s;
    StringBuilder sb = new StringBuilder(t.length());
    t.codePoints().forEach(c -> sb.appendCodePoint(Character.isISOControl(c)
        || Character.getType(c) == Character.FORMAT || c == 0x2028 || c == 0x2029 ? ' ' : c));
    return sb.toString();
  }

  private static String kindOf(Object v) {
    return v == null ? "nothing" : v instanceof Map ? "a mapping" : v instanceof List ? "a list"
        : v instanceof String ? "text" : v instanceof Boolean ? "a boolean" : v instanceof Number ? "a number"
        : "a value";
  }
}
