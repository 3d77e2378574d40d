package dev.loopflow.core.run;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where a node's status goes in its result map, the same in templates ({@code <id>.status}), {@code run --json}
 * and {@code show}: under {@code status}, unless the node kind's own result has a {@code status} field (the http
 * node's HTTP status code), which then keeps that name, and the node's status goes under {@code node_status}.
 * A result that has {@code node_status} therefore always means the second case.
 */
public final class NodeResults {
  public static final String STATUS = "status";
  public static final String NODE_STATUS = "node_status";

  private NodeResults() {}

  /**
   * Adds the node's status to a result being built from the kind's own fields (which hold no node status yet).
   */
  public static void putStatus(Map<String, Object> fields, NodeStatus status) {
    fields.put(fields.containsKey(STATUS) ? NODE_STATUS : STATUS, status.json());
  }

  /** The node status recorded in a result ("completed", ...), or null. */
  public static Object status(Map<String, Object> result) {
    return result.containsKey(NODE_STATUS) ? result.get(NODE_STATUS) : result.get(STATUS);
  }

  /**
   * A copy of a recorded result with its node status set to {@code status}, status fields first: what
   * {@code run --json} and {@code show} report for a node.
   */
  public static Map<String, Object> report(Map<String, Object> result, NodeStatus status) {
    Map<String, Object> out = new LinkedHashMap<>();
    boolean own = result != null && result.containsKey(NODE_STATUS);
    out.put(STATUS, own ? result.get(STATUS) : status.json());
    if (own) {
      out.put(NODE_STATUS, status.json());
    }
    if (result != null) {
      result.forEach((k, v) -> {
        if (!k.equals(STATUS) && !k.equals(NODE_STATUS)) {
          out.put(k, v);
        }
      });
    }
    return out;
  }
}
