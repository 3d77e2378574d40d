package dev.loopflow.core.internal.load;

import dev.loopflow.core.error.Location;
import dev.loopflow.core.error.Names;
import dev.loopflow.core.expr.Template;
import dev.loopflow.core.internal.plan.GraphPlan;
import dev.loopflow.core.model.Budget;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.LoopConfig;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.run.AnswerSchema;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.yaml.YNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code loop_group}: a nested body run pass after pass until its {@code until} signal appears in the pass's
 * output or its {@code until_command} succeeds, at most {@code max_iterations} times. Its own templates
 * ({@code gate_message}, the until command) are written in its body's scope.
 */
final class LoopGroups {
  private final LoadState st;
  private final Problems problems;
  private final NodeLoader nodes;

  LoopGroups(LoadState st, NodeLoader nodes) {
    this.st = st;
    this.problems = st.problems;
    this.nodes = nodes;
  }

  Node.Body group(String id, NodeConfigImpl cfg, String path, Budget budget) {
    String maxField = cfg.alias("maxIterations", "max_iterations");
    Integer max = null;
    if (maxField == null) {
      cfg.error(null, "loop_group '" + id + "' requires max_iterations (" + LoopNodes.GROUP_MAX.minimum() + ".."
          + LoopNodes.GROUP_MAX.maximum() + ")");
    } else {
      max = cfg.integer(maxField, LoopNodes.GROUP_MAX);
    }
    List<Node> body = List.of();
    Scope bodyScope = null;
    if (!cfg.has("nodes")) {
      cfg.error(null, "loop_group '" + id + "' requires nodes (its body)");
    } else {
      Scope outer = st.scope;
      Map<String, Object> outerDefaults = st.defaults;
      st.defaults = groupDefaults(cfg);
      try {
        body = nodes.body(cfg.raw("nodes"), id, "loop_group", path + ".nodes");
      } finally {
        st.defaults = outerDefaults;
      }
      bodyScope = st.lastBody;
      st.scope = outer;
      checkAcyclic(id, cfg, path, body);
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
      Scope outer = st.scope;
      st.scope = bodyScope;
      int before = st.refs.size();
      try {
        if (untilField != null) {
          untilNode = untilCommand(cfg, untilField, path);
        }
        if (cfg.has("gate_message")) {
          YNode g = Sugar.rewrite(cfg.raw("gate_message"), bodyScope.ids.keySet(), path + ".gate_message", problems);
          String src = LoaderSupport.string(g, "gate_message", path + ".gate_message", problems);
          gate = src == null ? null : cfg.template("gate_message", src);
        }
      } finally {
        for (int r = before; r < st.refs.size(); r++) {
          st.refScopes.put(st.refs.get(r), bodyScope);
        }
        st.scope = outer;
      }
    }
    Boolean fresh = cfg.bool("fresh_context");
    if (Boolean.FALSE.equals(fresh) && cfg.has("nodes") && !declaresSession(cfg.raw("nodes"))) {
      // Continuity across passes is carried by named sessions only: without one, 'false' would promise a
      // conversation that every call starts afresh.
      cfg.error("fresh_context", "loop_group '" + id + "': fresh_context: false continues LLM conversations across "
          + "passes, but no node of its body has a session:, so every call would start a new conversation; add "
          + "session: NAME to the llm or agent nodes whose conversation should continue (or leave fresh_context out)");
    }
    Boolean interactive = cfg.bool("interactive");
    String gateId = LoopConfig.Group.GATE_ID;
    if (Boolean.TRUE.equals(interactive) && bodyScope != null && bodyScope.ids.containsKey(gateId)) {
      // The wait after pass k is journaled at <group>[k].gate: a body node there would share its position, and a
      // resumed run would read that node's row as the person's answer.
      problems.add(bodyScope.ids.get(gateId), path + ".nodes." + gateId + ".id", "node id '" + gateId + "' is "
          + "reserved in the body of an interactive loop_group: the group waits for its person at '" + id + "[N]."
          + gateId + "'; rename the node");
    }
    String terminal = cfg.has("output") ? cfg.string("output") : null;
    if (terminal != null && bodyScope != null && !bodyScope.ids.containsKey(terminal)) {
      cfg.error("output", "loop_group '" + id + "': output names '" + terminal + "', which is not a node of its "
          + "body" + Names.suggest(terminal, bodyScope.ids.keySet()));
    }
    boolean hasTest = until != null || untilField != null;
    Edge.OnExhausted oe = LoaderSupport.onExhausted(cfg.raw("on_exhausted"), path + ".on_exhausted",
        hasTest ? Edge.OnExhausted.FAIL : Edge.OnExhausted.CONTINUE, problems);
    if (max == null || body.isEmpty()) {
      return null;
    }
    AnswerSchema gateSchema = ControlNodes.answerSchema(cfg, "gate_schema");
    if (cfg.has("gate_schema") && !Boolean.TRUE.equals(interactive)) {
      cfg.error("gate_schema", "loop_group '" + id + "': gate_schema is the form its gate asks a person to fill "
          + "after each pass; it needs interactive: true");
    }
    return new Node.Loop(new LoopConfig.Group(until, untilNode, Boolean.TRUE.equals(fresh),
        Boolean.TRUE.equals(interactive), gate, terminal, gateSchema), max, oe, budget, null, body);
  }

