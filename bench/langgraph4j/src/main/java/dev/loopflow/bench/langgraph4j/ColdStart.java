package dev.loopflow.bench.langgraph4j;

import static org.bsc.langgraph4j.GraphDefinition.END;
import static org.bsc.langgraph4j.GraphDefinition.START;
import static org.bsc.langgraph4j.action.AsyncNodeAction.node_async;

import java.util.List;
import java.util.Map;
import org.bsc.langgraph4j.RunnableConfig;
import org.bsc.langgraph4j.StateGraph;
import org.bsc.langgraph4j.state.AgentState;
import org.bsc.langgraph4j.state.Channel;
import org.bsc.langgraph4j.state.Channels;

/**
 * W6: builds, compiles and runs {@code a -> b -> c} once. Unlike the other workloads the building is part of the
 * measurement, since what W6 measures is a process that does nothing else.
 */
final class ColdStart implements Workload {

  static final List<String> KEYS = List.of("a", "b", "c");

  static final class State extends AgentState {
    static final Map<String, Channel<?>> SCHEMA = Map.of(
        "a", Channels.base(() -> ""),
        "b", Channels.base(() -> ""),
        "c", Channels.base(() -> ""));

    State(Map<String, Object> data) {
      super(data);
    }
  }

  @Override
  public Measurement run(String label) throws Exception {
    long start = System.nanoTime();
    var graph = new StateGraph<>(State.SCHEMA, State::new);
    for (String key : KEYS) {
      graph.addNode(key, node_async(state -> Map.of(key, "set by " + key)));
    }
    graph.addEdge(START, KEYS.get(0));
    for (int i = 1; i < KEYS.size(); i++) {
      graph.addEdge(KEYS.get(i - 1), KEYS.get(i));
    }
    graph.addEdge(KEYS.get(KEYS.size() - 1), END);
    State last = graph.compile(Graphs.compileConfig(KEYS.size()).build())
        .invoke(Map.of(), RunnableConfig.builder().build())
        .orElseThrow(() -> new IllegalStateException("no final state"));
    long wall = System.nanoTime() - start;

    long set = KEYS.stream().filter(key -> ("set by " + key).equals(last.value(key).orElse(null))).count();
    Workload.check(set == KEYS.size(), "%d of %d keys set: %s", set, KEYS.size(), last.data());
    return Measurement.of(wall, set);
  }
}
