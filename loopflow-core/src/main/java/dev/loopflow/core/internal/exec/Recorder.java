package dev.loopflow.core.internal.exec;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.expr.Values;
import dev.loopflow.core.model.LoopConfig;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.model.RestartPolicy;
import dev.loopflow.core.run.NodeResults;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RestartRequest;
import dev.loopflow.core.run.RestartResponse;
import dev.loopflow.core.run.RunError;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.core.store.NodeExecution;
import java.time.Duration;
import java.time.Instant;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/*
 * Design notes.
 *
 * The one place where what happened to a node becomes a fact: its result in the frame (what later nodes and the
 * report read), its event, and its journal row (what a resume restores). Coordinators, the node lifecycle and the
 * loop core decide; they tell the recorder, and the recorder writes the three together, so they cannot disagree
 * about a node's status.
 *
 * What must stay true: a completion is merged into state, published and journaled under one lock (ctx.commits),
 * so state rebuilt from the journal appends what concurrent nodes wrote in the order the run did. Every journal
 * row passes through the run's redactor. A store refusing a row fails the run (a completion the journal lacks
 * would be repeated by a resume), and the caller carries on until the next scheduling point stops the run.
 */
final class Recorder {
  private final RunContext ctx;

  Recorder(RunContext ctx) {
    this.ctx = ctx;
  }

  // ---------------------------------------------------------------------------------------------------------
  // A node's lifecycle

  void started(Node node, NodePosition pos, int attempt) {
    ctx.bus.publish((seq, at) -> new Event.NodeStarted(ctx.runId, seq, at, pos, node.kind(), attempt));
  }

  void retrying(Node node, NodePosition pos, int nextAttempt, String message) {
    ctx.bus.publish((seq, at) -> new Event.NodeRetrying(ctx.runId, seq, at, pos, node.kind(), nextAttempt,
        message));
  }

  /**
   * A node completed with {@code shaped}. {@code journal} is false only for a loop whose completion the journal
   * already holds (it re-entered its passes on resume to rebuild its state): announced again, journaled once.
   */
  Outcome completed(Frame frame, Node node, NodePosition pos, int attempt, Instant started, Ran.Shaped shaped,
      Usage usage, Map<String, Object> rendered, Map<String, List<Map<String, String>>> sessions, boolean journal) {
    Map<String, Object> result = shaped.result();
    NodeResults.putStatus(result, NodeStatus.COMPLETED);
    long ms = Duration.between(started, ctx.bus.now()).toMillis();
    String shown = shown(shaped.output());
    synchronized (ctx.commits) {
      ctx.state.complete(frame, node.id(), result, shaped.statePatch(), node.stateKey(),
          RunState.stateValue(node, result), NodeStatus.COMPLETED);
      ctx.bus.publish((seq, at) -> new Event.NodeCompleted(ctx.runId, seq, at, pos, node.kind(), ms,
          cut(shown), usage.inputTokens(), usage.outputTokens(), usage.costUsd(), utf8Bytes(shown)));
      if (journal) {
        // A loop's row carries none of its passes' spending: those are journaled by the passes' own nodes.
        journal(node, pos, NodeStatus.COMPLETED, attempt, started, rendered, result,
            node.body() instanceof Node.Loop ? Usage.NONE : usage, null, null, shaped.statePatch(), sessions);
      }
    }
    return new Outcome.Completed(shaped.cancelRun());
  }

  /** A node failed with {@code code}; {@code partial}: result fields it produced before failing. */
  Outcome failed(Frame frame, Node node, NodePosition pos, Instant started, Map<String, Object> rendered, Usage usage,
      int attempts, ErrorCode errorCode, String message, Map<String, Object> partial, Map<String, Object> details,
      Map<String, List<Map<String, String>>> runLogs) {
    String code = errorCode.code();
    String full = node.kind() + " node '" + pos.path() + "' failed: " + message;
    Map<String, Object> fields = new LinkedHashMap<>();
    Map<Object, Object> copies = new IdentityHashMap<>(); // a value under two names is copied once
    partial.forEach((k, v) -> fields.put(k, v == null ? null : copies.computeIfAbsent(v, Values::plain)));
    NodeResults.putStatus(fields, NodeStatus.FAILED);
    Map<String, Object> result = NodeResults.report(fields, NodeStatus.FAILED);
    result.put("error", errorMap(code, message, pos.path()));
    frame.mark(node.id(), NodeStatus.FAILED, result);
    long ms = Duration.between(started, ctx.bus.now()).toMillis();
    ctx.bus.publish((seq, at) -> new Event.NodeFailed(ctx.runId, seq, at, pos, node.kind(), ms, code, message,
        node.allowFailure()));
    journal(node, pos, NodeStatus.FAILED, attempts, started, rendered, result, usage, code, message, null,
        runLogs == null || runLogs.isEmpty() ? null : runLogs);
    // allow_failure forgives the node's own failure, never a spent budget: that stops the run.
    return new Outcome.Failed(new RunError(errorCode, errorCode == ErrorCode.NODE_FAILED ? full : message, node.id(),
        pos.path(), details), node.allowFailure() && errorCode != ErrorCode.BUDGET_EXCEEDED);
  }

