package dev.loopflow.core.schema;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One field of a workflow section or node kind, as the loader reads it.
 *
 * @param name the field's name as written in YAML (for the items of a list or the values of a map, the owning
 *     field's)
 * @param type what the value is
 * @param description what the field means, in a sentence or two
 * @param required whether the field (or one of its aliases) must be given
 * @param aliases other names the loader accepts for the same field (giving two of them is an error)
 * @param values the allowed values of a {@link Type#CHOICE}; empty otherwise
 * @param minimum the least value of an {@link Type#INTEGER} or {@link Type#NUMBER}; null when unbounded
 * @param maximum the greatest value; null when unbounded
 * @param fields the fields of a {@link Type#SECTION}; empty otherwise
 * @param items what each item of a {@link Type#LIST} or each value of a {@link Type#MAP} is; null when anything
 * @param alternatives the forms a {@link Type#ONE_OF} value may take; empty otherwise
 */
public record FieldSpec(String name, Type type, String description, boolean required, List<String> aliases,
    List<String> values, Number minimum, Number maximum, List<FieldSpec> fields, FieldSpec items,
    List<FieldSpec> alternatives) {

  /** What a field's value is. */
  public enum Type {
    /** Text (a number is read as its text). */
    STRING,
    /** A template: text with {@code {{ }}} expressions, rendered when the node runs. */
    TEMPLATE,
    /** A condition: a Jinja expression, a boolean, or the structured form ({@code not}, {@code and}, ...). */
    CONDITION,
    /** A whole number within {@code minimum..maximum}. */
    INTEGER,
    /** A number within {@code minimum..maximum}. */
    NUMBER,
    BOOLEAN,
    /** A positive duration: {@code 30s}, {@code 5m}, {@code 1h30m}, {@code 500ms}, or a number of seconds. */
    DURATION,
    /** One of {@code values}. */
    CHOICE,
    /** A node id. */
    NODE_ID,
    /** One node id or a list of them. */
    NODE_IDS,
    /** A mapping with exactly the keys of {@code fields}. */
    SECTION,
    /** A mapping of any keys to values described by {@code items}. */
    MAP,
    /** A list of values described by {@code items}. */
    LIST,
    /** A value of one of the forms in {@code alternatives}. */
    ONE_OF,
    /** A list of nodes (a loop's nested body). */
    NODES,
    /** A JSON Schema, as a mapping (or as JSON text). */
    JSON_SCHEMA,
    /** Anything. */
    ANY
  }

  public FieldSpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    aliases = List.copyOf(aliases);
    values = List.copyOf(values);
    fields = List.copyOf(fields);
    alternatives = List.copyOf(alternatives);
  }

  private static FieldSpec of(String name, Type type, String description) {
    return new FieldSpec(name, type, description, false, List.of(), List.of(), null, null, List.of(), null,
        List.of());
  }

  public static FieldSpec string(String name, String description) {
    return of(name, Type.STRING, description);
  }

  public static FieldSpec template(String name, String description) {
    return of(name, Type.TEMPLATE, description);
  }

  public static FieldSpec condition(String name, String description) {
    return of(name, Type.CONDITION, description);
  }

  public static FieldSpec integer(String name, long minimum, long maximum, String description) {
    return new FieldSpec(name, Type.INTEGER, description, false, List.of(), List.of(), minimum, maximum, List.of(),
        null, List.of());
  }

  /** A number; {@code minimum} and {@code maximum} may be null (unbounded). */
  public static FieldSpec number(String name, Double minimum, Double maximum, String description) {
    return new FieldSpec(name, Type.NUMBER, description, false, List.of(), List.of(), minimum, maximum, List.of(),
        null, List.of());
  }

  public static FieldSpec bool(String name, String description) {
    return of(name, Type.BOOLEAN, description);
  }

  public static FieldSpec duration(String name, String description) {
    return of(name, Type.DURATION, description);
  }

  /** One of {@code values}, kept in the order given. */
  public static FieldSpec choice(String name, Collection<String> values, String description) {
    return new FieldSpec(name, Type.CHOICE, description, false, List.of(), List.copyOf(values), null, null,
        List.of(), null, List.of());
  }

  public static FieldSpec nodeId(String name, String description) {
    return of(name, Type.NODE_ID, description);
  }

  public static FieldSpec nodeIds(String name, String description) {
    return of(name, Type.NODE_IDS, description);
  }

  public static FieldSpec section(String name, List<FieldSpec> fields, String description) {
    return new FieldSpec(name, Type.SECTION, description, false, List.of(), List.of(), null, null, fields, null,
        List.of());
  }

  /** A mapping of any keys; {@code values} describes each value (null: anything). */
  public static FieldSpec map(String name, FieldSpec values, String description) {
    return new FieldSpec(name, Type.MAP, description, false, List.of(), List.of(), null, null, List.of(), values,
        List.of());
  }

  /** A list; {@code items} describes each item (null: anything). */
  public static FieldSpec list(String name, FieldSpec items, String description) {
    return new FieldSpec(name, Type.LIST, description, false, List.of(), List.of(), null, null, List.of(), items,
        List.of());
  }

  public static FieldSpec oneOf(String name, String description, FieldSpec... alternatives) {
    return new FieldSpec(name, Type.ONE_OF, description, false, List.of(), List.of(), null, null, List.of(), null,
        List.of(alternatives));
  }

  public static FieldSpec nodes(String name, String description) {
    return of(name, Type.NODES, description);
  }

  public static FieldSpec jsonSchema(String name, String description) {
    return of(name, Type.JSON_SCHEMA, description);
  }

  public static FieldSpec any(String name, String description) {
    return of(name, Type.ANY, description);
  }

  /** This field, required. */
  public FieldSpec asRequired() {
    return new FieldSpec(name, type, description, true, aliases, values, minimum, maximum, fields, items,
        alternatives);
  }

  /** This field, also accepted under {@code more} names. */
  public FieldSpec alias(String... more) {
    List<String> all = new ArrayList<>(aliases);
    all.addAll(List.of(more));
    return new FieldSpec(name, type, description, required, all, values, minimum, maximum, fields, items,
        alternatives);
  }

  /** The least value as an int (clamped to the int range; Integer.MIN_VALUE when unbounded). */
  public int minimumInt() {
    return minimum == null ? Integer.MIN_VALUE : (int) Math.max(Integer.MIN_VALUE, minimum.longValue());
  }

  /** The greatest value as an int (clamped to the int range; Integer.MAX_VALUE when unbounded). */
  public int maximumInt() {
    return maximum == null ? Integer.MAX_VALUE : (int) Math.min(Integer.MAX_VALUE, maximum.longValue());
  }

  /** The field's name and its aliases. */
  public List<String> names() {
    List<String> all = new ArrayList<>(List.of(name));
    all.addAll(aliases);
    return all;
  }

  /** Every name the fields accept, aliases included: what the loader checks a mapping's keys against. */
  public static Set<String> names(Collection<FieldSpec> fields) {
    Set<String> out = new LinkedHashSet<>();
    for (FieldSpec f : fields) {
      out.addAll(f.names());
    }
    return Collections.unmodifiableSet(out);
  }

  /** The field named {@code name} (or aliased so) among {@code fields}; null when none is. */
  public static FieldSpec find(Collection<FieldSpec> fields, String name) {
    for (FieldSpec f : fields) {
      if (f.names().contains(name)) {
        return f;
      }
    }
    return null;
  }
}