  /**
   * Whether a node of the body (nested loop bodies included, fields under {@code with:} or {@code input:} too)
   * names a {@code session}; a node's {@code mock} replies are data and are not searched.
   */
  private static boolean declaresSession(YNode n) {
    return switch (n) {
      case YNode.YMap m -> m.entries().containsKey("session") || m.entries().entrySet().stream()
          .anyMatch(e -> !e.getKey().equals("mock") && declaresSession(e.getValue().value()));
      case YNode.YSeq q -> q.items().stream().anyMatch(LoopGroups::declaresSession);
      default -> false;
    };
  }

  /** A pass runs its body once in dependency order, so the body's depends_on must not form a cycle. */
  private void checkAcyclic(String id, NodeConfigImpl cfg, String path, List<Node> body) {
    List<String> cycle = GraphPlan.of(body, List.of()).findCycle();
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

  /**
   * A loop_group's {@code model} and {@code provider} are defaults for the llm nodes of its body, like the
   * workflow's {@code defaults} (which they override there); a node's own fields still win.
   */
  private Map<String, Object> groupDefaults(NodeConfigImpl cfg) {
    String model = cfg.has("model") ? cfg.string("model") : null;
    String provider = cfg.has("provider") ? cfg.string("provider") : null;
    if (model != null && model.isBlank()) {
      cfg.error("model", "'model' must be a non-empty model name, e.g. \"openai:gpt-4o-mini\"");
    }
    if (model == null && provider == null) {
      return st.defaults;
    }
    Map<String, Object> d = new LinkedHashMap<>(st.defaults);
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
  private Node untilCommand(NodeConfigImpl cfg, String field, String path) {
    NodeHandler shell = st.handlers.get("shell");
    YNode raw = Sugar.rewrite(cfg.raw(field), st.scope.ids.keySet(), path + "." + field, problems);
    String key = field.equals("until_bash") ? "bash" : "command";
    Map<String, YNode.YMap.Entry> f = new LinkedHashMap<>();
    f.put(key, new YNode.YMap.Entry(key, cfg.location(field), raw));
    NodeConfigImpl sub = st.config("until_command", "shell", cfg.location(field), path, f).showing(key, field);
    Node.Body b = shell == null ? null : nodes.work(shell, sub);
    if (b == null) {
      return null;
    }
    return ModelFactory.node(LoopConfig.Group.UNTIL_COMMAND_ID, "shell", b, List.of(), null, null, true,
        Node.Retry.NONE, st.defaultTimeout, cfg.location(field));
  }
}
