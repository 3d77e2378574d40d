package dev.loopflow.core.internal.exec;

import dev.loopflow.core.model.RestartPolicy;
import dev.loopflow.core.store.NodeExecution;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How the restart decisions of a drain point read back from the journal: one execution per drain point, its result's
 * {@code decisions} a list of maps (the request, its {@code request_seq}, the response). The restart loop replays
 * them; a resumed run's replay learns which requests were decided already.
 */
final class RestartDecisions {
  private RestartDecisions() {}

  /** The decisions journaled in {@code row}; none when it holds none. */
  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> of(NodeExecution row) {
    if (row.result() != null && row.result().get("decisions") instanceof List<?> l) {
      List<Map<String, Object>> out = new ArrayList<>();
      for (Object o : l) {
        if (o instanceof Map<?, ?> m) {
          out.add((Map<String, Object>) m);
        }
      }
      return out;
    }
    return List.of();
  }

  /** The seqs of requests whose decisions an earlier attempt journaled. */
  static Set<Long> decidedIn(List<NodeExecution> rows) {
    Set<Long> out = new HashSet<>();
    for (NodeExecution row : rows) {
      if (RestartPolicy.decidedAfter(row.kind(), row.position().nodeId()) != null) {
        for (Map<String, Object> d : of(row)) {
          if (d.get("request_seq") instanceof Number n) {
            out.add(n.longValue());
          }
        }
      }
    }
    return out;
  }
}
