package dev.loopflow.bench.langgraph4j;

import static org.bsc.langgraph4j.GraphDefinition.END;
import static org.bsc.langgraph4j.GraphDefinition.START;
import static org.bsc.langgraph4j.action.AsyncEdgeAction.edge_async;
import static org.bsc.langgraph4j.action.AsyncNodeAction.node_async;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.bsc.langgraph4j.CompiledGraph;
import org.bsc.langgraph4j.GraphStateException;
import org.bsc.langgraph4j.RunnableConfig;
import org.bsc.langgraph4j.StateGraph;
import org.bsc.langgraph4j.state.AgentState;
import org.bsc.langgraph4j.state.Channel;
import org.bsc.langgraph4j.state.Channels;

/**
 * W4: {@code --runs} concurrent coder/reviewer loops, each node one chat completion through LangChain4j's
 * {@link OpenAiChatModel}; a run ends after N reviews. One repetition is the whole batch.
 *
 * <p>{@code CompiledGraph.invoke} drives the graph on the calling thread and the nodes call the blocking
 * {@link ChatModel#chat(String)}, so each run gets a virtual thread: the calls park instead of pinning platform
 * threads, and all runs are in flight together.
 *
 * <p>The model keeps LangChain4j's stock HTTP client, the JDK {@code HttpClient}: it has no per-host connection
 * cap (its keep-alive pool is unbounded and every in-flight HTTP/1.1 request has a connection of its own), so all
 * {@code --runs} calls reach the server at once. What can break a large batch is a server that closes keep-alive
 * connections beyond a cap, as a JDK {@code HttpServer} does by default past
 * {@code sun.net.httpserver.maxIdleConnections} (200): the client then reuses a connection the server has just
 * closed, the call fails, and with retries off the repetition fails instead of silently slowing down. The test kit's
 * fake server lifts that cap (its {@code LoopbackHttpServer}), so a failed repetition here is the client's or the
 * engine's.
 */
final class LlmReviewLoop implements Workload {

  static final String CODER = "coder";
  static final String REVIEWER = "reviewer";
  // Generous: the whole batch's calls may queue behind one another on a 2-core machine, and a timeout would
  // measure the client's patience rather than the engine.
  static final Duration TIMEOUT = Duration.ofSeconds(60);

  static final class State extends AgentState {
    static final String CODE = "code";
    static final String REVIEW = "review";
    static final String CODER_CALLS = "coder_calls";
    static final String REVIEWS = "reviews";
    static final Map<String, Channel<?>> SCHEMA = Map.of(
        CODE, Channels.base(() -> ""),
        REVIEW, Channels.base(() -> ""),
        CODER_CALLS, Channels.base(() -> 0),
        REVIEWS, Channels.base(() -> 0));

    State(Map<String, Object> data) {
      super(data);
    }

    String code() {
      return this.<String>value(CODE).orElse("");
    }

    String review() {
      return this.<String>value(REVIEW).orElse("");
    }

    int coderCalls() {
      return this.<Integer>value(CODER_CALLS).orElse(0);
    }

    int reviews() {
      return this.<Integer>value(REVIEWS).orElse(0);
    }
  }

  private final int loops;
  private final int runs;
  private final CompiledGraph<State> graph;
  private final RunnableConfig config = RunnableConfig.builder().build();

  LlmReviewLoop(int loops, int runs, String baseUrl) throws GraphStateException {
    this.loops = loops;
    this.runs = runs;
    // One model, shared by every run, as an application would hold it: it owns the HTTP client and its connections.
    ChatModel model = OpenAiChatModel.builder()
        .baseUrl(baseUrl)
        .apiKey("bench")
        .modelName("bench")
        .timeout(TIMEOUT)
        // A retried call would hide a failure inside a slower but "successful" repetition.
        .maxRetries(0)
        .build();
    this.graph = new StateGraph<>(State.SCHEMA, State::new)
        .addNode(CODER, node_async(state -> Map.of(
            State.CODE, model.chat("Write draft " + (state.coderCalls() + 1) + " of the function."),
            State.CODER_CALLS, state.coderCalls() + 1)))
        .addNode(REVIEWER, node_async(state -> Map.of(
            State.REVIEW, model.chat("Review this draft:\n" + state.code()),
            State.REVIEWS, state.reviews() + 1)))
        .addEdge(START, CODER)
        .addEdge(CODER, REVIEWER)
        .addConditionalEdges(
            REVIEWER,
            edge_async(state -> state.reviews() < loops ? CODER : END),
            Map.of(CODER, CODER, END, END))
        .compile(Graphs.compileConfig(2L * loops).build());
  }

  @Override
  public Measurement run(String label) throws Exception {
    List<State> finals = new ArrayList<>(runs);
    long start;
    long wall;
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<State>> pending = new ArrayList<>(runs);
      start = System.nanoTime();
      for (int i = 0; i < runs; i++) {
        pending.add(threads.submit(() ->
            graph.invoke(Map.of(), config).orElseThrow(() -> new IllegalStateException("no final state"))));
      }
      for (Future<State> run : pending) {
        finals.add(await(run));
      }
      wall = System.nanoTime() - start;
    }

    long calls = 0;
    for (State last : finals) {
      Workload.check(last.reviews() == loops, "a run ended after %d reviews, expected %d", last.reviews(), loops);
      Workload.check(last.coderCalls() == loops, "a run made %d coder calls, expected %d", last.coderCalls(), loops);
      Workload.check(!last.code().isEmpty() && !last.review().isEmpty(), "a run stored no reply text: %s",
          last.data());
      calls += last.coderCalls() + last.reviews();
    }
    return Measurement.of(wall, calls);
  }

  private static State await(Future<State> run) throws Exception {
    try {
      return run.get();
    } catch (ExecutionException e) {
      // The run's own exception says what went wrong (HTTP status, timeout); the wrapper adds nothing.
      if (e.getCause() instanceof Exception cause) {
        throw cause;
      }
      throw e;
    }
  }
}
