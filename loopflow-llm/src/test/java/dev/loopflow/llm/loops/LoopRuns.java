package dev.loopflow.llm.loops;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.testkit.FakeOpenAiServer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Runs loop workflows on one engine (its in-memory store keeps the journal a resume needs) and records every
 * event of every run and resume, so tests can look at body positions, LLM calls and loop events.
 */
final class LoopRuns {
  final Loopflow engine = Loopflow.create();
  final List<Event> events = new CopyOnWriteArrayList<>();
  private Path workingDirectory;
  private FakeOpenAiServer server;
  private final Map<String, Object> inputs = new HashMap<>();

  /** Shell nodes (and until commands) run in {@code dir}. */
  LoopRuns in(Path dir) {
    this.workingDirectory = dir;
    return this;
  }

  /** LLM nodes on the openai provider talk to {@code s} instead of being mocked. */
  LoopRuns against(FakeOpenAiServer s) {
    this.server = s;
    return this;
  }

  LoopRuns input(String name, Object value) {
    inputs.put(name, value);
    return this;
  }

  Workflow parse(String yaml) {
    return engine.parse(yaml, "t.yaml");
  }

  RunOptions options() {
    return options(events::add);
  }

  RunOptions options(Consumer<Event> listener) {
    RunOptions.Builder b = RunOptions.builder().inputs(inputs).listener(listener::accept);
    if (server == null) {
      b.option("llm.mock", true);
    } else {
      Map<String, String> env = new HashMap<>();
      env.put("OPENAI_BASE_URL", server.baseUrl());
      env.put("OPENAI_API_KEY", "sk-test");
      env.put("PATH", System.getenv("PATH"));
      b.environment(env);
    }
    if (workingDirectory != null) {
      b.workingDirectory(workingDirectory);
    }
    return b.build();
  }

  RunResult run(String yaml) {
    return engine.run(parse(yaml), options());
  }

  RunResult run(Workflow wf) {
    return engine.run(wf, options());
  }

  RunResult resume(Workflow wf, RunResult paused, String answer) {
    RunHandle h = engine.resume(wf, paused.runId(), answer, options());
    try {
      return h.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while waiting for the resumed run", e);
    }
  }

  // ---------------------------------------------------------------------------------------------------------
  // Looking at what happened

  <T extends Event> List<T> all(Class<T> type) {
    return events.stream().filter(type::isInstance).map(type::cast).toList();
  }

  /** Position paths of completed node executions, in event order, e.g. {@code fix[2].implement}. */
  List<String> completed() {
    return all(Event.NodeCompleted.class).stream().map(e -> e.node().path()).toList();
  }

  /** Position paths of started node executions, in event order. */
  List<String> started() {
    return all(Event.NodeStarted.class).stream().map(e -> e.node().path()).toList();
  }

  /** Position paths of the nodes that made an LLM call, one entry per call. */
  List<String> llmCalls() {
    return all(Event.LlmCalled.class).stream().map(e -> e.node().path()).toList();
  }

  /** The output preview of the completed execution at {@code path}. */
  String preview(String path) {
    return all(Event.NodeCompleted.class).stream().filter(e -> e.node().path().equals(path))
        .map(Event.NodeCompleted::outputPreview).reduce((a, b) -> b)
        .orElseThrow(() -> new AssertionError("no completed execution at " + path + "; completed: " + completed()));
  }

  void clearEvents() {
    events.clear();
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> usageOf(RunResult r, String node) {
    return (Map<String, Object>) r.nodes().get(node).get("usage");
  }
}
