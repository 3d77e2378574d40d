package dev.loopflow.core.internal.exec;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.MaxIterationsExceededException;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.internal.plan.ExecGraph;
import dev.loopflow.core.model.Budget;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.ExitReason;
import dev.loopflow.core.model.RestartPolicy;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RestartRequest;
import dev.loopflow.core.run.RestartResponse;
import dev.loopflow.core.run.RunError;
import dev.loopflow.core.spi.SharedMemory;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunCommand;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/*
 * Design notes.
 *
 * A workflow with a restart policy (every pipeline has one) runs its top level as the passes of one loop on the
 * loop core: pass k is restart iteration k, its nodes are journaled under restart[k], and the core's events,
 * budgets, cancellation and resume apply as to any loop. A restart is a runtime back edge: after each top-level
 * node completes, the pass's coordinator asks this loop's gate, which drains the run's command bus without
 * blocking and decides each pending request under the policy, in a fixed order of checks (target exists, not
 * forward, restartable, requester authorized, cooldown, iteration bound). An accepted request ends the pass (the
 * nodes running finish, nothing new starts) and the next pass starts at the target: the nodes that are not the
 * target or downstream of it and had settled are carried into the new pass with their results, and the rest run
 * again. With preserve_outputs the previous outputs stay readable until replaced (the pass reads through to the
 * top frame); without, they are removed from the target on.
 *
 * What must stay true for resume: every decision is journaled (one execution per drain point, at the position
 * restart[k].<node>~restart) before the requester is answered, and a resumed run that restores the node finds
 * the row and replays its decisions instead of deciding again; side effects of a decision (clearing shared
 * memory) happen before the row is written, so a crash repeats them at worst (they are idempotent). The
 * pipeline summary of the result is computed from these rows and the stage rows alone (summary()), so the
 * engine and `loopflow show` cannot disagree.
 */
final class RestartLoop extends LoopFront {
  /** The journal kind of a drain point's decisions. */
  static final String KIND = RestartPolicy.DECISIONS_KIND;

  private final RunContext ctx;
  private final Recorder recorder;
  private final RestartPolicy policy;
  /** Per target: when it was last restarted (cooldown). */
  private final Map<String, Instant> lastRestart = new HashMap<>();
  /** The accepted restart that ends the current pass; null while none. */
  private Accepted pending;
  /** The accepted restart that started the current pass; null on the first. */
  private Accepted current;
  private Set<String> carry = Set.of();
  /** Position paths of the top-level executions that completed in this attempt (restored ones included). */
  private final Set<String> completedPaths = new HashSet<>();
  private RunError failure;

  private record Accepted(RestartRequest request, long seq, Set<String> rerun, Set<String> carry) {}

  RestartLoop(RunContext ctx, Recorder recorder, Frame top, ExecGraph graph, RestartPolicy policy) {
    super(ctx, RestartPolicy.LOOP_ID, policy.isPipeline() ? "pipeline" : "restart", policy.maxIterations(),
        Edge.OnExhausted.CONTINUE, new NodePosition(List.of(), RestartPolicy.LOOP_ID), top, graph, Budget.NONE);
    this.ctx = ctx;
    this.recorder = recorder;
    this.policy = policy;
  }

  // ---------------------------------------------------------------------------------------------------------
  // The loop front

  @Override
  ExitReason exitTest(State st) {
    return pending != null ? null : ExitReason.CONDITION_MET;
  }

  @Override
  boolean beforeNextPass(State st) {
    current = pending;
    pending = null;
    carry = current == null ? Set.of() : current.carry();
    ctx.restartIteration = st.iteration + 1;
    return true;
  }

  /** Before pass {@code body} runs: the carried nodes enter it settled, with the results they had. */
  @Override
  void preparePass(State st, Frame body) {
    ctx.restartIteration = st.iteration;
    for (String id : carry) {
      NodeStatus s = outer.ownStatus(id);
      Map<String, Object> r = outer.ownResult(id);
      if (s == NodeStatus.COMPLETED && r != null) {
        body.complete(id, new LinkedHashMap<>(r), NodeStatus.COMPLETED);
      } else if (s != null) {
        body.mark(id, s, r == null ? null : new LinkedHashMap<>(r));
      }
    }
  }

