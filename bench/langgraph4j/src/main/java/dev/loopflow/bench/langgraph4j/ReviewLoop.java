package dev.loopflow.bench.langgraph4j;

import static org.bsc.langgraph4j.GraphDefinition.END;
import static org.bsc.langgraph4j.GraphDefinition.START;
import static org.bsc.langgraph4j.action.AsyncEdgeAction.edge_async;
import static org.bsc.langgraph4j.action.AsyncNodeAction.node_async;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bsc.langgraph4j.CompiledGraph;
import org.bsc.langgraph4j.GraphStateException;
import org.bsc.langgraph4j.RunnableConfig;
import org.bsc.langgraph4j.StateGraph;
import org.bsc.langgraph4j.state.AgentState;
import org.bsc.langgraph4j.state.Channel;
import org.bsc.langgraph4j.state.Channels;

/**
 * W2: {@code coder} appends a draft through an appender channel, {@code reviewer} approves once there are N, and a
 * conditional edge sends an unapproved review back to {@code coder}.
 */
final class ReviewLoop implements Workload {

  static final String CODER = "coder";
  static final String REVIEWER = "reviewer";

  static final class State extends AgentState {
    static final String DRAFTS = "drafts";
    static final String APPROVED = "approved";
    // Channels.appender is the list reducer LangGraph4j documents; its default must be mutable, the reducer adds to it.
    static final Map<String, Channel<?>> SCHEMA = Map.of(
        DRAFTS, Channels.<String>appender(ArrayList::new),
        APPROVED, Channels.base(() -> false));

    State(Map<String, Object> data) {
      super(data);
    }

    List<String> drafts() {
      return this.<List<String>>value(DRAFTS).orElse(List.of());
    }

    boolean approved() {
      return this.<Boolean>value(APPROVED).orElse(false);
    }
  }

  private final int n;
  private final CompiledGraph<State> graph;
  private final RunnableConfig config = RunnableConfig.builder().build();

  ReviewLoop(int n) throws GraphStateException {
    this.n = n;
    this.graph = new StateGraph<>(State.SCHEMA, State::new)
        .addNode(CODER, node_async(state -> Map.of(State.DRAFTS, "draft " + (state.drafts().size() + 1))))
        .addNode(REVIEWER, node_async(state -> Map.of(State.APPROVED, state.drafts().size() >= n)))
        .addEdge(START, CODER)
        .addEdge(CODER, REVIEWER)
        .addConditionalEdges(
            REVIEWER,
            edge_async(state -> state.approved() ? END : CODER),
            Map.of(CODER, CODER, END, END))
        .compile(Graphs.compileConfig(2L * n).build());
  }

  @Override
  public Measurement run(String label) {
    long start = System.nanoTime();
    State last = graph.invoke(Map.of(), config).orElseThrow(() -> new IllegalStateException("no final state"));
    long wall = System.nanoTime() - start;

    List<String> drafts = last.drafts();
    Workload.check(last.approved(), "not approved after %d drafts", drafts.size());
    Workload.check(drafts.size() == n, "%d drafts, expected %d", drafts.size(), n);
    for (int i = 0; i < drafts.size(); i++) {
      String expected = "draft " + (i + 1);
      Workload.check(expected.equals(drafts.get(i)), "drafts[%d] is '%s', expected '%s'", i, drafts.get(i), expected);
    }
    return Measurement.of(wall, drafts.size());
  }
}
