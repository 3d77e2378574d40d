package dev.loopflow.core.internal.exec;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.NodeFailedException;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.expr.Condition;
import dev.loopflow.core.expr.Values;
import dev.loopflow.core.internal.plan.ExecGraph;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.run.NodeResults;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.Waiting;
import dev.loopflow.core.spi.BranchChooser;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.core.store.NodeExecution;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The built-in control nodes the engine interprets itself: router, approval, cancel, the input and output
 * markers, and the exit/aggregator markers of graph-form loops. Each turns its node into a {@link Ran}; the
 * lifecycle around it (events, retries, the journal) is {@link NodeRunner}'s.
 */
final class ControlNodes {
  private final RunContext ctx;
  private final Recorder recorder;

  ControlNodes(RunContext ctx, Recorder recorder) {
    this.ctx = ctx;
    this.recorder = recorder;
  }

  Ran run(Node node, NodeContextImpl nctx, Frame frame, ExecGraph graph) {
    return switch (node.body()) {
      case Node.Router r -> router(node, r, nctx, frame, graph);
      case Node.Marker m -> marker(m, frame);
      case Node.Approval a -> approval(node, a, nctx, frame);
      case Node.Cancel c -> {
        String reason = c.reason() == null ? "cancelled by node '" + node.id() + "'" : nctx.render(c.reason());
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("output", reason);
        result.put("reason", reason);
        yield new Ran.Shaped(result, reason, null, reason, Usage.NONE);
      }
      case Node.Input in -> passThrough(in.value() == null ? ctx.state.inputs : nctx.evaluate(in.value()));
      case Node.Output out -> passThrough(out.value() == null ? feedingOutput(node, frame, graph, ctx.state.inputs)
          : nctx.evaluate(out.value()));
      case Node.Work w -> throw new IllegalArgumentException("work node '" + node.id() + "' is not a control node");
      case Node.Loop l -> throw new IllegalArgumentException("loop node '" + node.id() + "' is not a control node");
    };
  }

  private static Ran passThrough(Object v) {
    Object plain = Values.plain(v);
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("output", plain);
    return new Ran.Shaped(result, plain);
  }

  /** An exit or aggregator marker shows its loop's result (its passes, output and exit reason). */
  private static Ran marker(Node.Marker m, Frame frame) {
    Map<String, Object> loopResult = frame.result(m.pairedWith());
    Map<String, Object> result = new LinkedHashMap<>();
    if (loopResult != null) {
      loopResult.forEach((k, v) -> {
        if (!k.equals("status")) {
          result.put(k, v);
        }
      });
    }
    return new Ran.Shaped(result, result.get("output"));
  }

  /**
   * Asks a person once, durably: the question is journaled as a paused execution and the run pauses; the answer
   * arrives with the resume. The timeout runs from when the question was first journaled, across processes.
   */
  private Ran approval(Node node, Node.Approval a, NodeContextImpl nctx, Frame frame) {
    NodePosition pos = nctx.position();
    String message = a.message() == null ? "approve '" + pos.path() + "'?" : nctx.render(a.message());
    ResumeInput given = ctx.replay.takeInput(pos);
    ResumeInput.Decision decision = given == null ? null : given.effectiveDecision();
    String comment = given == null ? null : given.comment() != null ? given.comment()
        : given.decision() == null && decision == null ? given.text() : null;
    NodeExecution asked = ctx.replay.pausedRow(pos);
    Instant askedAt = asked != null ? asked.startedAt() : ctx.bus.now();
    Instant deadline = node.timeout() == null ? null : askedAt.plus(node.timeout());
    boolean timedOut = false;
    if (decision == null && deadline != null && !ctx.bus.now().isBefore(deadline)) {
      decision = a.approveOnTimeout() ? ResumeInput.Decision.APPROVE : ResumeInput.Decision.REJECT;
      timedOut = true;
    }
    if (decision == null) {
      String onTimeout = a.approveOnTimeout() ? "approve" : "reject";
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("status", NodeStatus.PAUSED.json());
      r.put("message", message);
      if (deadline != null) {
        r.put("deadline", deadline.toString());
        r.put("default", onTimeout);
      }
      frame.mark(node.id(), NodeStatus.PAUSED, r);
      NodePosition.LoopFrame pass = pos.loops().isEmpty() ? null : pos.loops().get(pos.loops().size() - 1);
      ctx.requestPause(new Waiting(Waiting.Kind.APPROVAL, node.id(), pos.path(), pass == null ? null : pass.loopId(),
          pass == null ? null : pass.iteration(), message, deadline, deadline == null ? null : onTimeout,
          a.schema() == null ? null : a.schema().json()));
      String shown = deadline == null ? message : message + " (unanswered by " + deadline + ": " + onTimeout + ")";
      // Journaled when first asked, and again when asked anew after a rejection failed the run (so the journal's
      // latest execution here says what the run waits for); the deadline still counts from the first question.
      recorder.asked(pos, node.kind(), r, askedAt, asked == null || ctx.replay.row(pos) != null, shown);
      return Ran.PAUSED;
    }
    boolean approved = decision == ResumeInput.Decision.APPROVE;
    // The form's values as checked when the resume was accepted; none (an empty object) for a default decision or
    // a step without a form, so templates reading values.X see nothing rather than fail.
    Map<String, Object> values = given == null || given.values() == null ? Map.of() : given.values();
    if (!approved && a.failOnReject()) {
      Map<String, Object> partial = new LinkedHashMap<>();
      partial.put("decision", decision.json());
      partial.put("approved", false);
      partial.put("comment", comment);
      partial.put("timed_out", timedOut);
      partial.put("values", values);
      throw new NodeFailedException("rejected" + (timedOut ? " (no answer before the timeout)" : "")
          + (comment == null || comment.isBlank() ? "" : ": " + comment), partial);
    }
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("output", decision.json());
    result.put("decision", decision.json());
    result.put("approved", approved);
    result.put("comment", comment);
    result.put("message", message);
    result.put("timed_out", timedOut);
    result.put("values", values);
    return new Ran.Shaped(result, decision.json());
  }