  @Override
  Set<String> carried(State st) {
    return carry;
  }

  @Override
  LevelGate gate(State st) {
    return (unitId, frame) -> afterCompleted(st, unitId, frame);
  }

  @Override
  Map<String, Object> vars(State st) {
    Map<String, Object> v = new LinkedHashMap<>(super.vars(st));
    Map<String, Object> r = new LinkedHashMap<>();
    if (current != null) {
      r.put("requester_stage_id", current.request().requesterStageId());
      r.put("target_stage_id", current.request().targetStageId());
      r.put("reason", current.request().reason());
      r.put("parameters", current.request().parameters());
    }
    v.put("restart", r);
    return Collections.unmodifiableMap(v);
  }

  @Override
  Object passOutput(State st, Frame body) {
    return lastOutput(body);
  }

  @Override
  void afterPass(State st, Frame body) {
    body.copyUp();
    if (pending != null && !policy.preserveOutputs()) {
      outer.forget(pending.rerun());
    }
  }

  @Override
  void stoppedPass(State st, Frame body) {
    body.copyUp();
  }

  @Override
  ExitReason failureReason(RunError error) {
    return error.errorCode() == ErrorCode.MAX_ITERATIONS_EXCEEDED && error == failure ? ExitReason.MAX_ITERATIONS
        : super.failureReason(error);
  }

  @Override
  LoopflowException exhausted(State st) {
    return new MaxIterationsExceededException(construct, id, max, "workflow terminated", pos);
  }

  /** The details every exhausted bound carries, so a refused restart's error reads back as the typed exception. */
  private Map<String, Object> exhaustedDetails(int passes) {
    Map<String, Object> d = new LinkedHashMap<>(exhausted(null).details());
    d.put("passes", passes);
    return d;
  }

  // ---------------------------------------------------------------------------------------------------------
  // The gate: after each top-level node of a pass

