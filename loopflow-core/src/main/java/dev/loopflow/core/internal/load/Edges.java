package dev.loopflow.core.internal.load;

import dev.loopflow.core.error.Location;
import dev.loopflow.core.error.Names;
import dev.loopflow.core.expr.Condition;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.yaml.YNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The {@code edges:} list, read after the nodes: endpoints must be top-level node ids (or {@code __start__} /
 * {@code __end__}), a {@code branch} must be one of its router's, and a loop edge ({@code type: loop}) needs
 * {@code maxIterations} and joins two nodes.
 */
final class Edges {
  private final LoadState st;
  private final Problems problems;

  /** Edge types; the first is the default. */
  static final List<String> TYPES = LoaderSupport.lower(Edge.Type.values());
  static final FieldSpec MAX = FieldSpec.integer("maxIterations", 1, 1000, "A loop edge's bound: the most passes of "
      + "its region, the first included (required on a loop edge).").alias("max_iterations");
  static final List<FieldSpec> SPECS = List.of(
      FieldSpec.string("from", "The source: a top-level node id, or __start__.").asRequired(),
      FieldSpec.string("to", "The target: a top-level node id, or __end__.").asRequired(),
      FieldSpec.choice("type", TYPES, "loop makes a back edge: after 'from' completes and 'when' holds, the nodes "
          + "from 'to' to 'from' run again."),
      FieldSpec.condition("when", "Take the edge (loop back) only while this holds."),
      FieldSpec.string("branch", "The branch of the router 'from' this edge belongs to."),
      MAX,
      LoaderSupport.onExhaustedField("fail"),
      FieldSpec.string("label", "Informational."));
  static final Set<String> FIELDS = FieldSpec.names(SPECS);
  static final String START = "__start__";
  static final String END = "__end__";

  Edges(LoadState st) {
    this.st = st;
    this.problems = st.problems;
  }

  /** The edges that are complete enough to keep; every problem is reported. */
  List<Edge> edges(YNode n) {
    List<Edge> out = new ArrayList<>();
    if (n == null) {
      return out;
    }
    if (!(n instanceof YNode.YSeq seq)) {
      problems.add(n.location(), "edges", "expected a list of edges, found " + n.describe());
      return out;
    }
    for (int i = 0; i < seq.items().size(); i++) {
      YNode item = seq.items().get(i);
      String path = "edges[" + i + "]";
      if (!(item instanceof YNode.YMap m)) {
        problems.add(item.location(), path, "expected an edge {from, to}, found " + item.describe());
        continue;
      }
      Edge e = edge(m, path);
      if (e != null) {
        out.add(e);
      }
    }
    return out;
  }

  private Edge edge(YNode.YMap m, String path) {
    LoaderSupport.unknownFields(m, FIELDS, path + ".", problems);
    String from = endpoint(m, "from", path);
    String to = endpoint(m, "to", path);
    Edge.Type type = Edge.Type.FORWARD;
    if (m.get("type") != null) {
      String t = LoaderSupport.string(m.get("type"), "type", path + ".type", problems);
      if (t != null && TYPES.contains(t)) {
        type = Edge.Type.valueOf(t.toUpperCase(Locale.ROOT));
      } else if (t != null) {
        problems.add(m.get("type").location(), path + ".type", "unknown edge type '" + t
            + "'; expected " + String.join(" or ", TYPES) + Names.suggest(t, TYPES));
      }
    }
    Condition when = m.get("when") == null ? null
        : LoaderSupport.compileCondition(m.get("when"), path + ".when", problems, st.refs);
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
        : LoaderSupport.integer(maxNode, MAX, path + ".maxIterations", problems);
    Edge.OnExhausted onExhausted = LoaderSupport.onExhausted(m.get("on_exhausted"), path + ".on_exhausted",
        Edge.OnExhausted.FAIL, problems);
    if (type == Edge.Type.LOOP) {
      if (!checkLoopEdge(m, path, from, to, branch, maxNode)) {
        from = null;
      }
    } else {
      checkForwardEdge(m, path, maxNode);
    }
    if (from == null || to == null) {
      return null;
    }
    return new Edge(from, to, type, when, branch, max == null ? 1 : max, onExhausted, m.location());
  }

  /** A loop edge repeats from its target: it needs a bound, takes no branch, and joins two nodes (false if not). */
  private boolean checkLoopEdge(YNode.YMap m, String path, String from, String to, String branch, YNode maxNode) {
    if (maxNode == null) {
      problems.add(m.location(), path, "a loop edge needs 'maxIterations' (" + MAX.minimum() + ".." + MAX.maximum()
          + ")");
    }
    if (branch != null) {
      problems.add(m.get("branch").location(), path + ".branch", "a loop edge takes 'when', not 'branch'");
    }
    if (from != null && (from.equals(START) || from.equals(END)) || to != null
        && (to.equals(START) || to.equals(END))) {
      problems.add(m.location(), path, "a loop edge must connect two nodes");
      return false;
    }
    return true;
  }

  /** The loop-edge fields have no meaning on a forward edge. */
  private void checkForwardEdge(YNode.YMap m, String path, YNode maxNode) {
    if (maxNode != null) {
      problems.add(maxNode.location(), path + ".maxIterations", "'maxIterations' applies only to loop edges "
          + "(type: loop)");
    }
    if (m.get("on_exhausted") != null) {
      problems.add(m.get("on_exhausted").location(), path + ".on_exhausted", "'on_exhausted' applies only to "
          + "loop edges (type: loop)");
    }
  }

  /** An edge naming a branch must leave a router that has that branch (routers are loaded before edges). */
  private void checkBranch(String from, String to, String branch, Location at, String path) {
    Node source = st.compiled.get(from);
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

  /** {@code from} or {@code to}: a top-level node id, {@code __start__} as a source or {@code __end__} as a target. */
  private String endpoint(YNode.YMap m, String field, String path) {
    YNode v = m.get(field);
    if (v == null) {
      problems.add(m.location(), path, "missing required field '" + field + "'");
      return null;
    }
    String id = LoaderSupport.string(v, field, path + "." + field, problems);
    if (id == null) {
      return null;
    }
    if (id.equals(START) || id.equals(END)) {
      if (field.equals("from") && id.equals(END) || field.equals("to") && id.equals(START)) {
        problems.add(v.location(), path + "." + field, "an edge cannot go " + (field.equals("from") ? "from"
            : "to") + " '" + id + "'");
        return null;
      }
      return id;
    }
    if (!st.nodeIds.containsKey(id)) {
      problems.add(v.location(), path + "." + field, "unknown node '" + id + "'" + problems.suggest(id,
          st.nodeIds.keySet()));
      return null;
    }
    return id;
  }
}
