/**
 * The LangGraph4j runner of the side-by-side benchmark harness: {@link dev.loopflow.bench.langgraph4j.Runner}
 * performs one of the workloads W1–W6 of {@code bench/PROTOCOL.md} with LangGraph4j, built the way a LangGraph4j
 * user would build it ({@code AgentState} schemas, {@code StateGraph}, conditional edges back to a node, a
 * recursion limit raised to fit N), checks every final state, and prints the protocol's JSON lines on stdout.
 *
 * <p>It is packaged on its own as {@code bench/langgraph4j/target/langgraph4j-runner.jar} so that the peer
 * engine's dependencies never share a class path with loopflow's.
 */
package dev.loopflow.bench.langgraph4j;
