package dev.loopflow.core.internal.load;

import dev.loopflow.core.error.Location;
import dev.loopflow.core.expr.Condition;
import dev.loopflow.core.expr.Template;
import dev.loopflow.core.internal.plan.LoadedWorkflow;
import dev.loopflow.core.model.Budget;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.InputSpec;
import dev.loopflow.core.model.Limits;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.model.RestartPolicy;
import dev.loopflow.core.model.StateMerge;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.secrets.SourceCredentials;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The only places in the loader that construct a {@link Workflow} and a {@link Node}. Keep it that way: when
 * either changes shape, these two methods are the whole of the loader's change.
 */
final class ModelFactory {
  private ModelFactory() {}

  /** The loader's one way to make a {@link Workflow} (it has no public constructor; its plan is computed here). */
  static Workflow workflow(String name, String description, String file, String text, Map<String, InputSpec> inputs,
      Map<String, Object> defaults, Budget budget, Limits limits, List<Node> nodes, List<Edge> edges,
      Template output, Map<String, Object> sections, Map<String, StateMerge> merges,
      RestartPolicy restartPolicy, SourceCredentials credentials) {
    return new LoadedWorkflow(name, description, file, text, inputs,
        defaults, budget, limits, nodes, edges, output, sections, merges, restartPolicy, credentials);
  }

  /** The loader's one {@code new Node(...)}. */
  static Node node(String id, String kind, Node.Body body, List<String> dependsOn, Condition when, String stateKey,
      boolean allowFailure, Node.Retry retry, Duration timeout, Location location) {
    return new Node(id, kind, body, dependsOn, when, stateKey, allowFailure, retry, timeout, location);
  }

  /** {@code n} with other dependencies, every other field kept. */
  static Node withDependsOn(Node n, List<String> dependsOn) {
    return node(n.id(), n.kind(), n.body(), dependsOn, n.when(), n.stateKey(), n.allowFailure(), n.retry(),
        n.timeout(), n.location());
  }

  /** {@code n} with another body, every other field kept. */
  static Node withBody(Node n, Node.Body body) {
    return node(n.id(), n.kind(), body, n.dependsOn(), n.when(), n.stateKey(), n.allowFailure(), n.retry(),
        n.timeout(), n.location());
  }
}