  private LevelResult afterCompleted(State st, String unitId, Frame frame) {
    // Once this pass ends (a restart accepted, the run failing), what arrives is decided in the next pass. A region
    // (the nodes a loop edge repeats) is a decision point too: the requests of the nodes inside it are decided when
    // it completes.
    if (pending != null || failure != null || graph.unit(unitId) == null || carry.contains(unitId)) {
      return null;
    }
    completedPaths.add(frame.position(unitId).path());
    if (ctx.stopRequested) {
      // The run is stopping (cancelled, failed, or a journal write was refused): nothing more is decided, so no
      // decision is journaled after a node whose own completion may not be.
      return null;
    }
    NodePosition at = frame.position(RestartPolicy.decisionsId(unitId));
    NodeExecution journaled = ctx.replay.row(at);
    if (journaled != null) {
      return replay(st, unitId, journaled);
    }
    if (graph.unit(unitId) instanceof ExecGraph.NodeUnit) {
      publishStructured(frame, unitId, st.iteration);
    }
    // Cheap unless something was appended (a version token read): a request sent before this node completed is
    // decided now, not at a later node depending on when the lease thread last looked.
    ctx.commands.poll();
    List<RunCommand> drained = ctx.commands.drain();
    if (drained.isEmpty()) {
      return null;
    }
    List<Map<String, Object>> decisions = new ArrayList<>();
    List<RestartResponse> responses = new ArrayList<>();
    LevelResult end = null;
    List<RunCommand> later = new ArrayList<>();
    for (RunCommand c : drained) {
      if (!RunCommands.RESTART.equals(c.kind())) {
        continue;
      }
      if (end != null || !originCompleted(c)) {
        later.add(c); // decided after the next node, in the new pass
        continue;
      }
      RestartRequest req = RestartRequest.fromMap(c.payload());
      recorder.restartRequested(c.seq(), req, policy.restartTopic());
      Instant now = ctx.clock.instant();
      Check refused = check(req, unitId, st.iteration, now);
      RestartResponse resp;
      if (refused == null) {
        Set<String> rerun = downstream(req.targetStageId());
        Set<String> carried = new HashSet<>();
        for (ExecGraph.Unit u : graph.units()) {
          NodeStatus s = frame.ownStatus(u.id());
          if (!rerun.contains(u.id()) && s != null && s != NodeStatus.PAUSED) {
            carried.add(u.id());
          }
        }
        if (policy.resetSharedMemory()) {
          ctx.memory.delete(SharedMemory.Namespace.WORKFLOW, null, "");
        }
        lastRestart.put(req.targetStageId(), now);
        pending = new Accepted(req, c.seq(), rerun, Set.copyOf(carried));
        resp = new RestartResponse(c.seq(), req.targetStageId(), true, null, null, null, st.iteration + 1);
        end = new LevelResult.Restart();
      } else {
        resp = new RestartResponse(c.seq(), req.targetStageId(), false, refused.code(), refused.message(), null,
            st.iteration);
        if (refused.code() == ErrorCode.MAX_ITERATIONS_EXCEEDED
            && policy.onExhausted() == Edge.OnExhausted.FAIL) {
          failure = new RunError(ErrorCode.MAX_ITERATIONS_EXCEEDED, refused.message(), req.requesterStageId(),
              pos.path(), exhaustedDetails(st.iteration));
          end = new LevelResult.Failed(failure);
        }
      }
      recorder.restartDecided(req, resp, policy.restartTopic());
      decisions.add(decision(req, resp, now, st.iteration));
      responses.add(resp);
    }
    if (!later.isEmpty()) {
      ctx.commands.requeue(later);
    }
    if (decisions.isEmpty()) {
      return null;
    }
    recorder.restartDecisions(at, decisions);
    if (ctx.fatal() != null) {
      // The decisions did not reach the journal: nobody is told, and a resumed run decides these requests again.
      pending = null;
      failure = null;
      return null;
    }
    responses.forEach(ctx.commands::respond);
    return end;
  }

  /** A request from a node is decided once that node's execution completed; one from outside at once. */
  private boolean originCompleted(RunCommand c) {
    if (!(c.payload().get(RunCommands.ORIGIN) instanceof String origin)) {
      return true;
    }
    for (String p : completedPaths) {
      if (origin.equals(p) || origin.startsWith(p + "[") || origin.startsWith(p + ".")) {
        return true;
      }
    }
    return false;
  }

  /** A drain point an earlier attempt decided: the same decisions again, without asking the bus. */
  private LevelResult replay(State st, String unitId, NodeExecution row) {
    LevelResult end = null;
    for (Map<String, Object> d : RestartDecisions.of(row)) {
      RestartRequest req = RestartRequest.fromMap(d);
      long seq = d.get("request_seq") instanceof Number n ? n.longValue() : 0;
      ctx.commands.decidedBefore(seq);
      RestartResponse resp = RestartResponse.fromMap(d);
      // The requester may not have been answered before the crash; the first answer wins, so this is safe.
      ctx.commands.respond(resp);
      if (resp.success()) {
        Instant at = d.get("decided_at") instanceof String s ? Instant.parse(s) : ctx.clock.instant();
        lastRestart.put(req.targetStageId(), at);
        Set<String> rerun = downstream(req.targetStageId());
        Set<String> carried = new HashSet<>();
        if (d.get("carried") instanceof List<?> l) {
          l.forEach(x -> carried.add(String.valueOf(x)));
        }
        pending = new Accepted(req, seq, rerun, Set.copyOf(carried));
        end = new LevelResult.Restart();
      } else if (resp.errorCode() == ErrorCode.MAX_ITERATIONS_EXCEEDED
          && policy.onExhausted() == Edge.OnExhausted.FAIL) {
        failure = new RunError(ErrorCode.MAX_ITERATIONS_EXCEEDED, resp.message(), req.requesterStageId(),
            pos.path(), exhaustedDetails(st.iteration));
        end = new LevelResult.Failed(failure);
      }
    }
    return end;
  }

