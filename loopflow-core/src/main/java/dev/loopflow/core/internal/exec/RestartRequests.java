package dev.loopflow.core.internal.exec;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.model.RestartPolicy;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RestartRequest;
import dev.loopflow.core.run.RestartResponse;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.secrets.Redactor;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunCommand;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Restart requests sent to a run from outside it: appended to the run's durable command bus, decided by the engine
 * executing the run, answered on the bus. This is the sending side; the run's {@link RestartLoop} decides.
 *
 * <p>What must stay true: every request is answered exactly once, by the run or, when the run ended before it could
 * see the request, here (the first answer wins).
 */
public final class RestartRequests {
  private RestartRequests() {}

  /** Appends a restart request to the run's command bus; see {@code Loopflow.requestRestart}. */
  public static long request(RunStore store, Clock clock, Map<String, String> environment,
      Function<RunRecord, Workflow> journaledWorkflow, String runId, RestartRequest request) {
    RunRecord run = store.findRun(runId).orElseThrow(() -> new LoopflowException(ErrorCode.USAGE,
        "no run '" + runId + "' in this store"));
    if (run.status().isTerminal()) {
      throw new LoopflowException(ErrorCode.USAGE, "run '" + runId + "' has ended (" + run.status().json()
          + "); a restart request needs a running or paused run");
    }
    // Masked with what this process knows (its environment's credentials, token shapes): the run's own redactor
    // is in the process executing it.
    Redactor mask = Redactor.ofEnvironment(environment);
    RunCommand c = store.appendCommand(runId, "restart", mask.map(request.toMap()),
        clock.instant());
    Workflow wf = journaledWorkflow.apply(run);
    if (wf != null && wf.restartPolicy() == null) {
      store.respondCommand(runId, c.seq(), mask.map(new RestartResponse(c.seq(),
          request.targetStageId(), false, ErrorCode.RESTART_VALIDATION_FAILED, "restart validation failed: "
              + "workflow '" + wf.name() + "' has no restart_policy", null, 0).toMap()), clock.instant());
      return c.seq();
    }
    // The run may have ended between the look above and the append: it answers what is pending after it records
    // its end, so a request appended before that record is answered by the run, and one appended after is answered
    // here (the first answer wins). A failed run keeps its requests for its resume.
    RunRecord now = store.findRun(runId).orElse(run);
    if (now.status() == RunStatus.COMPLETED || now.status() == RunStatus.CANCELLED) {
      store.respondCommand(runId, c.seq(), mask.map(RestartResponse.runEnded(c.seq(),
          request.targetStageId(), now.status(), 0).toMap()), clock.instant());
    }
    return c.seq();
  }

  /**
   * The engine's answer to restart request {@code seq} of the run, once it decided. An accepted restart's
   * {@code output} is the output of the target stage in the iteration the restart started, as text (compact JSON
   * for a structured one), once that stage has completed; until then (and for a refused request) it is null.
   */
  public static Optional<RestartResponse> response(RunStore store, String runId, long seq) {
    for (RunCommand c : store.commands(runId)) {
      if (c.seq() == seq && c.response() != null) {
        RestartResponse r = RestartResponse.fromMap(c.response());
        return Optional.of(r.success() && r.output() == null ? withTargetOutput(store, runId, r) : r);
      }
    }
    return Optional.empty();
  }

  /**
   * The response with the output of its target's execution in the iteration the restart started, read from the
   * journal: the response itself is written when the restart is decided, before the target runs again.
   */
  private static RestartResponse withTargetOutput(RunStore store, String runId, RestartResponse r) {
    NodePosition at = new NodePosition(List.of(
        new NodePosition.LoopFrame(RestartPolicy.LOOP_ID,
            r.iteration())), r.targetStageId());
    Object output = null;
    boolean found = false;
    for (NodeExecution e : store.nodeExecutions(runId)) {
      // The latest completed execution at that position wins (a resumed run may have journaled it again).
      if (e.position().equals(at) && e.status() == NodeStatus.COMPLETED
          && e.result() != null) {
        output = e.result().get("output");
        found = true;
      }
    }
    if (!found) {
      return r;
    }
    String text = output == null ? "" : output instanceof String str ? str : Json.compact(
        output);
    return new RestartResponse(r.requestSeq(), r.targetStageId(), true, null, null, text,
        r.iteration());
  }
}
