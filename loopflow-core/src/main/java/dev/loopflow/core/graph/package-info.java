/**
 * What a workflow looks like as a graph, for tools that draw it or place a run's events on it: the nodes, the
 * bodies of loops as containers, the edges (forward, router branches, loop-backs and restarts), each node with the
 * match path its journaled events and executions carry. {@link dev.loopflow.core.graph.WorkflowGraph#of} builds it
 * from the loaded workflow's execution plan, so a node's path is the position the engine gives it; the records are
 * immutable and {@link dev.loopflow.core.graph.WorkflowGraph#toJson} is the JSON form the web UI reads.
 */
package dev.loopflow.core.graph;
