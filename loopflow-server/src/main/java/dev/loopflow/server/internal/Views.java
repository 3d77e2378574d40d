package dev.loopflow.server.internal;

import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.model.InputSpec;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.core.store.NodeExecution;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The JSON shapes of the API that no other front end prints: a workflow's inputs, a node execution. */
final class Views {
  private Views() {}

  /**
   * A workflow's declared inputs, in declaration order, as a start form needs them:
   * {@code [{"name", "type", "required", "default", "description", "schema"}]} ({@code type} null and {@code schema}
   * set for an input declared as a JSON Schema).
   */
  static List<Map<String, Object>> inputs(Workflow wf) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (InputSpec s : wf.inputs().values()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("name", s.name());
      m.put("type", s.type());
      m.put("required", !s.hasDefault());
      m.put("default", s.hasDefault() ? s.defaultValue() : null);
      m.put("description", s.description());
      m.put("schema", s.schema());
      out.add(m);
    }
    return out;
  }

  /**
   * One journaled node execution: {@code {"node", "path", "loops": [{"loop", "iteration"}], "kind", "status",
   * "attempts", "started_at", "finished_at", "duration_ms", "input", "result", "usage": {"input_tokens",
   * "output_tokens", "cost_usd", "llm_calls"}, "error": {"code", "message"} | null, "state_patch"}}.
   */
  static Map<String, Object> execution(NodeExecution e) {
    Map<String, Object> m = new LinkedHashMap<>();
    NodePosition p = e.position();
    m.put("node", p.nodeId());
    m.put("path", p.path());
    List<Map<String, Object>> loops = new ArrayList<>();
    for (NodePosition.LoopFrame f : p.loops()) {
      Map<String, Object> l = new LinkedHashMap<>();
      l.put("loop", f.loopId());
      l.put("iteration", f.iteration());
      loops.add(l);
    }
    m.put("loops", loops);
    m.put("kind", e.kind());
    m.put("status", e.status() == null ? null : e.status().json());
    m.put("attempts", e.attempts());
    m.put("started_at", e.startedAt() == null ? null : e.startedAt().toString());
    m.put("finished_at", e.finishedAt() == null ? null : e.finishedAt().toString());
    m.put("duration_ms", e.startedAt() == null || e.finishedAt() == null ? null
        : Duration.between(e.startedAt(), e.finishedAt()).toMillis());
    m.put("input", e.input());
    m.put("result", e.result());
    Usage u = e.usage() == null ? Usage.NONE : e.usage();
    Map<String, Object> usage = new LinkedHashMap<>();
    usage.put("input_tokens", u.inputTokens());
    usage.put("output_tokens", u.outputTokens());
    usage.put("cost_usd", u.costUsd());
    usage.put("llm_calls", u.llmCalls());
    m.put("usage", usage);
    if (e.errorCode() == null) {
      m.put("error", null);
    } else {
      Map<String, Object> err = new LinkedHashMap<>();
      err.put("code", e.errorCode());
      err.put("message", e.errorMessage());
      m.put("error", err);
    }
    m.put("state_patch", e.statePatch());
    return m;
  }
}
