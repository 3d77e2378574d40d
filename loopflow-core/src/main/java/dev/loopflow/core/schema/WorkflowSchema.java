package dev.loopflow.core.schema;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.expr.TemplateScope;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The JSON Schema (draft 2020-12) of the YAML workflow format, generated from the loader's own field tables and
 * the installed node handlers' descriptions ({@code NodeHandler.spec()}), so it describes exactly what the loader
 * accepts: the top-level sections, every node kind with its fields, the forms a node may take ({@code type:},
 * {@code uses:} + {@code with:}, and the shorthand keys {@code prompt:}, {@code bash:}, {@code run:},
 * {@code loop_group:}, ...), edges, pipelines and restart policies.
 *
 * <p>What the schema cannot say, the loader still checks when the file loads: references between nodes, templates'
 * syntax and names, cycles, loop pairing, prices under a {@code max_usd} budget. A file the loader accepts is valid
 * against the schema; the schema is stricter in one respect: a field written with an empty value ({@code field: ~})
 * is refused by the schema where the loader reads it as absent.
 */
public final class WorkflowSchema {
  /** The JSON Schema dialect the schema is written in. */
  public static final String DIALECT = "https://json-schema.org/draft/2020-12/schema";

  private final Vocabulary vocabulary;
  private final Map<String, NodeKindSpec> kinds;
  private final Map<String, Set<String>> resultFields;

  /**
   * The schema of the format {@code vocabulary} describes (the loader's: {@code Loopflow#schema()}), with the node
   * kinds {@code kinds} besides the loader's own, whose results have {@code resultFields} (kind to field names; a
   * kind with no entry leaves its fields unchecked). What a node handler declares: its
   * {@code spec()} and its {@code resultFields()}.
   */
  public WorkflowSchema(Vocabulary vocabulary, Collection<NodeKindSpec> kinds,
      Map<String, Set<String>> resultFields) {
    this.vocabulary = Objects.requireNonNull(vocabulary, "vocabulary");
    Map<String, NodeKindSpec> byKind = new LinkedHashMap<>();
    kinds.forEach(k -> byKind.put(k.kind(), k));
    this.kinds = Collections.unmodifiableMap(byKind);
    this.resultFields = Map.copyOf(resultFields);
  }

  /** The tables this schema describes. */
  public Vocabulary vocabulary() {
    return vocabulary;
  }

  /** The schema for the built-in kinds and the handlers' kinds. */
  public Map<String, Object> json() {
    List<NodeKindSpec> kinds = nodeKinds();
    Map<String, NodeKindSpec> byKind = new LinkedHashMap<>();
    kinds.forEach(k -> byKind.put(k.kind(), k));

    Map<String, Object> root = new LinkedHashMap<>();
    root.put("$schema", DIALECT);
    root.put("title", "loopflow workflow");
    root.put("description", "A loopflow workflow file: its inputs, settings, nodes and edges, or an iterative "
        + "pipeline. Generated from the loader's own field tables.");
    root.put("type", "object");
    Map<String, Map<String, Object>> overrides = new LinkedHashMap<>();
    NodeKindSpec stage = byKind.get(vocabulary.stageKind());
    if (stage != null) {
      overrides.put("agents", agents(stage));
    }
    root.put("properties", SchemaWriter.properties(topLevelFields(), overrides));
    root.put("additionalProperties", false);
    root.put("anyOf", vocabulary.topLevelOneRequired().stream().map(f -> SchemaWriter.map("required", List.of(f)))
        .toList());
    root.put("allOf", List.of(SchemaWriter.map(
        "if", SchemaWriter.map("required", List.of("workflow_pattern")),
        "then", SchemaWriter.map("not", anyRequired(vocabulary.notWithPipeline())),
        "else", SchemaWriter.map("not", anyRequired(vocabulary.onlyWithPipeline())))));

    Map<String, Object> defs = new LinkedHashMap<>();
    defs.put(SchemaWriter.NODE, node(byKind));
    for (NodeKindSpec k : kinds) {
      List<FieldSpec> common = vocabulary.commonNodeFields(k.kind());
      defs.put(def(k.kind(), null), SchemaWriter.kind(common, k, null, null));
      defs.put(def(k.kind(), vocabulary.typedFieldsKey()), SchemaWriter.kind(common, k, vocabulary.typedFieldsKey(),
          SchemaWriter.map("enum", typeNames(k.kind()))));
    }
    vocabulary.actions().forEach((action, kind) -> {
      if (byKind.containsKey(kind)) {
        defs.put(def(kind, vocabulary.actionFieldsKey()), SchemaWriter.kind(vocabulary.commonNodeFields(kind),
            byKind.get(kind), vocabulary.actionFieldsKey(), null));
      }
    });
    vocabulary.shorthands().forEach((key, kind) -> {
      if (byKind.containsKey(kind) && vocabulary.fieldsShorthands().contains(key)) {
        defs.put(def(kind, key), SchemaWriter.kind(vocabulary.commonNodeFields(kind), byKind.get(kind), key, null));
      }
    });
    for (FieldSpec f : commonNodeFields()) {
      defs.put(SchemaWriter.commonDef(f), SchemaWriter.field(f));
    }
    for (NodeKindSpec k : kinds) {
      for (FieldSpec f : k.fields()) {
        defs.put(SchemaWriter.ownDef(k, f), SchemaWriter.field(f));
      }
    }
    defs.putAll(SchemaWriter.sharedDefs(vocabulary));
    root.put("$defs", defs);
    return root;
  }