  private Ran router(Node node, Node.Router r, NodeContextImpl nctx, Frame frame, ExecGraph graph) {
    Object value = r.value() == null ? feedingOutput(node, frame, graph, ctx.state.inputs) : nctx.evaluate(r.value());
    String branch = null;
    String reason = null;
    if (r.byLlm()) {
      BranchChooser chooser = nctx.service(BranchChooser.class).orElseThrow(() -> new LoopflowException(
          ErrorCode.NODE_FAILED, "router '" + node.id() + "' chooses with an LLM but no LLM module is installed",
          nctx.position()));
      String instructions = r.instructions() == null ? null : nctx.render(r.instructions());
      BranchChooser.Choice choice = chooser.choose(nctx, r.model(), instructions, r.descriptions(), value);
      branch = choice.branch();
      reason = choice.reason();
    } else {
      Map<String, Object> scope = new LinkedHashMap<>(nctx.scope());
      scope.put("value", Values.readOnly(value));
      for (Map.Entry<String, Condition> e : r.routes().entrySet()) {
        if (e.getValue() == null || e.getValue().test(scope)) {
          branch = e.getKey();
          break;
        }
      }
      if (branch == null) {
        throw new LoopflowException(ErrorCode.NODE_FAILED, "no route matched and there is no default route "
            + "(routes: " + r.routes().keySet() + ")", nctx.position());
      }
    }
    String chosen = branch;
    ctx.bus.publish((seq, at) -> new Event.RouterSelected(ctx.runId, seq, at, nctx.position(), chosen));
    Map<String, Object> result = new LinkedHashMap<>();
    Map<String, Object> output = new LinkedHashMap<>();
    output.put("selectedBranch", branch);
    output.put("value", Values.plain(value));
    result.put("output", output);
    result.put("selectedBranch", branch);
    result.put("value", Values.plain(value));
    if (reason != null) {
      result.put("reason", reason);
    }
    return new Ran.Shaped(result, output);
  }

  /**
   * The output of the node feeding {@code node}: its first completed predecessor (a router contributes its value);
   * in a loop body with no such predecessor, the pass's {@code loop.input}; else the run's input.
   */
  static Object feedingOutput(Node node, Frame frame, ExecGraph graph, Map<String, Object> runInputs) {
    for (ExecGraph.Incoming in : graph.incoming(node.id())) {
      if (in.from().equals(graph.entry())) {
        break;
      }
      Map<String, Object> r = frame.result(in.from());
      if (r != null && "completed".equals(NodeResults.status(r))) {
        return r.containsKey("selectedBranch") ? r.get("value") : r.get("output");
      }
    }
    Map<String, Object> loop = frame.loopVars();
    if (loop != null) {
      return loop.get("input");
    }
    return runInputs;
  }
}
