package dev.loopflow.core.graph;

import dev.loopflow.core.model.RestartPolicy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The restart loop of a workflow with a restart policy (every pipeline has one). Such a workflow runs its top level
 * as the passes of one loop, so every position in it starts with {@code restart[k].}; the paths of the graph's
 * nodes start with {@code restart.} accordingly, and the loop's own events have the path {@code restart}.
 *
 * @param enabled whether restarts may happen at all (a pipeline without {@code restart_policy.enabled} still runs
 *     under the loop, once)
 * @param targets the nodes a restart edge leads to: {@code restartable_stages}, or when unset the nodes that depend
 *     on nothing; empty when restarts are off
 * @param triggers the nodes a restart edge leaves from: {@code restart_triggers}, or when unset the nodes nothing
 *     depends on; empty when restarts are off
 * @param maxIterations the policy's bound on iterations, the first included
 */
public record GraphRestart(boolean enabled, List<String> targets, List<String> triggers, int maxIterations)
    implements GraphElement {
  public GraphRestart {
    targets = List.copyOf(targets);
    triggers = List.copyOf(triggers);
  }

  /** The restart loop's own events ({@code loop.started}, ...) have this path. */
  @Override
  public String path() {
    return RestartPolicy.LOOP_ID;
  }

  Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("targets", targets);
    m.put("max_iterations", maxIterations);
    m.put("enabled", enabled);
    m.put("triggers", triggers);
    m.put("path", path());
    return m;
  }
}
