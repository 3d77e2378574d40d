package dev.loopflow.core.internal.load;

import dev.loopflow.core.error.Location;
import dev.loopflow.core.error.Names;
import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.yaml.YNode;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which kind a node is — from {@code type}, {@code uses} or a shorthand key — and which fields that kind takes.
 * Work kinds come from the installed handlers; control and loop kinds are the loader's own.
 */
final class NodeKinds {
  private final LoadState st;
  private final Problems problems;

  /** A retry count: {@code retry: N} retries N times, a second apart. */
  static final FieldSpec RETRY_COUNT = FieldSpec.integer("retry", 0, 100, "How many times to retry the node "
      + "after it fails, a second apart.");
  /** {@code retry: {max_attempts, delay}}. */
  static final List<FieldSpec> RETRY_FIELDS = List.of(
      FieldSpec.integer("max_attempts", 1, 100, "How many times the node runs at most, the first included "
          + "(default 2)."),
      FieldSpec.duration("delay", "How long to wait between attempts (default 1s)."));
  /** Under {@code type:}, a mapping here holds the node's fields (they are lifted onto the node). */
  static final String TYPED_FIELDS = "input";
  /** Under {@code uses:}, the action's fields. */
  static final String ACTION_FIELDS = "with";
  /** The shorthand keys whose mapping value holds the node's fields. */
  static final Set<String> FIELDS_SHORTHANDS = Set.of("loop_group");
  /** {@code uses:} actions and the kind each stands for (their fields go under {@code with:}). */
  static final Map<String, String> ACTIONS = Map.of("llm.call", "llm");

  /** Fields every node may have, whatever its kind. */
  static final List<FieldSpec> COMMON = List.of(
      FieldSpec.nodeId("id", "The node's id, unique in its list: letters, digits, '_' and '-', starting with a "
          + "letter or '_'.").asRequired().alias("name"),
      FieldSpec.string("type", "The node's kind (llm, shell, script, transform, router, loop_group, ...). "
          + "Without it, a shorthand key says the kind: prompt (llm), bash or command (shell), run (script), "
          + "loop_group, approval, cancel."),
      FieldSpec.nodeIds("depends_on", "The nodes (of the same list) that must finish before this one starts."),
      FieldSpec.condition("when", "Run the node only when this condition holds; otherwise it is skipped."),
      FieldSpec.string("output", "Store the node's result into state under this key (on a loop_group: the body "
          + "node whose output is a pass's output)."),
      FieldSpec.bool("allow_failure", "A failure completes the node (status failed) instead of failing the run."),
      FieldSpec.oneOf("retry", "Retry the node when it fails: a number of retries, or {max_attempts, delay}. "
          + "Not allowed on loop nodes.", RETRY_COUNT,
          FieldSpec.section("retry", RETRY_FIELDS, "How often and how far apart to try.")),
      FieldSpec.duration("timeout", "How long the node may run (for an approval: how long the person has)."),
      FieldSpec.string("description", "Free text about the node."),
      FieldSpec.string("label", "A label to show for the node."),
      FieldSpec.choice("uses", ACTIONS.keySet(), "An action to run instead of a type, with its fields under "
          + "'with' (uses: llm.call is an llm node)."),
      FieldSpec.map("with", null, "The fields of the 'uses' action."));
  /** A loop is never run again as a whole, so loop nodes take every common field but this one. */
  static final String RETRY = "retry";

  /** The common fields a node of {@code kind} takes. */
  static List<FieldSpec> commonFor(String kind) {
    return LoopNodes.KINDS.contains(kind) ? COMMON.stream().filter(f -> !f.name().equals(RETRY)).toList() : COMMON;
  }

  /** The names of {@link #COMMON}: what every node's keys are checked against first. */
  static final Set<String> COMMON_FIELDS = FieldSpec.names(COMMON);
  /** Node kinds the language defines but this version does not run yet. */
  static final Set<String> NOT_YET = Set.of();
  /**
   * Kinds that an optional module provides, and that module: without it on the class path a node of such a kind
   * is reported as needing the module, not as unknown.
   */
  static final Map<String, String> OPTIONAL_KINDS = Map.of("llm", "loopflow-llm", "agent", "loopflow-llm");
  static final Map<String, String> ALIASES = Map.of("llm.call", "llm", "claude.agent", "llm", "bash", "shell",
      "lua", "script", "python", "script", "code", "script");
  /** Shorthand keys and the kind each implies, in the order they are tried. */
  static final Map<String, String> SHORTHANDS = orderedShorthands();

  NodeKinds(LoadState st) {
    this.st = st;
    this.problems = st.problems;
  }

