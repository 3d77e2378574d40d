package dev.loopflow.core.internal.load;

import dev.loopflow.core.error.Problem;
import dev.loopflow.core.internal.plan.Constructs;
import dev.loopflow.core.model.Budget;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.Node;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reports the problems nodes raised with {@code errorUnderCostLimit} (a model with no known price) for the nodes a
 * {@code max_usd} budget applies to: the run's, a nested body's enclosing loops', or a graph-form loop's (iterator,
 * loop + exit) for the nodes between it and its marker. Runs after pairing, when every region is known.
 */
final class CostLimits {
  private CostLimits() {}

  static void check(List<Node> nodes, List<Edge> edges, Budget run, Map<Node.Body, List<Problem>> pending,
      Problems problems) {
    if (pending.isEmpty()) {
      return;
    }
    walk(nodes, edges, run.maxUsd() == null ? null : "max_usd " + amount(run.maxUsd()) + " of the run's budget",
        pending, problems);
  }

  /** {@code outer}: the max_usd budget around this level, described, or null when none. */
  private static void walk(List<Node> nodes, List<Edge> edges, String outer, Map<Node.Body, List<Problem>> pending,
      Problems problems) {
    List<Constructs.Construct> regions = Constructs.find(nodes, edges, new ArrayList<>());
    for (Node n : nodes) {
      String limit = outer;
      for (Constructs.Construct c : regions) {
        if (limit == null && c.loopNode() != null && c.inner().contains(n.id())) {
          limit = ownLimit(c.loopNode());
        }
      }
      List<Problem> ps = pending.get(n.body());
      if (ps != null && limit != null) {
        for (Problem p : ps) {
          problems.add(p.location(), p.path(), p.message() + " (" + limit + " applies to this node)");
        }
      }
      if (n.body() instanceof Node.Loop l && !l.body().isEmpty()) {
        walk(l.body(), List.of(), limit != null ? limit : ownLimit(n), pending, problems);
      }
    }
  }

  private static String ownLimit(Node loop) {
    Budget b = ((Node.Loop) loop.body()).budget();
    return b.maxUsd() == null ? null : "max_usd " + amount(b.maxUsd()) + " of " + loop.kind() + " '" + loop.id()
        + "'";
  }

  private static String amount(double usd) {
    return BigDecimal.valueOf(usd).stripTrailingZeros().toPlainString().toLowerCase(Locale.ROOT);
  }
}