  private Map<String, Object> decision(RestartRequest req, RestartResponse resp, Instant at, int iteration) {
    Map<String, Object> d = new LinkedHashMap<>(req.toMap());
    d.putAll(resp.toMap());
    d.put("iteration_requested", iteration);
    d.put("decided_at", at.toString());
    if (resp.success()) {
      d.put("carried", new ArrayList<>(new TreeSet<>(pending.carry())));
    }
    return d;
  }

  /**
   * A node whose JSON result has a top-level {@code restart} object asks for a restart as itself. Published once: a
   * node restored from the journal published it in the attempt that ran it, unless that attempt ended between
   * journaling the node and publishing its request; then the bus has no request from that execution, and it is
   * published now.
   */
  private void publishStructured(Frame frame, String unitId, int iteration) {
    Map<String, Object> r = frame.ownResult(unitId);
    if (r == null) {
      return;
    }
    boolean restored = ctx.replay.row(frame.position(unitId)) != null;
    Object json = r.get("json");
    if (json == null && r.get("output") instanceof Map<?, ?> m) {
      json = m; // a script's returned map
    }
    Object text = r.get("text") instanceof String t ? t : r.get("output");
    if (json == null && text instanceof String s && PipelineStage.stripFence(s).startsWith("{")) {
      try {
        json = Json.parse(PipelineStage.stripFence(s));
      } catch (RuntimeException e) {
        json = null;
      }
    }
    if (json instanceof Map<?, ?> m && m.get("restart") instanceof Map<?, ?> rs) {
      if (restored && ctx.commands.publishedFrom(frame.position(unitId).path())) {
        return;
      }
      Map<String, String> params = new LinkedHashMap<>();
      if (rs.get("parameters") instanceof Map<?, ?> p) {
        p.forEach((k, v) -> params.put(String.valueOf(k), text(v)));
      }
      publishFrom(frame, new RestartRequest(unitId, text(rs.get("target_stage_id")), text(rs.get("reason")), params,
          iteration, ctx.clock.millis()), frame.position(unitId).path());
    }
  }

  /** A field of a structured request as text: empty when absent, JSON when it is not text. */
  private static String text(Object v) {
    return v == null ? "" : v instanceof String s ? s : Json.compact(v);
  }

  /** A store that cannot take the request fails the run (as any refused journal write does). */
  private void publishFrom(Frame frame, RestartRequest request, String origin) {
    try {
      ctx.commands.publish(request, origin);
    } catch (RuntimeException e) {
      ctx.failRun("the run store could not take the restart request of '" + origin + "': "
          + Throwables.describe(e), e);
    }
  }

  private record Check(ErrorCode code, String message) {}