  /** A node interrupted while it ran. */
  Outcome cancelled(Frame frame, Node node, NodePosition pos, Instant started, Usage usage, int attempts,
      Map<String, List<Map<String, String>>> runLogs) {
    cancelledUnstarted(node, frame);
    journal(node, pos, NodeStatus.CANCELLED, attempts, started, null, Map.of("status", "cancelled"), usage,
        "cancelled", "cancelled while running", null, runLogs == null || runLogs.isEmpty() ? null : runLogs);
    return Outcome.INTERRUPTED;
  }

  /** A loop whose body failed, was cancelled or hit its bound: its partial result stays readable. */
  Outcome loopStopped(Frame frame, Node node, NodePosition pos, Instant started, Usage usage, Ran.Stopped stopped) {
    Map<String, Object> result = new LinkedHashMap<>(stopped.partial());
    long ms = Duration.between(started, ctx.bus.now()).toMillis();
    if (stopped.cancelled()) {
      NodeResults.putStatus(result, NodeStatus.CANCELLED);
      frame.mark(node.id(), NodeStatus.CANCELLED, result);
      ctx.bus.publish((seq, at) -> new Event.NodeCancelled(ctx.runId, seq, at, pos, node.kind()));
      journal(node, pos, NodeStatus.CANCELLED, 1, started, null, result, usage, "cancelled", "cancelled", null,
          null);
      return new Outcome.Cancelled(stopped.error());
    }
    RunError e = stopped.error();
    NodeResults.putStatus(result, NodeStatus.FAILED);
    result.put("error", errorMap(e));
    frame.mark(node.id(), NodeStatus.FAILED, result);
    ctx.bus.publish((seq, at) -> new Event.NodeFailed(ctx.runId, seq, at, pos, node.kind(), ms, e.code(),
        e.message(), node.allowFailure()));
    journal(node, pos, NodeStatus.FAILED, 1, started, null, result, usage, e.code(), e.message(), null, null);
    return new Outcome.Failed(e, node.allowFailure());
  }

  /** A node its coordinator gave up on (cancelled before it began, or interrupted and never reported). */
  void cancelledUnstarted(Node node, Frame frame) {
    if (frame.markIfUnsettled(node.id(), NodeStatus.CANCELLED, Map.of("status", "cancelled"))) {
      NodePosition pos = frame.position(node.id());
      ctx.bus.publish((seq, at) -> new Event.NodeCancelled(ctx.runId, seq, at, pos, node.kind()));
    }
  }

  /** A node that ran past its own {@code timeout}; its coordinator has interrupted it. */
  void timedOut(Node node, Frame frame, String message) {
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("status", NodeStatus.FAILED.json());
    NodePosition pos = frame.position(node.id());
    result.put("error", errorMap(ErrorCode.TIMEOUT.code(), message, pos.path()));
    frame.mark(node.id(), NodeStatus.FAILED, result);
    ctx.bus.publish((seq, at) -> new Event.NodeFailed(ctx.runId, seq, at, pos, node.kind(), 0,
        ErrorCode.TIMEOUT.code(), message, node.allowFailure()));
  }

  /** A node whose edge or {@code when} condition threw: recorded as failed, never silently skipped. */
  void conditionFailed(Node node, Frame frame, String message) {
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("status", NodeStatus.FAILED.json());
    NodePosition pos = frame.position(node.id());
    result.put("error", errorMap(ErrorCode.NODE_FAILED.code(), message, pos.path()));
    frame.mark(node.id(), NodeStatus.FAILED, result);
    ctx.bus.publish((seq, at) -> new Event.NodeFailed(ctx.runId, seq, at, pos, node.kind(), 0,
        ErrorCode.NODE_FAILED.code(), message, false));
  }

