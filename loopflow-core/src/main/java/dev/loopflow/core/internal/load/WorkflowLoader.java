package dev.loopflow.core.internal.load;

import dev.loopflow.core.WorkflowInvalidException;
import dev.loopflow.core.expr.Condition;
import dev.loopflow.core.expr.Template;
import dev.loopflow.core.internal.util.Names;
import dev.loopflow.core.internal.yaml.YNode;
import dev.loopflow.core.internal.yaml.YamlReader;
import dev.loopflow.core.model.Budget;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.InputSpec;
import dev.loopflow.core.model.Limits;
import dev.loopflow.core.model.Location;
import dev.loopflow.core.model.LoopConfig;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeProgram;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Loads a workflow file. The work happens in passes over the YAML tree — top-level sections, nodes (identity,
 * kind, shorthand, handler compilation), edges, then whole-graph checks (references, cycles) — and every pass
 * keeps going after a problem, so one run of the loader reports everything wrong with a file.
 */
public final class WorkflowLoader {
  static final Set<String> TOP_LEVEL = Set.of("name", "description", "flow", "input", "defaults", "budget", "limits",
      "nodes", "edges", "output", "mock", "version", "state", "prices");
  static final Set<String> COMMON_NODE_FIELDS = Set.of("id", "name", "type", "depends_on", "when", "output",
      "allow_failure", "retry", "timeout", "description", "label", "uses", "with");
  /** Node kinds the language defines but this version does not run yet. */
  static final Set<String> NOT_YET = Set.of("agent");
  /** Loop constructs, interpreted by the loop core. */
  static final Set<String> LOOP_KINDS = Set.of("loop", "while_loop", "loop_group", "iterator");
  static final Map<String, String> KIND_ALIASES = Map.of("llm.call", "llm", "claude.agent", "llm", "bash", "shell",
      "lua", "script", "python", "script", "code", "script");
  /** Shorthand keys and the kind each implies, in the order they are tried. */
  static final Map<String, String> SHORTHANDS = orderedShorthands();
  /** Ids a node cannot take: scope names, and names kept for constructs not supported yet. */
  static final Set<String> RESERVED_IDS = reservedIds();
  static final Set<String> INPUT_TYPES = Set.of("string", "number", "integer", "boolean", "object", "array");
  static final Map<String, Set<String>> CONTROL_FIELDS = Map.ofEntries(
      Map.entry("router", Set.of("routes", "value", "model", "instructions", "prompt")),
      Map.entry("cancel", Set.of("reason", "cancel")),
      Map.entry("approval", Set.of("message", "approval", "default", "on_reject")),
      Map.entry("input", Set.of("value")),
      Map.entry("output", Set.of("value")),
      Map.entry("exit", Set.<String>of()),
      Map.entry("aggregator", Set.<String>of()),
      Map.entry("loop", Set.of("input", "maxIterations", "max_iterations", "exitCondition", "exit_condition",
          "stabilityThreshold", "stability_threshold", "feedbackMode", "feedback_mode", "on_exhausted", "budget",
          "exit")),
      Map.entry("while_loop", Set.of("condition", "max_iterations", "maxIterations", "body", "on_exhausted", "budget")),
      Map.entry("loop_group", Set.of("nodes", "until", "until_command", "until_bash", "max_iterations", "maxIterations",
          "fresh_context", "interactive", "gate_message", "on_exhausted", "budget", "model", "provider")),
      Map.entry("iterator", Set.of("items", "concurrency", "continue_on_error", "aggregator", "budget")));

  private final Map<String, NodeHandler> handlers;
  /** Null when no LLM module is installed: then prices are checked for shape only. */
  private final dev.loopflow.core.spi.ModelPrices modelPrices;

  public WorkflowLoader(Map<String, NodeHandler> handlers) {
    this(handlers, Map.of());
  }

  /** {@code services}: the engine's services; a {@link dev.loopflow.core.spi.ModelPrices} among them is used. */
  public WorkflowLoader(Map<String, NodeHandler> handlers, Map<Class<?>, Object> services) {
    this.handlers = Map.copyOf(handlers);
    this.modelPrices = services.get(dev.loopflow.core.spi.ModelPrices.class) instanceof
        dev.loopflow.core.spi.ModelPrices p ? p : null;
  }