  private static Map<String, String> orderedShorthands() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("prompt", "llm");
    m.put("bash", "shell");
    m.put("run", "script");
    m.put("loop_group", "loop_group");
    m.put("approval", "approval");
    m.put("cancel", "cancel");
    m.put("command", "shell");
    return m;
  }

  /** The kinds the loader interprets itself (control and loop kinds, and the loop markers). */
  static final Map<String, NodeKindSpec> BUILT_IN_KINDS = builtInKinds();

  private static Map<String, NodeKindSpec> builtInKinds() {
    Map<String, NodeKindSpec> m = new LinkedHashMap<>(ControlNodes.KINDS);
    m.putAll(LoopNodes.KIND_SPECS);
    return Collections.unmodifiableMap(m);
  }

  /** The fields of each kind the loader interprets itself (control and loop kinds). */
  static final Map<String, Set<String>> BUILT_IN_FIELDS = builtInFields();

  private static Map<String, Set<String>> builtInFields() {
    Map<String, Set<String>> m = new HashMap<>();
    BUILT_IN_KINDS.forEach((kind, spec) -> m.put(kind, spec.fieldNames()));
    return Map.copyOf(m);
  }

  /** Works out the node kind from {@code type}, {@code uses} or a shorthand key, normalizing aliased fields. */
  String kind(YNode.YMap m, String path, Map<String, YNode.YMap.Entry> fields) {
    YNode typeNode = m.get("type");
    if (typeNode != null) {
      String type = LoaderSupport.string(typeNode, "type", path + ".type", problems);
      if (type == null) {
        return null;
      }
      if (type.equals("claude.agent")) {
        fields.putIfAbsent("provider", new YNode.YMap.Entry("provider", typeNode.location(),
            new YNode.YScalar(typeNode.location(), "anthropic", false)));
      }
      flatten(m, TYPED_FIELDS, fields, path, type);
      String kind = ALIASES.getOrDefault(type, type);
      if (type.equals("lua") || type.equals("python")) {
        fields.putIfAbsent("language", new YNode.YMap.Entry("language", typeNode.location(),
            new YNode.YScalar(typeNode.location(), type, false)));
      }
      return kind;
    }
    YNode uses = m.get("uses");
    if (uses != null) {
      String action = LoaderSupport.string(uses, "uses", path + ".uses", problems);
      if (action == null) {
        return null;
      }
      flatten(m, ACTION_FIELDS, fields, path, action);
      if (ACTIONS.containsKey(action)) {
        return ACTIONS.get(action);
      }
      problems.add(uses.location(), path + ".uses", "unknown action '" + action + "'"
          + Names.suggest(action, ACTIONS.keySet()));
      return null;
    }
    for (Map.Entry<String, String> sh : SHORTHANDS.entrySet()) {
      if (m.has(sh.getKey())) {
        if (FIELDS_SHORTHANDS.contains(sh.getKey()) && m.get(sh.getKey()) instanceof YNode.YMap) {
          flatten(m, sh.getKey(), fields, path, sh.getValue());
        }
        return sh.getValue();
      }
    }
    problems.add(m.location(), path, "missing 'type' (or a shorthand such as prompt:, bash:, run:)");
    return null;
  }

  /**
   * {@code with:} (under {@code uses:}) and a mapping {@code input:} (under {@code type:}) hold the node's fields
   * one level down: they are lifted onto the node, and a field given both there and on the node is a problem.
   */
  void flatten(YNode.YMap m, String key, Map<String, YNode.YMap.Entry> fields, String path, String kind) {
    YNode inner = m.get(key);
    if (inner == null) {
      return;
    }
    if (key.equals(TYPED_FIELDS) && !(inner instanceof YNode.YMap)) {
      return;
    }
    if (!(inner instanceof YNode.YMap im)) {
      problems.add(inner.location(), path + "." + key, "expected a mapping, found " + inner.describe());
      fields.remove(key);
      return;
    }
    fields.remove(key);
    for (YNode.YMap.Entry e : im.entries().values()) {
      if (fields.containsKey(e.key())) {
        problems.add(e.keyLocation(), path + "." + key + "." + e.key(), "'" + e.key()
            + "' is given both here and on the node");
      } else {
        fields.put(e.key(), e);
      }
    }
  }

  /** Reports a kind the language defines but this version does not run; true if it was one. */
  boolean reportNotYet(YNode.YMap m, String kind, String path) {
    if (!NOT_YET.contains(kind)) {
      return false;
    }
    Location at = m.get("type") != null ? m.get("type").location()
        : m.has(kind) ? m.entries().get(kind).keyLocation() : m.location();
    problems.add(at, path, "node kind '" + kind + "' is not supported yet");
    return true;
  }

  /**
   * The fields a node of {@code kind} may have, or null after reporting the kind as unknown (or as provided by a
   * module that is not installed).
   */
  Set<String> allowedFields(YNode.YMap m, String kind, NodeHandler handler, String path) {
    Set<String> allowed = new LinkedHashSet<>(COMMON_FIELDS);
    if (handler != null) {
      allowed.addAll(handler.fields());
      return allowed;
    }
    if (BUILT_IN_FIELDS.containsKey(kind)) {
      allowed.addAll(BUILT_IN_FIELDS.get(kind));
      return allowed;
    }
    Set<String> kinds = new TreeSet<>(st.handlers.keySet());
    kinds.addAll(BUILT_IN_FIELDS.keySet());
    kinds.addAll(NOT_YET);
    Location at = m.get("type") != null ? m.get("type").location()
        : m.get("uses") != null ? m.get("uses").location()
        : m.has("prompt") ? m.entries().get("prompt").keyLocation() : m.location();
    String module = OPTIONAL_KINDS.get(kind);
    if (module != null) {
      problems.add(at, path, "node kind '" + kind + "' needs the " + module + " module, which is not on the class "
          + "path");
      return null;
    }
    problems.add(at, path + ".type", "unknown node kind '" + kind + "'" + Names.suggest(kind, kinds));
    return null;
  }

  /** Reports each field of the node that its kind does not take. */
  void checkFields(Map<String, YNode.YMap.Entry> fields, Set<String> allowed, String kind, String path) {
    for (YNode.YMap.Entry e : fields.values()) {
      if (!allowed.contains(e.key())) {
        problems.add(e.keyLocation(), path + "." + e.key(), "unknown field '" + e.key() + "' for a "
            + kind + " node" + Names.suggest(e.key(), allowed));
      }
    }
  }
}
