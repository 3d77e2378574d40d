package dev.loopflow.core.run;

import dev.loopflow.core.spi.Usage;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The outcome of a run, identical to what {@code loopflow run --json} prints (SPEC §9). {@code nodes} holds
 * every node of the workflow in definition order, each with at least its {@code status}.
 */
public record RunResult(String runId, RunStatus status, Object output, Map<String, Object> state,
    Map<String, Map<String, Object>> nodes, Usage usage, RunError error, Pause pause) {

  /** Where a paused run waits (a position path such as {@code fix[2].gate}) and what it asks the person. */
  public record Pause(String at, String message) {}

  public RunResult(String runId, RunStatus status, Object output, Map<String, Object> state,
      Map<String, Map<String, Object>> nodes, Usage usage, RunError error) {
    this(runId, status, output, state, nodes, usage, error, null);
  }

  /** The SPEC §9 JSON object as plain maps, ready for Jackson. */
  public Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("run_id", runId);
    m.put("status", status.json());
    m.put("output", output);
    m.put("state", state);
    m.put("nodes", nodes);
    Map<String, Object> u = new LinkedHashMap<>();
    u.put("input_tokens", usage.inputTokens());
    u.put("output_tokens", usage.outputTokens());
    u.put("cost_usd", usage.costUsd());
    u.put("llm_calls", usage.llmCalls());
    m.put("usage", u);
    if (error == null) {
      m.put("error", null);
    } else {
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("code", error.code());
      e.put("message", error.message());
      e.put("node", error.node());
      if (error.path() != null && !error.path().equals(error.node())) {
        e.put("path", error.path());
      }
      e.putAll(error.details());
      m.put("error", e);
    }
    return m;
  }
}
