package dev.loopflow.bench.langgraph4j;

import static org.bsc.langgraph4j.GraphDefinition.END;
import static org.bsc.langgraph4j.GraphDefinition.START;
import static org.bsc.langgraph4j.action.AsyncEdgeAction.edge_async;
import static org.bsc.langgraph4j.action.AsyncNodeAction.node_async;

import java.util.Map;
import org.bsc.langgraph4j.CompiledGraph;
import org.bsc.langgraph4j.GraphStateException;
import org.bsc.langgraph4j.RunnableConfig;
import org.bsc.langgraph4j.StateGraph;
import org.bsc.langgraph4j.state.AgentState;
import org.bsc.langgraph4j.state.Channel;
import org.bsc.langgraph4j.state.Channels;

/** W1: {@code increment} loops back to itself through a conditional edge until {@code count} reaches N. */
final class CounterLoop implements Workload {

  static final String INCREMENT = "increment";

  static final class State extends AgentState {
    static final String COUNT = "count";
    static final Map<String, Channel<?>> SCHEMA = Map.of(COUNT, Channels.base(() -> 0));

    State(Map<String, Object> data) {
      super(data);
    }

    int count() {
      return this.<Integer>value(COUNT).orElse(0);
    }
  }

  private final int n;
  private final CompiledGraph<State> graph;
  private final RunnableConfig config = RunnableConfig.builder().build();

  CounterLoop(int n) throws GraphStateException {
    this.n = n;
    this.graph = graph(n).compile(Graphs.compileConfig(n).build());
  }

  /** The uncompiled graph, shared with W3, which compiles it with a checkpoint saver. */
  static StateGraph<State> graph(int n) throws GraphStateException {
    return new StateGraph<>(State.SCHEMA, State::new)
        .addNode(INCREMENT, node_async(state -> Map.of(State.COUNT, state.count() + 1)))
        .addEdge(START, INCREMENT)
        .addConditionalEdges(
            INCREMENT,
            edge_async(state -> state.count() < n ? INCREMENT : END),
            Map.of(INCREMENT, INCREMENT, END, END));
  }

  /** The protocol's start state, spelled out rather than left to the schema's default. */
  static Map<String, Object> input() {
    return Map.of(State.COUNT, 0);
  }

  @Override
  public Measurement run(String label) {
    long start = System.nanoTime();
    State last = graph.invoke(input(), config).orElseThrow(() -> new IllegalStateException("no final state"));
    long wall = System.nanoTime() - start;
    Workload.check(last.count() == n, "count is %d, expected %d", last.count(), n);
    return Measurement.of(wall, last.count());
  }
}