  /** {@link #json()} as text: indented by two spaces, ending with a newline. */
  public String text() {
    // One field a line, arrays on the line of their field, "\n" on every platform: the checked-in copy is compared
    // byte for byte.
    DefaultPrettyPrinter printer = new DefaultPrettyPrinter().withObjectIndenter(new DefaultIndenter("  ", "\n"));
    try {
      return Json.mapper().writer(printer).writeValueAsString(json()) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("the workflow schema cannot be written as JSON", e);
    }
  }

  /** The top-level fields of a workflow file. */
  public List<FieldSpec> topLevelFields() {
    return vocabulary.topLevel();
  }

  /** The fields every node may have, whatever its kind. */
  public List<FieldSpec> commonNodeFields() {
    return vocabulary.commonNodeFields();
  }

  /** The fields every node of {@code kind} may have (a loop takes no {@code retry}: it is never run again whole). */
  public List<FieldSpec> commonNodeFields(String kind) {
    return vocabulary.commonNodeFields(kind);
  }

  /** Every node kind: the loader's own (control nodes, loops, markers) and the handlers', sorted by kind. */
  public List<NodeKindSpec> nodeKinds() {
    Map<String, NodeKindSpec> out = new TreeMap<>();
    for (NodeKindSpec k : vocabulary.builtInKinds()) {
      out.put(k.kind(), k);
    }
    out.putAll(kinds);
    return List.copyOf(out.values());
  }

  /**
   * The fields a template can read from a node of {@code kind}'s result, as loading checks them: the fields every
   * result has ({@code status}, {@code output}, {@code error}) and the kind's own, sorted. Null when the kind (a
   * handler that declares nothing, or an unknown kind) leaves its fields unchecked.
   */
  public SortedSet<String> resultFields(String kind) {
    Set<String> declared = kinds.containsKey(kind) ? resultFields.get(kind)
        : TemplateScope.CONTROL_RESULT_FIELDS.get(kind);
    if (declared == null) {
      return null;
    }
    SortedSet<String> all = new TreeSet<>(
        TemplateScope.COMMON_RESULT_FIELDS);
    all.addAll(declared);
    return Collections.unmodifiableSortedSet(all);
  }

  /** The fields of the {@code loop} variable a template inside a loop body can read, sorted. */
  public static SortedSet<String> loopVariableFields() {
    return Collections.unmodifiableSortedSet(new TreeSet<>(
        TemplateScope.LOOP_VARIABLE_FIELDS));
  }

  /** The fields of the {@code run} variable, sorted. */
  public static SortedSet<String> runVariableFields() {
    return Collections.unmodifiableSortedSet(new TreeSet<>(
        TemplateScope.RUN_FIELDS));
  }

  /** A node id: a match of this regular expression (Java and JavaScript read it alike) that is not reserved. */
  public String nodeIdPattern() {
    return vocabulary.idPattern();
  }

  /** The ids no node may have. */
  public SortedSet<String> reservedNodeIds() {
    return Collections.unmodifiableSortedSet(new TreeSet<>(vocabulary.reservedIds()));
  }

  /** What a {@link FieldSpec.Type#DURATION} written as text must match (a bare number is seconds). */
  public static String durationPattern() {
    return SchemaWriter.durationPattern();
  }

  /** Other names {@code type:} accepts, and the kind each stands for ({@code bash} is {@code shell}). */
  public Map<String, String> typeAliases() {
    return new TreeMap<>(vocabulary.typeAliases());
  }

