package dev.loopflow.core.internal.load;

import dev.loopflow.core.error.Names;
import dev.loopflow.core.expr.Condition;
import dev.loopflow.core.expr.TemplateScope;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeProgram;
import dev.loopflow.core.yaml.YNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code nodes:} list and every nested body: each node's identity, kind, the fields all kinds share
 * ({@code depends_on}, {@code when}, {@code output}, {@code retry}, {@code timeout}, ...), and its body, built by the
 * node's handler or by the control and loop loaders.
 */
final class NodeLoader {
  private final LoadState st;
  private final Problems problems;
  private final NodeKinds kinds;
  private final ControlNodes control;
  private final LoopNodes loops;

  /** Ids a node cannot take: scope names, and names kept for constructs not supported yet. */
  static final Set<String> RESERVED_IDS = reservedIds();
  /** What a node id may be: a letter or '_', then letters, digits, '_' and '-'. */
  static final String ID_PATTERN = "[A-Za-z_][A-Za-z0-9_-]*";

  NodeLoader(LoadState st) {
    this.st = st;
    this.problems = st.problems;
    this.kinds = new NodeKinds(st);
    this.control = new ControlNodes(st);
    this.loops = new LoopNodes(st, this);
  }

  private static Set<String> reservedIds() {
    Set<String> ids = new HashSet<>(TemplateScope.ROOTS);
    ids.addAll(Set.of("__start__", "__end__", "previous", "item"));
    return Set.copyOf(ids);
  }

  /** The top-level {@code nodes:} list. */
  List<Node> nodes(YNode n) {
    List<Node> out = new ArrayList<>();
    if (n == null) {
      problems.add(st.top.location(), "", "missing required field 'nodes'");
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
    st.scope = st.topScope;
    return nodeList(seq);
  }

  /** Loads the nodes of the current scope: identities first, so any node may refer to any other. */
  private List<Node> nodeList(YNode.YSeq seq) {
    List<Node> out = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < seq.items().size(); i++) {
      ids.add(identity(seq.items().get(i), i));
    }
    for (int i = 0; i < seq.items().size(); i++) {
      int before = st.refs.size();
      Node node = node(seq.items().get(i), i, ids.get(i));
      for (int r = before; r < st.refs.size(); r++) {
        st.refScopes.putIfAbsent(st.refs.get(r), st.scope);
      }
      if (node != null) {
        out.add(node);
      }
    }
    out = withoutFailedDependencies(out);
    if (st.scope.parent == null) {
      out.forEach(node -> st.compiled.put(node.id(), node));
    }
    return out;
  }

