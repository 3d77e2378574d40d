package dev.loopflow.core.graph;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * An edge of the drawn graph between two node or container keys.
 *
 * @param label a router branch's name, a condition's source text as written, {@code next pass} / {@code next item}
 *     on the edge from a loop's body back to its loop node, {@code restart} on a restart edge; null when the edge
 *     has none. Never cut or escaped: drawing it safely is the renderer's job.
 * @param max the bound of a loop-back (a loop edge's {@code maxIterations}, a loop node's bound; null for an
 *     iterator) or of a restart edge (the policy's {@code max_iterations}); null for other edges
 */
public record GraphEdge(String from, String to, String label, Kind kind, Integer max) {
  public GraphEdge {
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
    Objects.requireNonNull(kind, "kind");
  }

  /** What an edge means. */
  public enum Kind {
    /** A forward dependency (a declared edge, {@code depends_on}, listed order, or the way into a nested body). */
    NEXT,
    /** An edge a router takes for one of its branches; the label is the branch. */
    BRANCH,
    /** A loop going round again: a loop edge, or a loop's body back to its loop node. */
    LOOP_BACK,
    /** A restart the workflow's restart policy allows, from a node that may ask for it to a node it may restart. */
    RESTART;

    /** The name in JSON. */
    public String jsonName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** True for the edges that go back (loop-backs and restarts); drawings show them dashed. */
  public boolean back() {
    return kind == Kind.LOOP_BACK || kind == Kind.RESTART;
  }

  Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("from", from);
    m.put("to", to);
    m.put("label", label);
    m.put("kind", kind.jsonName());
    m.put("max", max);
    return m;
  }
}
