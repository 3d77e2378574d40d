package dev.loopflow.core.internal.exec;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ForkPlan;
import dev.loopflow.core.run.ForkPoint;
import dev.loopflow.core.secrets.Redactor;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.yaml.YNode;
import dev.loopflow.core.yaml.YamlReader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Whether an edited workflow may fork a run: every node that ran before the fork point and does not run again from
 * it must be written as the run had it (its whole mapping, compared as data, so moving it or reformatting it is no
 * change). A node that runs again from the point may change: the loop the fork starts in, its body, the loops around
 * it, the node a node point starts at, and everything that had not run yet.
 */
public final class WorkflowEdits {
  private WorkflowEdits() {}

  /** Refuses {@code edited} with {@code fork_refused}, naming the nodes it changes that the fork reuses. */
  public static void check(RunRecord origin, Workflow edited, ForkPlan plan, ForkPoint at) {
    if (edited.source() == null || origin.source() == null) {
      throw new LoopflowException(ErrorCode.FORK_REFUSED, "an edited workflow is compared with the run's by its YAML "
          + "text; load both from files", null);
    }
    Map<String, Object> before = nodes(origin.source());
    Map<String, Object> after = nodes(edited.source());
    TreeSet<String> changed = new TreeSet<>();
    for (String path : plan.reused()) {
      String id = reusedNode(path, at);
      if (id != null && !Objects.equals(before.get(id), after.get(id))) {
        changed.add(id);
      }
    }
    if (!changed.isEmpty()) {
      throw new LoopflowException(ErrorCode.FORK_REFUSED, "the edited workflow changes node"
          + (changed.size() == 1 ? " '" + changed.first() + "'" : "s '" + String.join("', '", changed) + "'")
          + ", which ran before fork point " + at.text() + " and is reused as it ran; change only nodes that run "
          + "from the fork point on, or fork at an earlier point", null);
    }
  }

  /**
   * The node of a reused execution that must stay as it was: null when it runs again from the point (it is the
   * loop of a pass point, inside that loop or around it, or the node of a node point).
   */
  private static String reusedNode(String path, ForkPoint at) {
    NodePosition pos = parse(path);
    if (at instanceof ForkPoint.BeforeNode n) {
      return pos.nodeId().equals(n.nodeId()) ? null : pos.nodeId();
    }
    ForkPoint.Pass p = (ForkPoint.Pass) at;
    for (NodePosition.LoopFrame f : pos.loops()) {
      if (f.loopId().equals(p.loopId())) {
        return null;
      }
    }
    for (NodePosition.LoopFrame f : p.path()) {
      if (f.loopId().equals(pos.nodeId())) {
        return null;
      }
    }
    return pos.nodeId();
  }

  /** {@code a[1].b[2].c} back into its frames and node id. */
  private static NodePosition parse(String path) {
    String[] parts = path.split("\\.");
    List<NodePosition.LoopFrame> loops = new ArrayList<>();
    for (int i = 0; i < parts.length - 1; i++) {
      String p = parts[i];
      int open = p.lastIndexOf('[');
      loops.add(new NodePosition.LoopFrame(p.substring(0, open), Integer.parseInt(p.substring(open + 1,
          p.length() - 1))));
    }
    return new NodePosition(loops, parts[parts.length - 1]);
  }

  /** Every node mapping in the text, by id, as data (credentials masked alike on both sides). */
  private static Map<String, Object> nodes(String source) {
    Map<String, Object> out = new LinkedHashMap<>();
    YNode root = YamlReader.read(Redactor.of(List.of()).source(source), "<source>", new ArrayList<>());
    if (root != null) {
      walk(root, out);
    }
    return out;
  }

  private static void walk(YNode n, Map<String, Object> out) {
    switch (n) {
      case YNode.YMap m -> {
        if (m.get("id") instanceof YNode.YScalar id && id.value() != null) {
          out.putIfAbsent(String.valueOf(id.value()), m.toPlain());
        }
        m.entries().values().forEach(e -> walk(e.value(), out));
      }
      case YNode.YSeq s -> s.items().forEach(i -> walk(i, out));
      case YNode.YScalar s -> { }
    }
  }
}
