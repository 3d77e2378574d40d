package dev.loopflow.llm.agent;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.store.RunStore;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Runs agent workflows on one engine and keeps every event, with the provider environment a test sets (fake
 * servers' base URLs) and an optional working directory.
 */
final class AgentRuns {
  final Loopflow engine;
  final List<Event> events = new CopyOnWriteArrayList<>();
  final Map<String, String> env = new HashMap<>();
  final Map<String, Object> options = new HashMap<>();
  Path dir;

  AgentRuns() {
    this(RunStore.inMemory());
  }

  AgentRuns(RunStore store) {
    engine = Loopflow.builder().store(store).build();
    env.put("PATH", System.getenv("PATH"));
  }

  AgentRuns env(String name, String value) {
    env.put(name, value);
    return this;
  }

  AgentRuns option(String name, Object value) {
    options.put(name, value);
    return this;
  }

  AgentRuns in(Path directory) {
    this.dir = directory;
    return this;
  }

  Workflow parse(String yaml) {
    return engine.parse(yaml, dir == null ? "agent.yaml" : dir.resolve("agent.yaml").toString());
  }

  RunOptions opts(Map<String, Object> inputs) {
    RunOptions.Builder b = RunOptions.builder().environment(env).inputs(inputs).listener(events::add);
    options.forEach(b::option);
    if (dir != null) {
      b.workingDirectory(dir);
    }
    return b.build();
  }

  RunResult run(String yaml) {
    return run(yaml, Map.of());
  }

  RunResult run(String yaml, Map<String, Object> inputs) {
    return engine.run(parse(yaml), opts(inputs));
  }

  /** The steps the agent journaled, in order. */
  List<Map<String, Object>> steps() {
    return events.stream().filter(Event.NodeStep.class::isInstance).map(e -> ((Event.NodeStep) e).step()).toList();
  }

  long llmCalls() {
    return events.stream().filter(Event.LlmCalled.class::isInstance).count();
  }

  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> toolCalls(RunResult r, String node) {
    return (List<Map<String, Object>>) r.nodes().get(node).get("tool_calls");
  }
}