  void skipped(Node node, Frame frame, String reason) {
    frame.mark(node.id(), NodeStatus.SKIPPED, Map.of("status", "skipped"));
    NodePosition pos = frame.position(node.id());
    ctx.bus.publish((seq, at) -> new Event.NodeSkipped(ctx.runId, seq, at, pos, node.kind(), reason));
  }

  // ---------------------------------------------------------------------------------------------------------
  // Questions to a person

  /**
   * The run asks a person at {@code pos} (an approval or a loop gate): the question is journaled as a paused
   * execution (so the journal's latest execution there says what the run waits for), and run.paused is published.
   */
  void asked(NodePosition pos, String kind, Map<String, Object> result, Instant askedAt, boolean journal,
      String shown) {
    if (journal) {
      journal(new NodeExecution(ctx.runId, pos, kind, NodeStatus.PAUSED, 1, askedAt, askedAt, null, result,
          Usage.NONE, null, null, null, null));
    }
    ctx.bus.publish((seq, at) -> new Event.RunPaused(ctx.runId, seq, at, pos, shown));
  }

  /**
   * A loop gate's answer (its text and, for a gate with a form, its values), journaled as the gate's completed
   * execution so a later resume replays it.
   */
  void answered(NodePosition gate, String answer, Map<String, Object> values) {
    Instant now = ctx.bus.now();
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("status", "completed");
    r.put("input", answer);
    if (values != null) {
      r.put("values", values);
    }
    journal(new NodeExecution(ctx.runId, gate, LoopConfig.Group.GATE_ID,
        NodeStatus.COMPLETED, 1, now, now, null, r, Usage.NONE, null, null, null, null));
  }

  // ---------------------------------------------------------------------------------------------------------
  // Restarts

  /** {@code topic}: the policy's {@code restart_topic}, which every restart event is published under. */
  void restartRequested(long requestSeq, RestartRequest r, String topic) {
    ctx.bus.publish((seq, at) -> new Event.RestartRequested(ctx.runId, seq, at, requestSeq, r.requesterStageId(),
        r.targetStageId(), r.reason(), new LinkedHashMap<>(r.parameters()), r.iteration(), r.timestampMs(), topic));
  }

  void restartDecided(RestartRequest r, RestartResponse d,
      String topic) {
    if (d.success()) {
      ctx.bus.publish((seq, at) -> new Event.RestartAccepted(ctx.runId, seq, at, d.requestSeq(),
          r.requesterStageId(), r.targetStageId(), r.reason(), d.iteration(), topic));
    } else {
      ctx.bus.publish((seq, at) -> new Event.RestartRejected(ctx.runId, seq, at, d.requestSeq(),
          r.requesterStageId(), r.targetStageId(), r.reason(), d.errorCode().code(), d.message(), d.iteration(),
          topic));
    }
  }

  /**
   * The restart decisions made when the node before {@code at} completed, journaled as one execution at {@code at}
   * so a resumed run replays them instead of deciding again.
   */
  void restartDecisions(NodePosition at, List<Map<String, Object>> decisions) {
    Instant now = ctx.bus.now();
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("status", "completed");
    r.put("decisions", decisions);
    journal(new NodeExecution(ctx.runId, at, RestartPolicy.DECISIONS_KIND, NodeStatus.COMPLETED, 1, now, now, null, r,
        Usage.NONE, null, null, null, null));
  }

  // ---------------------------------------------------------------------------------------------------------
  // Loops

  // A resumed run re-enters its loops; a loop event an earlier attempt journaled is not journaled again (see
  // RunContext.Replay#journaled). The check builds the event only when the earlier attempts journaled any.

  void loopStarted(NodePosition pos, String construct, int max) {
    if (ctx.replay.anyLoopEvents()
        && ctx.replay.journaled(new Event.LoopStarted(ctx.runId, 0, null, pos, construct, max))) {
      return;
    }
    ctx.bus.publish((seq, at) -> new Event.LoopStarted(ctx.runId, seq, at, pos, construct, max));
  }

  void loopPass(NodePosition pos, String construct, int iteration, int max, Object input, Boolean condition) {
    String shown = preview(input);
    if (ctx.replay.anyLoopEvents() && ctx.replay.journaled(new Event.LoopIteration(ctx.runId, 0, null, pos,
        construct, iteration, iteration - 1, max, max, shown, condition))) {
      return;
    }
    ctx.bus.publish((seq, at) -> new Event.LoopIteration(ctx.runId, seq, at, pos, construct, iteration,
        iteration - 1, max, max, shown, condition));
  }