  /** Shorthand keys and the kind each implies ({@code prompt:} is an llm node), in the order the loader tries them. */
  public Map<String, String> shorthands() {
    return Collections.unmodifiableMap(new LinkedHashMap<>(vocabulary.shorthands()));
  }

  /** The name of a kind's form: {@code kind:shell}, or {@code kind:shell:input} with its fields under a key. */
  private static String def(String kind, String holder) {
    return "kind:" + kind + (holder == null ? "" : ":" + holder);
  }

  /** The values {@code type:} takes for {@code kind}: its name and its aliases. */
  private List<String> typeNames(String kind) {
    List<String> names = new ArrayList<>(List.of(kind));
    vocabulary.typeAliases().entrySet().stream().filter(e -> e.getValue().equals(kind)).map(Map.Entry::getKey)
        .sorted().forEach(names::add);
    return names;
  }

  /**
   * A node: its kind comes from {@code type:}, else from {@code uses:}, else from the first shorthand key present
   * (in the loader's order); each form is checked against that kind's fields.
   */
  private Map<String, Object> node(Map<String, NodeKindSpec> byKind) {
    SortedSet<String> types = new TreeSet<>();
    List<Object> dispatch = new ArrayList<>();
    List<Object> anyForm = new ArrayList<>(List.of(SchemaWriter.map("required", List.of("type"))));
    for (String kind : byKind.keySet()) {
      for (String t : typeNames(kind)) {
        types.add(t);
        dispatch.add(SchemaWriter.map("if", SchemaWriter.map("properties", SchemaWriter.map("type",
            SchemaWriter.map("const", t)), "required", List.of("type")),
            "then", SchemaWriter.ref(def(kind, vocabulary.typedFieldsKey()))));
      }
    }
    List<String> earlier = new ArrayList<>(List.of("type"));
    List<String> actions = new ArrayList<>();
    vocabulary.actions().forEach((action, kind) -> {
      if (byKind.containsKey(kind)) {
        actions.add(action);
        dispatch.add(SchemaWriter.map("if", SchemaWriter.map("properties", SchemaWriter.map("uses",
            SchemaWriter.map("const", action)), "required", List.of("uses"), "not", anyRequired(List.of("type"))),
            "then", SchemaWriter.ref(def(kind, vocabulary.actionFieldsKey()))));
      }
    });
    anyForm.add(SchemaWriter.map("required", List.of("uses")));
    earlier.add("uses");
    for (Map.Entry<String, String> sh : vocabulary.shorthands().entrySet()) {
      if (!byKind.containsKey(sh.getValue())) {
        continue; // a shorthand for a kind whose module is not installed: the loader says so
      }
      String key = sh.getKey();
      String form = vocabulary.fieldsShorthands().contains(key) ? def(sh.getValue(), key) : def(sh.getValue(), null);
      dispatch.add(SchemaWriter.map("if", SchemaWriter.map("required", List.of(key), "not",
          anyRequired(List.copyOf(earlier))), "then", SchemaWriter.ref(form)));
      anyForm.add(SchemaWriter.map("required", List.of(key)));
      earlier.add(key);
    }
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("description", "A node. Its kind comes from 'type', else from 'uses', else from a shorthand key: "
        + String.join(", ", vocabulary.shorthands().keySet()) + " (the first present wins).");
    s.put("type", "object");
    s.put("properties", SchemaWriter.map("type", SchemaWriter.map("enum", List.copyOf(types)), "uses",
        SchemaWriter.map("enum", actions)));
    s.put("anyOf", anyForm);
    s.put("allOf", dispatch);
    return s;
  }

  /** {@code agents:} stage agent_id to the settings of its agent node: the node's fields but its id and type. */
  private Map<String, Object> agents(NodeKindSpec stage) {
    List<FieldSpec> fields = new ArrayList<>();
    for (FieldSpec f : commonNodeFields()) {
      if (f.names().stream().noneMatch(vocabulary.stageFixedFields()::contains)) {
        fields.add(f);
      }
    }
    fields.addAll(stage.fields());
    Map<String, Object> settings = SchemaWriter.object(fields, Map.of());
    settings.remove("allOf"); // the stage gives the agent its prompt
    settings.put("description", "The settings of one stage's agent node.");
    FieldSpec agents = FieldSpec.find(topLevelFields(), "agents");
    return SchemaWriter.map("description", agents.description(), "type", "object", "additionalProperties",
        settings);
  }

  private static Map<String, Object> anyRequired(List<String> names) {
    return SchemaWriter.map("anyOf", names.stream().map(n -> SchemaWriter.map("required", List.of(n))).toList());
  }
}
