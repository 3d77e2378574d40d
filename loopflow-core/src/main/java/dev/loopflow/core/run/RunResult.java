package dev.loopflow.core.run;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.expr.Values;
import dev.loopflow.core.spi.Usage;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The outcome of a run, identical to what {@code loopflow run --json} prints. {@code nodes} holds every node of
 * the workflow in definition order, each with at least its {@code status}; {@code waiting} is set exactly when the
 * run is paused. Immutable: {@code output}, {@code state} and {@code nodes} are frozen copies, never shared with
 * the engine or a store.
 */
public record RunResult(String runId, RunStatus status, Object output, Map<String, Object> state,
    Map<String, Map<String, Object>> nodes, Usage usage, RunError error, Waiting waiting,
    Map<String, Object> pipeline, Map<String, Object> forkedFrom) {

  @SuppressWarnings("unchecked")
  public RunResult {
    pipeline = pipeline == null ? null : (Map<String, Object>) Values.frozen(pipeline);
    forkedFrom = forkedFrom == null ? null : (Map<String, Object>) Values.frozen(forkedFrom);
    Objects.requireNonNull(status, "status");
    output = Values.frozen(output);
    state = state == null ? Map.of() : (Map<String, Object>) Values.frozen(state);
    Map<String, Map<String, Object>> n = new LinkedHashMap<>();
    if (nodes != null) {
      nodes.forEach((k, v) -> n.put(k, (Map<String, Object>) Values.frozen(v)));
    }
    nodes = Collections.unmodifiableMap(n);
    usage = usage == null ? Usage.NONE : usage;
  }

  public RunResult(String runId, RunStatus status, Object output, Map<String, Object> state,
      Map<String, Map<String, Object>> nodes, Usage usage, RunError error) {
    this(runId, status, output, state, nodes, usage, error, null, null, null);
  }

  public RunResult(String runId, RunStatus status, Object output, Map<String, Object> state,
      Map<String, Map<String, Object>> nodes, Usage usage, RunError error, Waiting waiting,
      Map<String, Object> pipeline) {
    this(runId, status, output, state, nodes, usage, error, waiting, pipeline, null);
  }

  public RunResult(String runId, RunStatus status, Object output, Map<String, Object> state,
      Map<String, Map<String, Object>> nodes, Usage usage, RunError error, Waiting waiting) {
    this(runId, status, output, state, nodes, usage, error, waiting, null, null);
  }

  /**
   * This result with the {@code pipeline} object of a run with a restart policy: {@code iterations_executed},
   * {@code validation_retries} and {@code restart_requests} (each with {@code requester_stage_id},
   * {@code target_stage_id}, {@code reason}, {@code iteration}, {@code success} and {@code error}).
   */
  public RunResult withPipeline(Map<String, Object> p) {
    return new RunResult(runId, status, output, state, nodes, usage, error, waiting, p, forkedFrom);
  }

  /**
   * This result of a fork with where it comes from: {@code run_id} and {@code at} (the fork point), and
   * {@code reused_usage}, what the reused part cost in the origin (not in this run's {@code usage}).
   */
  public RunResult withForkedFrom(Map<String, Object> f) {
    return new RunResult(runId, status, output, state, nodes, usage, error, waiting, pipeline, f);
  }

  /**
   * This result when the run did not fail and was not cancelled (it completed, or it is paused: see
   * {@link #waiting()}); otherwise throws the exception it ended with, typed as the engine raised it and rebuilt from
   * {@link #error()} (so the same for a result read back from a store): a loop edge past its bound throws
   * {@link dev.loopflow.core.error.LoopIterationExceededException}, another loop past its bound
   * {@link dev.loopflow.core.error.MaxIterationsExceededException}, each with the loop, its bound and the passes that ran;
   * any other error a {@link dev.loopflow.core.error.LoopflowException} with its code and details.
   *
   * @throws dev.loopflow.core.error.LoopflowException the run's error, for a failed or cancelled run
   */
  public RunResult orThrow() {
    if (status == RunStatus.FAILED || status == RunStatus.CANCELLED) {
      if (error == null) {
        // Never silent: a failed result without its error is itself an engine fault.
        throw new LoopflowException(ErrorCode.INTERNAL_ERROR, "run " + runId
            + " " + status.json() + " without an error");
      }
      throw error.toException();
    }
    return this;
  }

  /**
   * The JSON object as plain maps, ready for Jackson: {@code run_id, status, output, state, nodes, usage, error}, and
   * for a paused run {@code waiting} (see {@link Waiting#toJson()}), for a fork {@code forked_from}.
   */
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
    if (waiting != null) {
      m.put("waiting", waiting.toJson());
    }
    if (pipeline != null) {
      m.put("pipeline", pipeline);
    }
    if (forkedFrom != null) {
      m.put("forked_from", forkedFrom);
    }
    return m;
  }
}