  private static Set<String> reservedIds() {
    Set<String> ids = new java.util.HashSet<>(TemplateScope.ROOTS);
    ids.addAll(Set.of("__start__", "__end__", "previous", "item"));
    return Set.copyOf(ids);
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

  /** Loads and validates; throws {@link WorkflowInvalidException} with every problem found. */
  public Workflow load(String text, String file) {
    Problems problems = new Problems();
    List<dev.loopflow.core.model.Problem> yamlProblems = new ArrayList<>();
    YNode root = YamlReader.read(text, file, yamlProblems);
    yamlProblems.forEach(p -> problems.add(p.location(), p.path(), p.message()));
    if (root == null) {
      throw new WorkflowInvalidException(problems.sorted());
    }
    return load(root, file, text, problems);
  }

  /** Loads from an already-built tree (the Java builder uses this with synthetic locations). */
  public Workflow load(YNode root, String file, String text) {
    return load(root, file, text, new Problems());
  }

  private Workflow load(YNode root, String file, String text, Problems problems) {
    if (!(root instanceof YNode.YMap top)) {
      problems.add(root.location(), "", "a workflow file must be a mapping with 'nodes', found " + root.describe());
      throw new WorkflowInvalidException(problems.sorted());
    }
    Workflow wf = new Pass(top, file, text, problems).run();
    if (!problems.isEmpty()) {
      throw new WorkflowInvalidException(problems.sorted());
    }
    return wf;
  }

  /** One load: the mutable state of a single pass over one file. */
  private final class Pass {
    final YNode.YMap top;
    final String file;
    final String text;
    final Problems problems;
    final List<TemplateRef> refs = new ArrayList<>();
    final Map<String, Location> nodeIds = new LinkedHashMap<>();
    /** The scope whose nodes are being loaded: the top level, or a loop body. */
    Scope scope;
    /** The top level's scope: workflow-level templates (output:, edges) are written there. */
    final Scope topScope = new Scope(null, null, null, "nodes", nodeIds);
    final Map<TemplateRef, Scope> refScopes = new java.util.IdentityHashMap<>();
    Duration defaultTimeout;
    /** Kinds of loop nodes that failed to load: their exit/aggregator is not also reported as unpaired. */
    final Set<String> invalidLoopKinds = new java.util.HashSet<>();
    final Map<String, Node.Router> routers = new HashMap<>();
    final Map<String, Node> compiled = new HashMap<>();
    Map<String, Object> defaults = Map.of();
    /** Top-level sections extensions read ({@code mock}, {@code prices}); filled before nodes are compiled. */
    final Map<String, Object> sections = new LinkedHashMap<>();
    /** Per node body: problems that hold if a max_usd budget applies to the node (see CostLimits). */
    final Map<Node.Body, List<dev.loopflow.core.model.Problem>> costProblems = new java.util.IdentityHashMap<>();

    Pass(YNode.YMap top, String file, String text, Problems problems) {
      this.top = top;
      this.file = file;
      this.text = text;
      this.problems = problems;
    }

    Workflow run() {
      for (YNode.YMap.Entry e : top.entries().values()) {
        if (!TOP_LEVEL.contains(e.key())) {
          String hint = switch (e.key()) {
            case "workflow_pattern", "agents", "restart_policy" -> " (iterative pipelines are not supported yet)";
            default -> Names.suggest(e.key(), TOP_LEVEL);
          };
          problems.add(e.keyLocation(), e.key(), "unknown field '" + e.key() + "'" + hint);
        }
      }
      String name = null;
      Map<String, InputSpec> inputs = new LinkedHashMap<>();
      YNode flow = top.get("flow");
      if (flow != null) {
        if (flow instanceof YNode.YMap fm) {
          for (YNode.YMap.Entry e : fm.entries().values()) {
            if (!Set.of("name", "input", "description").contains(e.key())) {
              problems.add(e.keyLocation(), "flow." + e.key(), "unknown field '" + e.key() + "'"
                  + Names.suggest(e.key(), Set.of("name", "input", "description")));
            }
          }
          if (fm.get("name") != null) {
            name = LoaderSupport.string(fm.get("name"), "name", "flow.name", problems);
          }
          if (fm.get("input") != null) {
            inputs.putAll(inputs(fm.get("input"), "flow.input"));
          }
        } else {
          problems.add(flow.location(), "flow", "expected a mapping with name and input, found " + flow.describe());
        }
      }
      if (top.get("name") != null) {
        name = LoaderSupport.string(top.get("name"), "name", "name", problems);
      }
      if (top.get("input") != null) {
        inputs.putAll(inputs(top.get("input"), "input"));
      }
      String description = top.get("description") == null ? null
          : LoaderSupport.string(top.get("description"), "description", "description", problems);
      defaults = defaults(top.get("defaults"));
      if (top.get("defaults") instanceof YNode.YMap dm && dm.get("timeout") != null) {
        defaultTimeout = LoaderSupport.duration(dm.get("timeout"), "timeout", "defaults.timeout", new Problems());
      }
      Budget budget = budget(top.get("budget"), "budget");
      Limits limits = limits(top.get("limits"));
      if (top.get("mock") != null) {
        sections.put("mock", top.get("mock").toPlain());
      }
      if (top.get("prices") != null) {
        sections.put("prices", Prices.section(top.get("prices"), modelPrices, problems));
      }
      List<Node> nodes = nodes(top.get("nodes"));
      List<Edge> edges = edges(top.get("edges"));
      Template output = null;
      YNode out = top.get("output");
      if (out != null) {
        String src = LoaderSupport.string(out, "output", "output", problems);
        if (src != null) {
          NodeConfigImpl cfg = new NodeConfigImpl("", "", out.location(), "", Map.of("output",
              new YNode.YMap.Entry("output", out.location(), out)), problems, refs, defaults, sections);
          output = cfg.template("output", src);
        }
      }
      if (name == null) {
        name = deriveName(file);
      }
      checkReferences(inputs.keySet(), edges);
      Graphs.check(nodes, edges, routers, problems, file);
      nodes = Graphs.pair(nodes, edges, problems, invalidLoopKinds);
      CostLimits.check(nodes, edges, budget, costProblems, problems);
      Map<String, dev.loopflow.core.model.StateMerge> merges = stateSection(top.get("state"));
      return dev.loopflow.core.internal.plan.ModelAccess.workflows().create(name, description, file, text, inputs, defaults, budget, limits, nodes, edges, output,
          sections, merges);
    }

    String deriveName(String f) {
      String base = f.replace('\\', '/');
      base = base.substring(base.lastIndexOf('/') + 1);
      int dot = base.indexOf('.');
      return dot > 0 ? base.substring(0, dot) : base;
    }

    Map<String, InputSpec> inputs(YNode n, String path) {
      Map<String, InputSpec> out = new LinkedHashMap<>();
      if (!(n instanceof YNode.YMap m)) {
        problems.add(n.location(), path, "expected a mapping of input name to type, found " + n.describe());
        return out;
      }
      for (YNode.YMap.Entry e : m.entries().values()) {
        String p = path + "." + e.key();
        YNode v = e.value();
        if (v instanceof YNode.YScalar s && s.value() instanceof String type) {
          if (!INPUT_TYPES.contains(type)) {
            problems.add(v.location(), p, "unknown input type '" + type + "'" + Names.suggest(type, INPUT_TYPES)
                + "; expected one of " + new TreeSet<>(INPUT_TYPES) + " or a JSON Schema");
            continue;
          }
          out.put(e.key(), new InputSpec(e.key(), type, null, false, null, null));
        } else if (v instanceof YNode.YMap schema) {
          @SuppressWarnings("unchecked")
          Map<String, Object> plain = (Map<String, Object>) schema.toPlain();
          Object type = plain.get("type");
          if (type != null && !(type instanceof String t && INPUT_TYPES.contains(t))) {
            problems.add(schema.get("type").location(), p + ".type", "unknown input type '" + type + "'"
                + (type instanceof String t ? Names.suggest(t, INPUT_TYPES) : "") + "; expected one of "
                + new TreeSet<>(INPUT_TYPES));
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

    Map<String, Object> defaults(YNode n) {
      if (n == null) {
        return Map.of();
      }
      if (!(n instanceof YNode.YMap m)) {
        problems.add(n.location(), "defaults", "expected a mapping, found " + n.describe());
        return Map.of();
      }
      Set<String> known = Set.of("model", "temperature", "max_tokens", "system", "timeout");
      for (YNode.YMap.Entry e : m.entries().values()) {
        if (!known.contains(e.key())) {
          problems.add(e.keyLocation(), "defaults." + e.key(), "unknown field '" + e.key() + "'"
              + Names.suggest(e.key(), known));
        }
      }
      if (m.get("model") != null) {
        LoaderSupport.string(m.get("model"), "model", "defaults.model", problems);
      }
      if (m.get("temperature") != null) {
        LoaderSupport.number(m.get("temperature"), "temperature", 0, "defaults.temperature", problems);
      }
      if (m.get("max_tokens") != null) {
        LoaderSupport.integer(m.get("max_tokens"), "max_tokens", 1, Integer.MAX_VALUE, "defaults.max_tokens", problems);
      }
      if (m.get("timeout") != null) {
        LoaderSupport.duration(m.get("timeout"), "timeout", "defaults.timeout", problems);
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> plain = (Map<String, Object>) m.toPlain();
      return plain;
    }

    Budget budget(YNode n, String path) {
      if (n == null) {
        return Budget.NONE;
      }
      if (!(n instanceof YNode.YMap m)) {
        problems.add(n.location(), path, "expected a mapping, found " + n.describe());
        return Budget.NONE;
      }
      Set<String> known = Set.of("max_usd", "max_tokens", "max_llm_calls");
      for (YNode.YMap.Entry e : m.entries().values()) {
        if (!known.contains(e.key())) {
          problems.add(e.keyLocation(), path + "." + e.key(), "unknown field '" + e.key() + "'"
              + Names.suggest(e.key(), known));
        }
      }
      Double usd = m.get("max_usd") == null ? null
          : LoaderSupport.number(m.get("max_usd"), "max_usd", 0, path + ".max_usd", problems);
      Long tokens = m.get("max_tokens") == null ? null
          : LoaderSupport.longValue(m.get("max_tokens"), "max_tokens", 0, path + ".max_tokens", problems);
      Integer calls = m.get("max_llm_calls") == null ? null
          : LoaderSupport.integer(m.get("max_llm_calls"), "max_llm_calls", 0, Integer.MAX_VALUE,
              path + ".max_llm_calls", problems);
      return new Budget(usd, tokens, calls);
    }

    /** {@code state: {key: {merge: append|replace}}}, or the short form {@code key: append}. */
    Map<String, dev.loopflow.core.model.StateMerge> stateSection(YNode n) {
      Map<String, dev.loopflow.core.model.StateMerge> out = new LinkedHashMap<>();
      if (n == null) {
        return out;
      }
      if (!(n instanceof YNode.YMap m)) {
        problems.add(n.location(), "state", "expected a mapping of state keys, found " + n.describe());
        return out;
      }
      Set<String> merges = Set.of("append", "replace");
      for (YNode.YMap.Entry e : m.entries().values()) {
        String path = "state." + e.key();
        YNode v = e.value();
        YNode mergeNode = v;
        if (v instanceof YNode.YMap vm) {
          for (YNode.YMap.Entry f : vm.entries().values()) {
            if (!f.key().equals("merge")) {
              problems.add(f.keyLocation(), path + "." + f.key(), "unknown field '" + f.key() + "'"
                  + Names.suggest(f.key(), Set.of("merge")));
            }
          }
          mergeNode = vm.get("merge");
          if (mergeNode == null) {
            problems.add(v.location(), path, "missing required field 'merge' (append or replace)");
            continue;
          }
          path = path + ".merge";
        }
        String merge = LoaderSupport.string(mergeNode, "merge", path, problems);
        if (merge == null) {
          continue;
        }
        if (!merges.contains(merge)) {
          problems.add(mergeNode.location(), path, "unknown merge '" + merge + "'" + Names.suggest(merge, merges)
              + "; expected append or replace");
          continue;
        }
        out.put(e.key(), merge.equals("append") ? dev.loopflow.core.model.StateMerge.APPEND
            : dev.loopflow.core.model.StateMerge.REPLACE);
      }
      return out;
    }

    Limits limits(YNode n) {
      if (n == null) {
        return Limits.DEFAULTS;
      }
      if (!(n instanceof YNode.YMap m)) {
        problems.add(n.location(), "limits", "expected a mapping, found " + n.describe());
        return Limits.DEFAULTS;
      }
      Set<String> known = Set.of("max_steps", "timeout", "concurrency");
      for (YNode.YMap.Entry e : m.entries().values()) {
        if (!known.contains(e.key())) {
          problems.add(e.keyLocation(), "limits." + e.key(), "unknown field '" + e.key() + "'"
              + Names.suggest(e.key(), known));
        }
      }
      Integer steps = m.get("max_steps") == null ? null
          : LoaderSupport.integer(m.get("max_steps"), "max_steps", 1, 100_000_000, "limits.max_steps", problems);
      Duration timeout = m.get("timeout") == null ? null
          : LoaderSupport.duration(m.get("timeout"), "timeout", "limits.timeout", problems);
      Integer conc = m.get("concurrency") == null ? null
          : LoaderSupport.integer(m.get("concurrency"), "concurrency", 1, 1024, "limits.concurrency", problems);
      return new Limits(steps == null ? Limits.DEFAULT_MAX_STEPS : steps, timeout,
          conc == null ? Limits.DEFAULT_CONCURRENCY : conc);
    }

    List<Node> nodes(YNode n) {
      List<Node> out = new ArrayList<>();
      if (n == null) {
        problems.add(top.location(), "", "missing required field 'nodes'");
        return out;
      }
      if (!(n instanceof YNode.YSeq seq)) {
        problems.add(n.location(), "nodes", "expected a list of nodes, found " + n.describe());
        return out;
      }
      if (seq.items().isEmpty()) {
        problems.add(n.location(), "nodes", "a workflow needs at least one node");
        return out;
      }
      scope = topScope;
      return nodeList(seq);
    }

    /** Loads the nodes of the current scope: identities first, so any node may refer to any other. */
    List<Node> nodeList(YNode.YSeq seq) {
      List<Node> out = new ArrayList<>();
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < seq.items().size(); i++) {
        ids.add(identity(seq.items().get(i), i));
      }
      for (int i = 0; i < seq.items().size(); i++) {
        int before = refs.size();
        Node node = node(seq.items().get(i), i, ids.get(i));
        for (int r = before; r < refs.size(); r++) {
          refScopes.putIfAbsent(refs.get(r), scope);
        }
        if (node != null) {
          out.add(node);
          if (scope.parent == null) {
            compiled.put(node.id(), node);
          }
        }
      }
      return out;
    }

    /** Loads a loop's nested body ({@code body:} or {@code nodes:}) as its own scope. */
    List<Node> body(YNode n, String loopId, String construct, String path) {
      if (!(n instanceof YNode.YSeq seq)) {
        problems.add(n.location(), path, "expected a list of nodes, found " + n.describe());
        return List.of();
      }
      if (seq.items().isEmpty()) {
        problems.add(n.location(), path, construct + " '" + loopId + "' needs at least one node in its "
            + path.substring(path.lastIndexOf('.') + 1));
        return List.of();
      }
      Scope outer = scope;
      Scope mine = new Scope(outer, loopId, construct, path, new LinkedHashMap<>());
      scope = mine;
      try {
        return nodeList(seq);
      } finally {
        scope = outer;
        lastBody = mine; // set last: loading the body may load nested bodies
      }
    }

    String identity(YNode n, int index) {
      String path = scope.path + "[" + index + "]";
      if (!(n instanceof YNode.YMap m)) {
        problems.add(n.location(), path, "expected a node (a mapping with id and type), found " + n.describe());
        return null;
      }
      YNode idNode = m.get("id") != null ? m.get("id") : m.get("name");
      if (m.get("id") != null && m.get("name") != null) {
        problems.add(m.get("name").location(), path + ".name", "a node has 'id' or 'name', not both");
      }
      if (idNode == null) {
        problems.add(m.location(), path, "missing required field 'id'");
        return null;
      }
      if (!(idNode instanceof YNode.YScalar s) || !(s.value() instanceof String id) || id.isBlank()) {
        problems.add(idNode.location(), path + ".id", "a node id must be a non-empty string");
        return null;
      }
      if (!id.matches("[A-Za-z_][A-Za-z0-9_-]*")) {
        problems.add(idNode.location(), path + ".id", "node id '" + id + "' must start with a letter or '_' and "
            + "hold only letters, digits, '_' and '-'");
        return null;
      }
      if (RESERVED_IDS.contains(id)) {
        problems.add(idNode.location(), path + ".id", "node id '" + id + "' is reserved");
        return null;
      }
      if (scope.ids.containsKey(id)) {
        problems.add(idNode.location(), path + ".id", scope.prefix() + "duplicate node id '" + id
            + "' (first defined at line " + scope.ids.get(id).line() + ")");
        return null;
      }
      scope.ids.put(id, idNode.location());
      return id;
    }

    Node node(YNode n, int index, String id) {
      if (!(n instanceof YNode.YMap m)) {
        return null;
      }
      String path = id == null ? scope.path + "[" + index + "]" : scope.path + "." + id;
      Map<String, YNode.YMap.Entry> fields = new LinkedHashMap<>(m.entries());
      String kind = kind(m, path, fields);
      if (kind == null) {
        return null;
      }
      if (id != null) {
        scope.kinds.put(id, kind);
      }
      if (scope.parent != null) {
        Sugar.rewrite(fields, scope.ids.keySet(), path, problems);
      } else {
        Sugar.reject(fields, path, problems);
      }
      NodeConfigImpl cfg = new NodeConfigImpl(id == null ? "?" : id, kind, m.location(), path, fields, problems,
          refs, defaults, sections);
      if (NOT_YET.contains(kind)) {
        Location at = m.get("type") != null ? m.get("type").location()
            : m.has(kind) ? m.entries().get(kind).keyLocation() : m.location();
        problems.add(at, path, "node kind '" + kind + "' is not supported yet");
        return null;
      }
      NodeHandler handler = handlers.get(kind);
      Set<String> allowed = new LinkedHashSet<>(COMMON_NODE_FIELDS);
      if (handler != null) {
        allowed.addAll(handler.fields());
      } else if (CONTROL_FIELDS.containsKey(kind)) {
        allowed.addAll(CONTROL_FIELDS.get(kind));
      } else {
        Set<String> kinds = new TreeSet<>(handlers.keySet());
        kinds.addAll(CONTROL_FIELDS.keySet());
        kinds.addAll(NOT_YET);
        Location at = m.get("type") != null ? m.get("type").location()
            : m.get("uses") != null ? m.get("uses").location()
            : m.has("prompt") ? m.entries().get("prompt").keyLocation() : m.location();
        if (kind.equals("llm")) {
          // llm nodes come from the loopflow-llm module; say so rather than calling the kind unknown.
          problems.add(at, path, "node kind 'llm' needs the loopflow-llm module, which is not on the class path");
          return null;
        }
        problems.add(at, path + ".type", "unknown node kind '" + kind + "'" + Names.suggest(kind, kinds));
        return null;
      }
      for (YNode.YMap.Entry e : fields.values()) {
        if (!allowed.contains(e.key())) {
          problems.add(e.keyLocation(), path + "." + e.key(), "unknown field '" + e.key() + "' for a "
              + kind + " node" + Names.suggest(e.key(), allowed));
        }
      }
      List<String> deps = dependsOn(m, path);
      Condition when = m.get("when") == null ? null : cfg.condition("when");
      String stateKey = m.get("output") == null || kind.equals("loop_group") ? null : cfg.string("output");
      Boolean allowFailure = cfg.bool("allow_failure");
      Duration timeout = cfg.duration("timeout");
      if (timeout == null && defaultTimeout != null && handler != null) {
        timeout = defaultTimeout; // defaults.timeout bounds work nodes; a loop is bounded by its passes
      }
      if (LOOP_KINDS.contains(kind) && m.get("retry") != null) {
        // A loop never runs again as a whole, so a retry here would be silently ignored: say so instead.
        problems.add(m.entries().get("retry").keyLocation(), path + ".retry", "'retry' has no meaning on a " + kind
            + " node (a loop is not run again as a whole); put retry on the body nodes that may fail");
      }
      Node.Retry retry = retry(m.get("retry"), path + ".retry");
      Node.Body body = handler != null ? work(handler, cfg)
          : LOOP_KINDS.contains(kind) ? loop(kind, id, cfg, fields, path) : control(kind, cfg);
      if (body == null || id == null) {
        if (LOOP_KINDS.contains(kind)) {
          invalidLoopKinds.add(kind);
        }
        return null;
      }
      if (body instanceof Node.Router r) {
        routers.put(id, r);
      }
      if (!cfg.costProblems().isEmpty()) {
        costProblems.put(body, cfg.costProblems());
      }
      return new Node(id, kind, body, deps, when, stateKey, Boolean.TRUE.equals(allowFailure), retry, timeout,
          m.location());
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
        flatten(m, "input", fields, path, type);
        String kind = KIND_ALIASES.getOrDefault(type, type);
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
        flatten(m, "with", fields, path, action);
        if (action.equals("llm.call")) {
          return "llm";
        }
        Set<String> actions = Set.of("llm.call");
        problems.add(uses.location(), path + ".uses", "unknown action '" + action + "'"
            + Names.suggest(action, actions));
        return null;
      }
      for (Map.Entry<String, String> sh : SHORTHANDS.entrySet()) {
        if (m.has(sh.getKey())) {
          if (sh.getKey().equals("loop_group") && m.get("loop_group") instanceof YNode.YMap) {
            flatten(m, "loop_group", fields, path, "loop_group");
          }
          return sh.getValue();
        }
      }
      problems.add(m.location(), path, "missing 'type' (or a shorthand such as prompt:, bash:, run:)");
      return null;
    }

    /** {@code with:} (003) and a mapping {@code input:} (001) hold the node's fields one level down. */
    void flatten(YNode.YMap m, String key, Map<String, YNode.YMap.Entry> fields, String path, String kind) {
      YNode inner = m.get(key);
      if (inner == null) {
        return;
      }
      if (key.equals("input") && !(inner instanceof YNode.YMap)) {
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

    List<String> dependsOn(YNode.YMap m, String path) {
      YNode d = m.get("depends_on");
      List<String> out = new ArrayList<>();
      if (d == null || d instanceof YNode.YScalar s && s.value() == null) {
        return out;
      }
      List<YNode> items = d instanceof YNode.YSeq seq ? seq.items() : List.of(d);
      for (YNode item : items) {
        if (item instanceof YNode.YScalar s && s.value() instanceof String dep) {
          if (!scope.ids.containsKey(dep)) {
            String outer = scope.parent != null && scope.parent.visible().contains(dep)
                ? " ('" + dep + "' is outside the body: a body's depends_on resolve inside it; it may still read "
                    + "outer results in templates)" : Names.suggest(dep, scope.ids.keySet());
            problems.add(item.location(), path + ".depends_on", scope.prefix() + "unknown node '" + dep + "'"
                + outer);
          } else {
            out.add(dep);
          }
        } else {
          problems.add(item.location(), path + ".depends_on", "expected a node id, found " + item.describe());
        }
      }
      return out;
    }

    Node.Retry retry(YNode r, String path) {
      if (r == null) {
        return Node.Retry.NONE;
      }
      if (r instanceof YNode.YScalar s && s.value() instanceof Long) {
        Integer n = LoaderSupport.integer(r, "retry", 0, 100, path, problems);
        return n == null ? Node.Retry.NONE : new Node.Retry(n + 1, Duration.ofSeconds(1));
      }
      if (!(r instanceof YNode.YMap m)) {
        problems.add(r.location(), path, "expected a number of retries or {max_attempts, delay}, found "
            + r.describe());
        return Node.Retry.NONE;
      }
      Set<String> known = Set.of("max_attempts", "delay");
      for (YNode.YMap.Entry e : m.entries().values()) {
        if (!known.contains(e.key())) {
          problems.add(e.keyLocation(), path + "." + e.key(), "unknown field '" + e.key() + "'"
              + Names.suggest(e.key(), known));
        }
      }
      Integer attempts = m.get("max_attempts") == null ? 2
          : LoaderSupport.integer(m.get("max_attempts"), "max_attempts", 1, 100, path + ".max_attempts", problems);
      Duration delay = m.get("delay") == null ? Duration.ofSeconds(1)
          : LoaderSupport.duration(m.get("delay"), "delay", path + ".delay", problems);
      return new Node.Retry(attempts == null ? 1 : attempts, delay == null ? Duration.ZERO : delay);
    }

    Node.Body work(NodeHandler handler, NodeConfigImpl cfg) {
      int before = problems.size();
      NodeProgram program;
      try {
        program = handler.compile(cfg);
      } catch (RuntimeException e) {
        cfg.error(null, "cannot compile " + handler.kind() + " node: " + e.getMessage());
        return null;
      }
      if (problems.size() > before || program == null) {
        return null;
      }
      return new Node.Work(program);
    }

    Edge.OnExhausted onExhausted(YNode n, String path, Edge.OnExhausted dflt) {
      if (n == null) {
        return dflt;
      }
      String v = LoaderSupport.string(n, "on_exhausted", path, problems);
      if (v == null) {
        return dflt;
      }
      return switch (v) {
        case "fail" -> Edge.OnExhausted.FAIL;
        case "continue" -> Edge.OnExhausted.CONTINUE;
        default -> {
          problems.add(n.location(), path, "unknown on_exhausted '" + v + "'; expected fail or continue"
              + Names.suggest(v, Set.of("fail", "continue")));
          yield dflt;
        }
      };
    }

    /** The field given under either of two names (000 writes camelCase, the other seeds snake_case). */
    String alias(NodeConfigImpl cfg, String camel, String snake) {
      if (cfg.has(camel) && cfg.has(snake)) {
        cfg.error(snake, "give '" + camel + "' or '" + snake + "', not both");
      }
      return cfg.has(camel) ? camel : cfg.has(snake) ? snake : null;
    }

    String choice(NodeConfigImpl cfg, String field, Set<String> allowed, String dflt) {
      if (field == null) {
        return dflt;
      }
      String v = cfg.string(field);
      if (v == null) {
        return dflt;
      }
      if (!allowed.contains(v)) {
        cfg.error(field, "unknown " + field + " '" + v + "'; expected one of " + new TreeSet<>(allowed)
            + Names.suggest(v, allowed));
        return dflt;
      }
      return v;
    }

    /** The last nested body scope loaded, so a loop's own fields can be checked against its body. */
    Scope lastBody;

    Node.Body loop(String kind, String id, NodeConfigImpl cfg, Map<String, YNode.YMap.Entry> fields, String path) {
      if (id == null) {
        return null;
      }
      Budget budget = budget(cfg.raw("budget"), path + ".budget");
      int before = problems.size();
      Node.Body result = switch (kind) {
        case "loop" -> {
          String maxField = alias(cfg, "maxIterations", "max_iterations");
          Integer max = maxField == null ? Integer.valueOf(5) : cfg.integer(maxField, 1, 50);
          String ec = choice(cfg, alias(cfg, "exitCondition", "exit_condition"),
              Set.of("max_iterations", "evaluator", "stable_output"), "max_iterations");
          String thrField = alias(cfg, "stabilityThreshold", "stability_threshold");
          Double thr = thrField == null ? Double.valueOf(0.95) : cfg.number(thrField);
          if (thr != null && (thr < 0 || thr > 1)) {
            cfg.error(thrField, "'" + thrField + "' must be between 0 and 1, found " + thr);
          }
          String fb = choice(cfg, alias(cfg, "feedbackMode", "feedback_mode"), Set.of("replace", "append"),
              "replace");
          String exit = cfg.string("exit");
          Template input = cfg.template("input");
          Edge.OnExhausted oe = onExhausted(cfg.raw("on_exhausted"), path + ".on_exhausted",
              Edge.OnExhausted.CONTINUE);
          if (max == null || thr == null) {
            yield null;
          }
          yield new Node.Loop(new LoopConfig.Refine(exit == null ? "" : exit,
              LoopConfig.ExitCondition.valueOf(ec.toUpperCase(java.util.Locale.ROOT)), thr,
              LoopConfig.Feedback.valueOf(fb.toUpperCase(java.util.Locale.ROOT))), max, oe, budget, input, List.of());
        }
        case "while_loop" -> {
          String maxField = alias(cfg, "maxIterations", "max_iterations");
          Integer max = null;
          if (maxField == null) {
            cfg.error(null, "while_loop '" + id + "' requires max_iterations (1..1000)");
          } else {
            max = cfg.integer(maxField, 1, 1000);
          }
          Condition cond = null;
          if (!cfg.has("condition")) {
            cfg.error(null, "while_loop '" + id + "' requires condition");
          } else {
            cond = cfg.condition("condition");
          }
          List<Node> body = List.of();
          if (!cfg.has("body")) {
            cfg.error(null, "while_loop '" + id + "' requires body");
          } else {
            body = body(cfg.raw("body"), id, "while_loop", path + ".body");
          }
          Edge.OnExhausted oe = onExhausted(cfg.raw("on_exhausted"), path + ".on_exhausted", Edge.OnExhausted.FAIL);
          if (max == null || cond == null || body.isEmpty()) {
            yield null;
          }
          yield new Node.Loop(new LoopConfig.While(cond), max, oe, budget, null, body);
        }
        case "loop_group" -> group(id, cfg, path, budget);
        case "iterator" -> {
          Template items = cfg.has("items") ? cfg.template("items") : null;
          if (!cfg.has("items")) {
            cfg.error(null, "iterator '" + id + "' requires items (a template yielding an array)");
          }
          Integer conc = cfg.has("concurrency") ? cfg.integer("concurrency", 1, 1024) : Integer.valueOf(1);
          Boolean coe = cfg.bool("continue_on_error");
          String agg = cfg.string("aggregator");
          if (items == null || conc == null) {
            yield null;
          }
          yield new Node.Loop(new LoopConfig.Iterate(agg == null ? "" : agg, items, conc, Boolean.TRUE.equals(coe)),
              Integer.MAX_VALUE, Edge.OnExhausted.CONTINUE, budget, null, List.of());
        }
        default -> throw new IllegalStateException(kind);
      };
      return problems.size() > before ? null : result;
    }

    Node.Body group(String id, NodeConfigImpl cfg, String path, Budget budget) {
      String maxField = alias(cfg, "maxIterations", "max_iterations");
      Integer max = null;
      if (maxField == null) {
        cfg.error(null, "loop_group '" + id + "' requires max_iterations (1..1000)");
      } else {
        max = cfg.integer(maxField, 1, 1000);
      }
      List<Node> body = List.of();
      Scope bodyScope = null;
      if (!cfg.has("nodes")) {
        cfg.error(null, "loop_group '" + id + "' requires nodes (its body)");
      } else {
        Scope outer = scope;
        Map<String, Object> outerDefaults = defaults;
        defaults = groupDefaults(cfg);
        try {
          body = body(cfg.raw("nodes"), id, "loop_group", path + ".nodes");
        } finally {
          defaults = outerDefaults;
        }
        bodyScope = lastBody;
        scope = outer;
        List<String> cycle = dev.loopflow.core.internal.plan.GraphPlan.of(body, List.of()).findCycle();
        if (!cycle.isEmpty()) {
          Location at = cfg.location("nodes");
          for (Node n : body) {
            if (n.id().equals(cycle.get(1))) {
              at = n.location();
            }
          }
          problems.add(at, path + ".nodes", "loop_group '" + id + "' body: dependency cycle: "
              + String.join(" -> ", cycle));
        }
      }
      String until = cfg.has("until") ? cfg.string("until") : null;
      if (until != null && until.isBlank()) {
        cfg.error("until", "'until' must be a non-empty signal");
      }
      if (cfg.has("until_command") && cfg.has("until_bash")) {
        cfg.error("until_bash", "give 'until_command' or 'until_bash', not both");
      }
      Node untilNode = null;
      String untilField = cfg.has("until_command") ? "until_command" : cfg.has("until_bash") ? "until_bash" : null;
      Template gate = null;
      if (bodyScope != null) {
        Scope outer = scope;
        scope = bodyScope;
        int before = refs.size();
        try {
          if (untilField != null) {
            untilNode = untilCommand(id, cfg, untilField, path);
          }
          if (cfg.has("gate_message")) {
            YNode g = Sugar.rewrite(cfg.raw("gate_message"), bodyScope.ids.keySet(), path + ".gate_message", problems);
            String src = LoaderSupport.string(g, "gate_message", path + ".gate_message", problems);
            gate = src == null ? null : cfg.template("gate_message", src);
          }
        } finally {
          for (int r = before; r < refs.size(); r++) {
            refScopes.put(refs.get(r), bodyScope);
          }
          scope = outer;
        }
      }
      Boolean fresh = cfg.bool("fresh_context");
      Boolean interactive = cfg.bool("interactive");
      String terminal = cfg.has("output") ? cfg.string("output") : null;
      if (terminal != null && bodyScope != null && !bodyScope.ids.containsKey(terminal)) {
        cfg.error("output", "loop_group '" + id + "': output names '" + terminal + "', which is not a node of its "
            + "body" + Names.suggest(terminal, bodyScope.ids.keySet()));
      }
      boolean hasTest = until != null || untilField != null;
      Edge.OnExhausted oe = onExhausted(cfg.raw("on_exhausted"), path + ".on_exhausted",
          hasTest ? Edge.OnExhausted.FAIL : Edge.OnExhausted.CONTINUE);
      if (max == null || body.isEmpty()) {
        return null;
      }
      return new Node.Loop(new LoopConfig.Group(until, untilNode, Boolean.TRUE.equals(fresh),
          Boolean.TRUE.equals(interactive), gate, terminal), max, oe, budget, null, body);
    }

    /**
     * A loop_group's {@code model} and {@code provider} are defaults for the llm nodes of its body, like the
     * workflow's {@code defaults} (which they override there); a node's own fields still win.
     */
    Map<String, Object> groupDefaults(NodeConfigImpl cfg) {
      String model = cfg.has("model") ? cfg.string("model") : null;
      String provider = cfg.has("provider") ? cfg.string("provider") : null;
      if (model != null && model.isBlank()) {
        cfg.error("model", "'model' must be a non-empty model name, e.g. \"openai:gpt-4o-mini\"");
      }
      if (model == null && provider == null) {
        return defaults;
      }
      Map<String, Object> d = new LinkedHashMap<>(defaults);
      if (model != null) {
        d.put("model", model);
        if (provider == null) {
          d.remove("provider"); // an outer group's provider must not be paired with this group's model
        }
      }
      if (provider != null) {
        d.put("provider", provider);
      }
      return d;
    }

    /** until_command / until_bash run as a shell node (so values reach it as quoted variables, never spliced). */
    Node untilCommand(String groupId, NodeConfigImpl cfg, String field, String path) {
      NodeHandler shell = handlers.get("shell");
      YNode raw = Sugar.rewrite(cfg.raw(field), scope.ids.keySet(), path + "." + field, problems);
      String key = field.equals("until_bash") ? "bash" : "command";
      Map<String, YNode.YMap.Entry> f = new LinkedHashMap<>();
      f.put(key, new YNode.YMap.Entry(key, cfg.location(field), raw));
      NodeConfigImpl sub = new NodeConfigImpl("until_command", "shell", cfg.location(field), path, f, problems, refs,
          defaults, sections).showing(key, field);
      Node.Body b = shell == null ? null : work(shell, sub);
      if (b == null) {
        return null;
      }
      // '$until' cannot be a node id, so the command's position never collides with a body node's.
      return new Node("$until", "shell", b, List.of(), null, null, true, Node.Retry.NONE,
          defaultTimeout, cfg.location(field));
    }

    Node.Body control(String kind, NodeConfigImpl cfg) {
      return switch (kind) {
        case "router" -> router(cfg);
        case "cancel" -> {
          Template reason = cfg.has("reason") ? cfg.template("reason")
              : cfg.has("cancel") ? cfg.template("cancel") : null;
          yield new Node.Cancel(reason);
        }
        case "approval" -> {
          if (cfg.has("message") && cfg.has("approval")) {
            cfg.error("approval", "give the message as 'approval: TEXT' or 'message:', not both");
          }
          Template message = cfg.has("message") ? cfg.template("message")
              : cfg.has("approval") ? cfg.template("approval") : null;
          String dflt = choice(cfg, cfg.has("default") ? "default" : null, Set.of("approve", "reject"), "reject");
          if (cfg.has("default") && cfg.duration("timeout") == null) {
            cfg.error("default", "'default' is the decision taken when 'timeout' passes unanswered; give a timeout");
          }
          String onReject = choice(cfg, cfg.has("on_reject") ? "on_reject" : null, Set.of("fail", "continue"),
              "fail");
          yield new Node.Approval(message, dflt.equals("approve"), onReject.equals("fail"));
        }
        case "input" -> new Node.Input(cfg.template("value"));
        case "output" -> new Node.Output(cfg.template("value"));
        case "exit", "aggregator" -> new Node.Marker("");
        default -> throw new IllegalStateException(kind);
      };
    }

    Node.Router router(NodeConfigImpl cfg) {
      YNode routesNode = cfg.raw("routes");
      String model = cfg.string("model");
      if (model != null && modelPrices != null) {
        String unpriced = modelPrices.unpriced(model, sections.get("prices"));
        if (unpriced != null) {
          cfg.errorUnderCostLimit("model", unpriced);
        }
      }
      Template instructions = cfg.has("instructions") ? cfg.template("instructions") : cfg.template("prompt");
      Template value = cfg.template("value");
      if (routesNode == null) {
        cfg.error(null, "missing required field 'routes'");
        return null;
      }
      if (!(routesNode instanceof YNode.YMap rm) || rm.entries().isEmpty()) {
        cfg.error("routes", "expected a non-empty mapping of branch name to condition, found "
            + routesNode.describe());
        return null;
      }
      Map<String, Condition> routes = new LinkedHashMap<>();
      Map<String, String> descriptions = new LinkedHashMap<>();
      boolean ok = true;
      for (YNode.YMap.Entry e : rm.entries().values()) {
        String branchPath = cfg.path("routes") + "." + e.key();
        YNode v = e.value();
        if (model != null) {
          if (v instanceof YNode.YScalar s && s.value() instanceof String d) {
            descriptions.put(e.key(), d);
          } else {
            problems.add(v.location(), branchPath, "an LLM-chosen route needs a description string, found "
                + v.describe());
            ok = false;
          }
          continue;
        }
        if (v instanceof YNode.YScalar s && ("default".equals(s.value()) || Boolean.TRUE.equals(s.value()))) {
          routes.put(e.key(), null);
          continue;
        }
        int before = refs.size();
        Condition c = LoaderSupport.compileCondition(v, branchPath, problems, refs);
        for (int r = before; r < refs.size(); r++) {
          refs.set(r, refs.get(r).withLocals(Set.of("value"))); // route conditions see the router's value
        }
        if (c == null) {
          ok = false;
        } else {
          routes.put(e.key(), c);
        }
      }
      return ok ? new Node.Router(routes, descriptions, model, instructions, value) : null;
    }

    List<Edge> edges(YNode n) {
      List<Edge> out = new ArrayList<>();
      if (n == null) {
        return out;
      }
      if (!(n instanceof YNode.YSeq seq)) {
        problems.add(n.location(), "edges", "expected a list of edges, found " + n.describe());
        return out;
      }
      Set<String> known = Set.of("from", "to", "type", "when", "branch", "maxIterations", "max_iterations",
          "on_exhausted", "label");
      for (int i = 0; i < seq.items().size(); i++) {
        YNode item = seq.items().get(i);
        String path = "edges[" + i + "]";
        if (!(item instanceof YNode.YMap m)) {
          problems.add(item.location(), path, "expected an edge {from, to}, found " + item.describe());
          continue;
        }
        for (YNode.YMap.Entry e : m.entries().values()) {
          if (!known.contains(e.key())) {
            problems.add(e.keyLocation(), path + "." + e.key(), "unknown field '" + e.key() + "'"
                + Names.suggest(e.key(), known));
          }
        }
        String from = endpoint(m, "from", path);
        String to = endpoint(m, "to", path);
        Edge.Type type = Edge.Type.FORWARD;
        if (m.get("type") != null) {
          String t = LoaderSupport.string(m.get("type"), "type", path + ".type", problems);
          if ("loop".equals(t)) {
            type = Edge.Type.LOOP;
          } else if (t != null && !t.equals("forward")) {
            problems.add(m.get("type").location(), path + ".type", "unknown edge type '" + t
                + "'; expected forward or loop" + Names.suggest(t, Set.of("forward", "loop")));
          }
        }
        Condition when = m.get("when") == null ? null
            : LoaderSupport.compileCondition(m.get("when"), path + ".when", problems, refs);
        String branch = m.get("branch") == null ? null
            : LoaderSupport.string(m.get("branch"), "branch", path + ".branch", problems);
        if (branch != null && from != null) {
          checkBranch(from, to, branch, m.get("branch").location(), path + ".branch");
        }
        if (m.get("maxIterations") != null && m.get("max_iterations") != null) {
          problems.add(m.get("max_iterations").location(), path + ".max_iterations", "give 'maxIterations' or "
              + "'max_iterations', not both");
        }
        YNode maxNode = m.get("maxIterations") != null ? m.get("maxIterations") : m.get("max_iterations");
        Integer max = maxNode == null ? null
            : LoaderSupport.integer(maxNode, "maxIterations", 1, 1000, path + ".maxIterations", problems);
        Edge.OnExhausted onExhausted = onExhausted(m.get("on_exhausted"), path + ".on_exhausted",
            Edge.OnExhausted.FAIL);
        if (type == Edge.Type.LOOP) {
          if (maxNode == null) {
            problems.add(m.location(), path, "a loop edge needs 'maxIterations' (1..1000)");
          }
          if (branch != null) {
            problems.add(m.get("branch").location(), path + ".branch", "a loop edge takes 'when', not 'branch'");
          }
          if (from != null && (from.equals("__start__") || from.equals("__end__")) || to != null
              && (to.equals("__start__") || to.equals("__end__"))) {
            problems.add(m.location(), path, "a loop edge must connect two nodes");
            from = null;
          }
        } else {
          if (maxNode != null) {
            problems.add(maxNode.location(), path + ".maxIterations", "'maxIterations' applies only to loop edges "
                + "(type: loop)");
          }
          if (m.get("on_exhausted") != null) {
            problems.add(m.get("on_exhausted").location(), path + ".on_exhausted", "'on_exhausted' applies only to "
                + "loop edges (type: loop)");
          }
        }
        if (from != null && to != null) {
          out.add(new Edge(from, to, type, when, branch, max == null ? 1 : max, onExhausted, m.location()));
        }
      }
      return out;
    }

    /** An edge naming a branch must leave a router that has that branch (routers are loaded before edges). */
    void checkBranch(String from, String to, String branch, Location at, String path) {
      Node source = compiled.get(from);
      if (source == null) {
        return; // unknown, or already reported as invalid
      }
      if (!(source.body() instanceof Node.Router r)) {
        problems.add(at, path, "edge " + from + " -> " + (to == null ? "?" : to) + " names branch '" + branch
            + "' but '" + from + "' is not a router");
        return;
      }
      Set<String> branches = r.byLlm() ? r.descriptions().keySet() : r.routes().keySet();
      if (!branches.contains(branch)) {
        problems.add(at, path, "router '" + from + "' has no branch '" + branch + "'"
            + Names.suggest(branch, branches) + "; its branches are " + branches);
      }
    }

    String endpoint(YNode.YMap m, String field, String path) {
      YNode v = m.get(field);
      if (v == null) {
        problems.add(m.location(), path, "missing required field '" + field + "'");
        return null;
      }
      String id = LoaderSupport.string(v, field, path + "." + field, problems);
      if (id == null) {
        return null;
      }
      if (id.equals("__start__") || id.equals("__end__")) {
        if (field.equals("from") && id.equals("__end__") || field.equals("to") && id.equals("__start__")) {
          problems.add(v.location(), path + "." + field, "an edge cannot go " + (field.equals("from") ? "from"
              : "to") + " '" + id + "'");
          return null;
        }
        return id;
      }
      if (!nodeIds.containsKey(id)) {
        problems.add(v.location(), path + "." + field, "unknown node '" + id + "'" + Names.suggest(id,
            nodeIds.keySet()));
        return null;
      }
      return id;
    }

    void checkReferences(Set<String> declaredInputs, List<Edge> edges) {
      Set<String> loopEdgeSources = new java.util.HashSet<>();
      for (Edge e : edges) {
        if (e.type() == Edge.Type.LOOP) {
          loopEdgeSources.add(e.from());
        }
      }
      ReferenceCheck check = new ReferenceCheck(problems, text, declaredInputs, loopEdgeSources, kind -> {
        NodeHandler h = handlers.get(kind);
        return h != null ? h.resultFields() : TemplateScope.CONTROL_RESULT_FIELDS.get(kind);
      });
      for (TemplateRef ref : refs) {
        Scope sc = refScopes.get(ref);
        check.check(ref, sc == null ? topScope : sc);
      }
    }
  }

  /** The ids one list of nodes declares: the top level, or a loop's body (whose ids may shadow outer ones). */
  static final class Scope {
    final Scope parent;
    final String owner;
    final String construct;
    final String path;
    final Map<String, Location> ids;
    /** The kind of each node of this list whose kind could be worked out. */
    final Map<String, String> kinds = new HashMap<>();

    Scope(Scope parent, String owner, String construct, String path, Map<String, Location> ids) {
      this.parent = parent;
      this.owner = owner;
      this.construct = construct;
      this.path = path;
      this.ids = ids;
    }

    /** Ids a template in this scope may read: its own, and every enclosing scope's. */
    Set<String> visible() {
      Set<String> out = new LinkedHashSet<>(ids.keySet());
      for (Scope s = parent; s != null; s = s.parent) {
        out.addAll(s.ids.keySet());
      }
      return out;
    }

    /** The kind of the node a template here means by {@code id}: the innermost list's that declares it. */
    String kindOf(String id) {
      for (Scope s = this; s != null; s = s.parent) {
        if (s.ids.containsKey(id)) {
          return s.kinds.get(id);
        }
      }
      return null;
    }

    /** Whether {@code id} here means a top-level node (a body's own node of that id would shadow it). */
    boolean resolvesToTopLevel(String id) {
      for (Scope s = this; s != null; s = s.parent) {
        if (s.ids.containsKey(id)) {
          return s.parent == null;
        }
      }
      return false;
    }

    String prefix() {
      return owner == null ? "" : construct + " '" + owner + "' body: ";
    }
  }
}