  /** The policy's checks, in their fixed order; null when the restart may happen. */
  private Check check(RestartRequest req, String currentUnit, int iteration, Instant now) {
    String target = req.targetStageId();
    String requester = req.requesterStageId();
    if (!policy.enabled()) {
      return new Check(ErrorCode.RESTART_VALIDATION_FAILED, "restart validation failed: restarts are disabled "
          + "(restart_policy.enabled is false)");
    }
    if (target.isEmpty() || !(graph.unit(target) instanceof ExecGraph.NodeUnit)) {
      return new Check(ErrorCode.RESTART_VALIDATION_FAILED, "restart validation failed: target stage not found: '"
          + target + "'");
    }
    if (!downstream(target).contains(currentUnit) || target.equals(currentUnit)) {
      return new Check(ErrorCode.RESTART_VALIDATION_FAILED, "restart validation failed: cannot restart forward ("
          + currentUnit + " -> " + target + ")");
    }
    if (!policy.restartableStages().isEmpty() && !policy.restartableStages().contains(target)) {
      return new Check(ErrorCode.STAGE_NOT_RESTARTABLE, "stage '" + target + "' not in restartable_stages list");
    }
    if (!policy.restartTriggers().isEmpty() && !policy.restartTriggers().contains(requester)) {
      return new Check(ErrorCode.REQUESTER_NOT_AUTHORIZED, "stage '" + requester + "' not authorized to trigger "
          + "restarts (not in restart_triggers)");
    }
    if (policy.cooldownSeconds() > 0 && lastRestart.containsKey(target)) {
      Duration left = Duration.between(now, lastRestart.get(target).plusSeconds(policy.cooldownSeconds()));
      if (!left.isNegative() && !left.isZero()) {
        long secs = (left.toMillis() + 999) / 1000;
        return new Check(ErrorCode.RESTART_COOLDOWN_NOT_ELAPSED, "cooldown not elapsed (" + secs + "s remaining) "
            + "for stage '" + target + "'");
      }
    }
    if (iteration >= policy.maxIterations()) {
      return new Check(ErrorCode.MAX_ITERATIONS_EXCEEDED, "max iterations exceeded (" + policy.maxIterations()
          + " iterations), workflow terminated");
    }
    return null;
  }

  /** {@code target} and every unit downstream of it at the top level. */
  private Set<String> downstream(String target) {
    Set<String> seen = new HashSet<>();
    ArrayDeque<String> todo = new ArrayDeque<>();
    if (graph.unit(target) != null) {
      todo.add(target);
    }
    while (!todo.isEmpty()) {
      String u = todo.poll();
      if (seen.add(u)) {
        todo.addAll(graph.successors(u));
      }
    }
    return seen;
  }

  // ---------------------------------------------------------------------------------------------------------
  // The summary in the run's result

  /**
   * The {@code pipeline} object of a restartable run's result, from its journal: iterations executed, validation
   * retries (the stages' own count), and every decided request in the order the bus numbered them.
   */
  static Map<String, Object> summary(List<NodeExecution> rows, RestartPolicy policy) {
    int accepted = 0;
    int retries = 0;
    TreeMap<Long, Map<String, Object>> requests = new TreeMap<>();
    Map<String, Integer> retriesAt = new HashMap<>();
    for (NodeExecution row : rows) {
      if (RestartPolicy.decidedAfter(row.kind(), row.position().nodeId()) != null) {
        for (Map<String, Object> d : RestartDecisions.of(row)) {
          long seq = d.get("request_seq") instanceof Number n ? n.longValue() : 0;
          if (requests.containsKey(seq)) {
            continue;
          }
          Map<String, Object> r = new LinkedHashMap<>();
          r.put("requester_stage_id", d.get("requester_stage_id"));
          r.put("target_stage_id", d.get("target_stage_id"));
          r.put("reason", d.get("reason"));
          r.put("iteration", d.get("iteration_requested") != null ? d.get("iteration_requested")
              : d.get("iteration"));
          boolean ok = Boolean.TRUE.equals(d.get("success"));
          r.put("success", ok);
          r.put("error", ok ? null : d.get("error"));
          requests.put(seq, r);
          if (ok) {
            accepted++;
          }
        }
      } else if (row.status() == NodeStatus.FAILED
          && ErrorCode.VALIDATION_RETRY_EXHAUSTED.code().equals(row.errorCode())) {
        retriesAt.put(row.position().path(), policy.maxValidationRetries());
      } else if (row.status() == NodeStatus.COMPLETED && row.result() != null
          && row.result().get("validation_retries") instanceof Number n) {
        // The latest completed execution at a position counts (a resumed run may journal a position twice).
        retriesAt.put(row.position().path(), n.intValue());
      }
    }
    // ints, as JSON read back from a store gives them: the result printed and the one read later are equal
    for (int n : retriesAt.values()) {
      retries += n;
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("iterations_executed", accepted + 1);
    out.put("validation_retries", retries);
    out.put("restart_requests", new ArrayList<>(requests.values()));
    return out;
  }
}
