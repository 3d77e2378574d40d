package dev.loopflow.core.graph;

/** Something a journaled position can belong to: a node, a container (a loop's body) or the restart loop. */
public sealed interface GraphElement permits GraphNode, GraphContainer, GraphRestart {
  /** The match path of the element's own events and executions; null when it has none (start, end). */
  String path();
}