  /**
   * The check that ended a {@code while_loop} before pass {@code iteration}: a {@code loop.iteration} whose
   * {@code condition_result} is false. No pass starts after it; consumers that count passes skip it.
   */
  void loopConditionFalse(NodePosition pos, String construct, int iteration, int max) {
    loopPass(pos, construct, iteration, max, null, Boolean.FALSE);
  }

  void loopBack(NodePosition pos, String from, String to, int iteration, int max) {
    if (ctx.replay.anyLoopEvents()
        && ctx.replay.journaled(new Event.LoopIterate(ctx.runId, 0, null, pos, from, to, iteration, max))) {
      return;
    }
    ctx.bus.publish((seq, at) -> new Event.LoopIterate(ctx.runId, seq, at, pos, from, to, iteration, max));
  }

  void loopEnded(NodePosition pos, String construct, int count, String reason, Usage u) {
    if (ctx.replay.anyLoopEvents() && ctx.replay.journaled(new Event.LoopCompleted(ctx.runId, 0, null, pos,
        construct, count, reason, u.inputTokens(), u.outputTokens(), u.costUsd(), u.llmCalls()))) {
      return;
    }
    ctx.bus.publish((seq, at) -> new Event.LoopCompleted(ctx.runId, seq, at, pos, construct, count, reason,
        u.inputTokens(), u.outputTokens(), u.costUsd(), u.llmCalls()));
  }

  // ---------------------------------------------------------------------------------------------------------
  // The journal

  private void journal(Node node, NodePosition pos, NodeStatus status, int attempts, Instant started,
      Map<String, Object> rendered, Map<String, Object> result, Usage usage, String code, String message,
      Map<String, Object> statePatch, Map<String, List<Map<String, String>>> sessions) {
    journal(new NodeExecution(ctx.runId, pos, node.kind(), status, attempts, started, ctx.bus.now(), rendered,
        result, usage, code, message, statePatch == null ? null : castMap(Values.plain(statePatch)), sessions));
  }

  /**
   * Journals a node execution. The store refusing it fails the run (a completion the journal does not hold would
   * be repeated by a resume, so the run must not go on as if it were durable); the caller carries on and the run
   * stops at the next scheduling point.
   */
  private void journal(NodeExecution row) {
    if (ctx.closed) {
      return;
    }
    try {
      ctx.store.recordNodeExecution(ctx.redactor.execution(row));
    } catch (RuntimeException e) {
      ctx.failRun("the run store could not journal '" + row.position().path() + "': " + Throwables.describe(e), e);
    }
  }

  /**
   * A one-line preview of a value for an event, at most 120 characters. It is cut from the masked value: a
   * preview is a string, so masking by key cannot reach into it afterwards, and a credential cut in two would no
   * longer be recognised.
   */
  String preview(Object value) {
    return cut(shown(value));
  }

  /** The whole masked text of a value, which a preview is cut from and an output's size is measured on. */
  private String shown(Object value) {
    return value == null ? "" : Values.text(ctx.redactor.value(value));
  }

  private static String cut(String text) {
    String s = text.replace('\n', ' ');
    return s.length() > 120 ? s.substring(0, 117) + "..." : s;
  }

  /** The UTF-8 size of {@code s}, counted without encoding it (an unpaired surrogate counts as U+FFFD's 3 bytes). */
  static long utf8Bytes(String s) {
    long n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        n += 1;
      } else if (c < 0x800) {
        n += 2;
      } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        n += 4;
        i++;
      } else {
        n += 3;
      }
    }
    return n;
  }

  /** A node's {@code error}: what failed, why, and where (the execution's position, which names the pass). */
  static Map<String, Object> errorMap(String code, String message, String path) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("code", code);
    m.put("message", message);
    if (path != null) {
      m.put("path", path);
    }
    return m;
  }

  /** A loop's {@code error}: its first failure, with the node that failed and that execution's position. */
  static Map<String, Object> errorMap(RunError e) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("code", e.code());
    m.put("message", e.message());
    if (e.node() != null) {
      m.put("node", e.node());
    }
    if (e.path() != null) {
      m.put("path", e.path());
    }
    return m;
  }

  static Map<String, Object> usageMap(Usage u) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("input_tokens", u.inputTokens());
    m.put("output_tokens", u.outputTokens());
    m.put("cost_usd", u.costUsd());
    m.put("llm_calls", u.llmCalls());
    return m;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> castMap(Object o) {
    return (Map<String, Object>) o;
  }
}
