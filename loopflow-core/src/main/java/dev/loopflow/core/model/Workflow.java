package dev.loopflow.core.model;

import dev.loopflow.core.expr.Template;
import java.util.List;
import java.util.Map;

/**
 * A loaded and validated workflow, immutable. {@code source} is the text it was loaded from (null when built in
 * code); {@code blocks} keeps top-level sections that extensions read (e.g. {@code mock}).
 *
 * <p>Only the engine makes workflows: {@code Loopflow.load}, {@code Loopflow.parse} and
 * {@code Loopflow.workflow(...).build()} validate one and compute its execution plan once, which every run and every
 * loop pass reuses. The engine refuses to run a {@code Workflow} made any other way.
 */
public interface Workflow {
  String name();

  String description();

  /** The file it was loaded from ({@code <java>} when built in code). */
  String file();

  String source();

  Map<String, InputSpec> inputs();

  Map<String, Object> defaults();

  Budget budget();

  Limits limits();

  /** The top-level nodes in definition order (nested loop bodies hang off their loop nodes). */
  List<Node> nodes();

  List<Edge> edges();

  Template output();

  Map<String, Object> blocks();

  Map<String, StateMerge> stateMerge();

  /** The restart policy (a pipeline's, or one declared on the workflow); null when restarts are not possible. */
  RestartPolicy restartPolicy();

  /**
   * The top level's forward dependencies as the engine schedules them: declared edges and {@code depends_on}, or
   * listed order when the workflow declares neither. Tools that draw a workflow use these.
   */
  default List<Edge> dependencies() {
    return Dependencies.of(nodes(), edges());
  }

  /** How a state key is merged; REPLACE unless declared otherwise. */
  default StateMerge merge(String key) {
    return stateMerge().getOrDefault(key, StateMerge.REPLACE);
  }

  /** The top-level node {@code id}, or null. */
  default Node node(String id) {
    for (Node n : nodes()) {
      if (n.id().equals(id)) {
        return n;
      }
    }
    return null;
  }
}