  /**
   * The nodes with every depends_on entry naming a node of this list that failed to load removed. That failure is
   * reported already; the graph checks that run next look up each dependency among the loaded nodes, and must not
   * meet one that is not there.
   */
  private static List<Node> withoutFailedDependencies(List<Node> loaded) {
    Set<String> ids = new HashSet<>();
    loaded.forEach(n -> ids.add(n.id()));
    List<Node> out = new ArrayList<>(loaded.size());
    for (Node n : loaded) {
      List<String> deps = n.dependsOn().stream().filter(ids::contains).toList();
      out.add(deps.size() == n.dependsOn().size() ? n : ModelFactory.withDependsOn(n, deps));
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
    Scope outer = st.scope;
    Scope mine = new Scope(outer, loopId, construct, path, new LinkedHashMap<>());
    st.scope = mine;
    try {
      return nodeList(seq);
    } finally {
      st.scope = outer;
      st.lastBody = mine; // set last: loading the body may load nested bodies
    }
  }

  /** A node's id ({@code id} or {@code name}), recorded in the current scope; null when it has none usable. */
  private String identity(YNode n, int index) {
    Scope scope = st.scope;
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
    if (!id.matches(ID_PATTERN)) {
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

  /** One node; null when it cannot be built (the reasons are reported) or has no usable id. */
  private Node node(YNode n, int index, String id) {
    if (!(n instanceof YNode.YMap m)) {
      return null;
    }
    Scope scope = st.scope;
    String path = id == null ? scope.path + "[" + index + "]" : scope.path + "." + id;
    Map<String, YNode.YMap.Entry> fields = new LinkedHashMap<>(m.entries());
    String kind = kinds.kind(m, path, fields);
    if (kind == null) {
      return null;
    }
    if (id != null) {
      scope.kinds.put(id, kind);
    }
    if (scope.parent != null) {
      Sugar.rewrite(fields, kind, scope.ids.keySet(), path, problems);
    } else {
      Sugar.reject(fields, path, problems);
    }
    NodeConfigImpl cfg = st.config(id == null ? "?" : id, kind, m.location(), path, fields);
    if (kinds.reportNotYet(m, kind, path)) {
      return null;
    }
    NodeHandler handler = st.handlers.get(kind);
    Set<String> allowed = kinds.allowedFields(m, kind, handler, path);
    if (allowed == null) {
      return null;
    }
    kinds.checkFields(fields, allowed, kind, path);
    // Common fields are read from the lifted fields, not the node's own mapping: under a loop_group: mapping, a
    // with: or a type's input: mapping they sit one level down, and reading only the node's own keys would drop
    // a when, depends_on or retry written there without a word.
    List<String> deps = dependsOn(value(fields, "depends_on"), path);
    Condition when = fields.get("when") == null ? null : cfg.condition("when");
    String stateKey = fields.get("output") == null || kind.equals("loop_group") ? null : cfg.string("output");
    Boolean allowFailure = cfg.bool("allow_failure");
    Duration timeout = cfg.duration("timeout");
    if (timeout == null && st.defaultTimeout != null && handler != null) {
      timeout = st.defaultTimeout; // defaults.timeout bounds work nodes; a loop is bounded by its passes
    }
    boolean loop = LoopNodes.KINDS.contains(kind);
    if (loop && fields.get(NodeKinds.RETRY) != null) {
      // A loop never runs again as a whole, so a retry here would be silently ignored: say so instead.
      problems.add(fields.get(NodeKinds.RETRY).keyLocation(), path + ".retry", "'retry' has no meaning on a "
          + kind + " node (a loop is not run again as a whole); put retry on the body nodes that may fail");
    }
    Node.Retry retry = retry(value(fields, NodeKinds.RETRY), path + ".retry");
    Node.Body body = handler != null ? work(handler, cfg)
        : loop ? loops.loop(kind, id, cfg, path)
        : LoopNodes.MARKERS.contains(kind) ? loops.marker()
        : control.control(kind, cfg);
    if (body == null || id == null) {
      if (loop) {
        st.invalidLoopKinds.add(kind);
      }
      return null;
    }
    if (body instanceof Node.Router r) {
      st.routers.put(id, r);
    }
    if (!cfg.costProblems().isEmpty()) {
      st.costProblems.put(body, cfg.costProblems());
    }
    return ModelFactory.node(id, kind, body, deps, when, stateKey, Boolean.TRUE.equals(allowFailure), retry,
        timeout, m.location());
  }

  /** depends_on: ids of the same list (a body's resolve inside the body). */
  private List<String> dependsOn(YNode d, String path) {
    Scope scope = st.scope;
    List<String> out = new ArrayList<>();
    if (d == null || d instanceof YNode.YScalar s && s.value() == null) {
      return out;
    }
    List<YNode> items = d instanceof YNode.YSeq seq ? seq.items() : List.of(d);
    for (YNode item : items) {
      if (item instanceof YNode.YScalar s && s.value() instanceof String dep) {
        if (!scope.ids.containsKey(dep)) {
          String outer = scope.parent != null && scope.parent.sees(dep)
              ? " ('" + dep + "' is outside the body: a body's depends_on resolve inside it; it may still read "
                  + "outer results in templates)" : problems.suggest(dep, scope.ids.keySet());
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

  /** The value of a node's field, wherever it was written (see {@link NodeKinds#flatten}); null when absent. */
  private static YNode value(Map<String, YNode.YMap.Entry> fields, String key) {
    YNode.YMap.Entry e = fields.get(key);
    return e == null ? null : e.value();
  }

  /** {@code retry: N} (N retries, 1s apart) or {@code retry: {max_attempts, delay}}. */
  private Node.Retry retry(YNode r, String path) {
    if (r == null) {
      return Node.Retry.NONE;
    }
    if (r instanceof YNode.YScalar s && s.value() instanceof Long) {
      Integer n = LoaderSupport.integer(r, NodeKinds.RETRY_COUNT, path, problems);
      return n == null ? Node.Retry.NONE : new Node.Retry(n + 1, Duration.ofSeconds(1));
    }
    if (!(r instanceof YNode.YMap m)) {
      problems.add(r.location(), path, "expected a number of retries or {max_attempts, delay}, found "
          + r.describe());
      return Node.Retry.NONE;
    }
    LoaderSupport.unknownFields(m, FieldSpec.names(NodeKinds.RETRY_FIELDS), path + ".", problems);
    // Integer.valueOf keeps the conditional boxed: with a bare 2 an invalid max_attempts (null) would be unboxed.
    Integer attempts = m.get("max_attempts") == null ? Integer.valueOf(2)
        : LoaderSupport.integer(m.get("max_attempts"), FieldSpec.find(NodeKinds.RETRY_FIELDS, "max_attempts"),
            path + ".max_attempts", problems);
    Duration delay = m.get("delay") == null ? Duration.ofSeconds(1)
        : LoaderSupport.duration(m.get("delay"), "delay", path + ".delay", problems);
    return new Node.Retry(attempts == null ? 1 : attempts, delay == null ? Duration.ZERO : delay);
  }

  /**
   * A work node's body: its handler's compiled program; null when the node gives fields its kind's spec says
   * exclude each other, or when compiling reported a problem or threw.
   */
  Node.Body work(NodeHandler handler, NodeConfigImpl cfg) {
    if (!FieldGroups.checkExclusive(handler.spec(), cfg)) {
      return null;
    }
    int before = problems.size();
    NodeProgram program;
    try {
      program = handler.compile(cfg);
    } catch (RuntimeException e) {
      // Handlers report problems rather than throw, so this is a handler's bug: name it, never print "null".
      String why = e.getMessage() == null || e.getMessage().isBlank()
          ? "internal error (" + e.getClass().getSimpleName() + ")" : e.getMessage();
      cfg.error(null, "cannot compile " + handler.kind() + " node: " + why);
      return null;
    }
    if (problems.size() > before || program == null) {
      return null;
    }
    return new Node.Work(program);
  }
}
