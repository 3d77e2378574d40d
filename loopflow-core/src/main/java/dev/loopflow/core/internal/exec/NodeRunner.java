package dev.loopflow.core.internal.exec;

import dev.loopflow.core.ErrorCode;
import dev.loopflow.core.LoopflowException;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.expr.Condition;
import dev.loopflow.core.expr.Values;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.model.NodePosition;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.NodeResults;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.spi.BranchChooser;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.internal.plan.ExecGraph;
import dev.loopflow.core.run.RunError;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Executes one node: retries, the exhaustive dispatch over node bodies, result shaping, state updates,
 * events and the journal row. Runs on the node's virtual thread.
 */
final class NodeRunner {
  private final RunContext ctx;

  /** How a unit's execution ended, as reported to its coordinator. */
  sealed interface Outcome {
    /** {@code cancelRun}: a cancel node asks to end the run, with this reason. */
    record Completed(String cancelRun) implements Outcome {}

    record Failed(RunError error, boolean allowed) implements Outcome {}

    /** Interrupted, or a body ended the run as cancelled ({@code error} says where; null when interrupted). */
    record Cancelled(RunError error) implements Outcome {}

    /** The run paused inside this unit (an interactive loop gate); nothing after it ran. */
    record Paused() implements Outcome {}
  }

  NodeRunner(RunContext ctx) {
    this.ctx = ctx;
  }

  Outcome execute(Node node, Frame frame, ExecGraph graph) {
    NodePosition pos = frame.position(node.id());
    NodeExecution replayed = ctx.replay.row(pos);
    if (!(node.body() instanceof Node.Loop)) {
      chargeEarlierAttempts(frame, pos);
    }
    if (replayed != null && !(node.body() instanceof Node.Loop) && restore(node, frame, replayed)) {
      return replayed.status() == NodeStatus.COMPLETED ? new Outcome.Completed(null)
          : new Outcome.Failed(new RunError(replayed.errorCode(), replayed.errorMessage(), node.id(), pos.path(),
              Map.of()), true);
    }
    // Only a loop gets here with its completion already journaled: it re-enters its passes (restored from the
    // journal) to rebuild its state, and must not announce or journal that completion twice. Anything else that
    // gets here runs (again, after a failure that failed the run), and its new outcome is journaled.
    boolean completionJournaled = replayed != null && replayed.status() == NodeStatus.COMPLETED;
    Instant started = ctx.bus.now();
    int attempts = node.body() instanceof Node.Loop ? 1 : node.retry().maxAttempts();
    Usage usage = Usage.NONE;
    for (int attempt = 1; ; attempt++) {
      int a = attempt;
      if (!completionJournaled) {
        ctx.bus.publish((seq, at) -> new Event.NodeStarted(ctx.runId, seq, at, pos, node.kind(), a));
      }
      NodeContextImpl nctx = new NodeContextImpl(pos, frame, ctx.state.scope(frame));
      try {
        Shaped shaped = run(node, nctx, frame, graph);
        usage = usage.plus(nctx.usage()).plus(shaped.innerUsage);
        Map<String, Object> result = shaped.result;
        NodeResults.putStatus(result, NodeStatus.COMPLETED);
        long ms = Duration.between(started, ctx.bus.now()).toMillis();
        Usage u = usage;
        // Completions are merged into state and journaled in one order, so state rebuilt from the journal (the
        // report of a run still running, or whose process died) appends what concurrent nodes wrote as the run did.
        synchronized (ctx.commits) {
          ctx.state.complete(frame, node.id(), result, shaped.statePatch, node.stateKey(),
              RunState.stateValue(node, result), NodeStatus.COMPLETED);
          ctx.bus.publish((seq, at) -> new Event.NodeCompleted(ctx.runId, seq, at, pos, node.kind(), ms,
              ctx.preview(shaped.output), u.inputTokens(), u.outputTokens(), u.costUsd()));
          if (!completionJournaled) {
            journal(node, pos, NodeStatus.COMPLETED, a, started, nctx.rendered(), result,
                node.body() instanceof Node.Loop ? Usage.NONE : u, null, null, shaped.statePatch,
                nctx.sessionTurns());
          }
        }
        return new Outcome.Completed(shaped.cancelRun);
      } catch (LoopRunner.Paused p) {
        return new Outcome.Paused();
      } catch (LoopRunner.BodyStopped b) {
        // The body's usage is journaled by the body's own nodes; the loop's row carries only its own, so the
        // journal's rows add up to what the run spent (a resume counts them that way).
        usage = usage.plus(nctx.usage());
        return stopped(node, pos, frame, started, usage, b);
      } catch (InterruptedException e) {
        return cancelled(node, pos, frame, started, usage.plus(nctx.usage()), a);
      } catch (LoopflowException e) {
        usage = usage.plus(nctx.usage());
        if (e.code() == ErrorCode.CANCELLED || Thread.currentThread().isInterrupted()) {
          return cancelled(node, pos, frame, started, usage, a);
        }
        if (e.code() != ErrorCode.BUDGET_EXCEEDED && attempt < attempts) {
          if (retry(node, pos, a, e.getMessage())) {
            continue;
          }
          return cancelled(node, pos, frame, started, usage, a); // interrupted while waiting to retry
        }
        return failed(node, pos, frame, started, nctx.rendered(), usage, a, e.code().code(), e.getMessage(),
            e instanceof dev.loopflow.core.NodeFailedException nfe ? nfe.partialResult() : Map.of(), e.details());
      } catch (Exception | Error e) {
        // Errors too (an AssertionError in a Java node, a library's Error): a node that ends without an outcome
        // would leave its coordinator waiting for it forever.
        usage = usage.plus(nctx.usage());
        if (Thread.currentThread().isInterrupted()) {
          return cancelled(node, pos, frame, started, usage, a);
        }
        String msg = e.getMessage() == null ? e.toString() : e.getMessage();
        if (attempt < attempts) {
          if (retry(node, pos, a, msg)) {
            continue;
          }
          return cancelled(node, pos, frame, started, usage, a); // interrupted while waiting to retry
        }
        return failed(node, pos, frame, started, nctx.rendered(), usage, a, ErrorCode.NODE_FAILED.code(), msg,
            Map.of(), Map.of());
      }
    }
  }

  /** Restores a journaled execution instead of running it again. False when it cannot be restored. */
  private boolean restore(Node node, Frame frame, NodeExecution row) {
    if (row.status() == NodeStatus.FAILED && !node.allowFailure()) {
      return false; // a failure that failed the run: run it again
    }
    if (row.status() == NodeStatus.COMPLETED) {
      ctx.state.restore(frame, node, row);
    } else {
      frame.mark(node.id(), NodeStatus.FAILED, new LinkedHashMap<>(row.result()));
    }
    if (row.sessions() != null) {
      row.sessions().forEach((key, turns) -> {
        NodeContext.Conversation c = ctx.state.conversation(key);
        for (Map<String, String> t : turns) {
          c.append(new NodeContext.Conversation.Turn(t.get("role"), t.get("content")));
        }
      });
    }
    return true;
  }

  /**
   * On resume, counts what earlier attempts of the run spent at this position (every journaled execution there,
   * whether it is restored now or runs again) towards the enclosing loops' budgets. The run's own budget already
   * holds all journaled spending (see {@link Scheduler}), including positions this attempt never reaches.
   */
  private void chargeEarlierAttempts(Frame frame, NodePosition pos) {
    Usage spent = ctx.replay.spentAt(pos);
    if (spent == Usage.NONE) {
      return;
    }
    for (int i = 1; i < frame.budgets.size(); i++) {
      frame.budgets.get(i).add(spent);
    }
  }

  /** A loop whose body failed, was cancelled or hit its bound. */
  private Outcome stopped(Node node, NodePosition pos, Frame frame, Instant started, Usage usage,
      LoopRunner.BodyStopped b) {
    Map<String, Object> result = new LinkedHashMap<>(b.partial());
    long ms = Duration.between(started, ctx.bus.now()).toMillis();
    if (b.cancelled()) {
      NodeResults.putStatus(result, NodeStatus.CANCELLED);
      frame.mark(node.id(), NodeStatus.CANCELLED, result);
      ctx.bus.publish((seq, at) -> new Event.NodeCancelled(ctx.runId, seq, at, pos, node.kind()));
      journal(node, pos, NodeStatus.CANCELLED, 1, started, result, usage, "cancelled", "cancelled", null);
      return new Outcome.Cancelled(b.error());
    }
    RunError e = b.error();
    NodeResults.putStatus(result, NodeStatus.FAILED);
    result.put("error", errorMap(e.code(), e.message()));
    frame.mark(node.id(), NodeStatus.FAILED, result);
    ctx.bus.publish((seq, at) -> new Event.NodeFailed(ctx.runId, seq, at, pos, node.kind(), ms, e.code(),
        e.message(), node.allowFailure()));
    journal(node, pos, NodeStatus.FAILED, 1, started, result, usage, e.code(), e.message(), null);
    return new Outcome.Failed(e, node.allowFailure());
  }

  private boolean retry(Node node, NodePosition pos, int attempt, String message) {
    ctx.bus.publish((seq, at) -> new Event.NodeRetrying(ctx.runId, seq, at, pos, node.kind(), attempt + 1, message));
    try {
      Thread.sleep(node.retry().delay().toMillis());
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private Outcome failed(Node node, NodePosition pos, Frame frame, Instant started, Map<String, Object> rendered,
      Usage usage, int attempts, String code, String message, Map<String, Object> partial, Map<String, Object> details) {
    String full = node.kind() + " node '" + pos.path() + "' failed: " + message;
    Map<String, Object> fields = new LinkedHashMap<>();
    Map<Object, Object> copies = new java.util.IdentityHashMap<>(); // a value under two names is copied once
    partial.forEach((k, v) -> fields.put(k, v == null ? null : copies.computeIfAbsent(v, Values::plain)));
    NodeResults.putStatus(fields, NodeStatus.FAILED);
    Map<String, Object> result = NodeResults.report(fields, NodeStatus.FAILED);
    result.put("error", errorMap(code, message));
    frame.mark(node.id(), NodeStatus.FAILED, result);
    long ms = Duration.between(started, ctx.bus.now()).toMillis();
    ctx.bus.publish((seq, at) -> new Event.NodeFailed(ctx.runId, seq, at, pos, node.kind(), ms, code, message,
        node.allowFailure()));
    journal(node, pos, NodeStatus.FAILED, attempts, started, rendered, result, usage, code, message, null, null);
    // allow_failure forgives the node's own failure, never a spent budget: that stops the run (SPEC §5).
    return new Outcome.Failed(new RunError(code, code.equals(ErrorCode.NODE_FAILED.code()) ? full : message,
        node.id(), pos.path(), details), node.allowFailure() && !code.equals(ErrorCode.BUDGET_EXCEEDED.code()));
  }

  private static Map<String, Object> errorMap(String code, String message) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("code", code);
    m.put("message", message);
    return m;
  }

  private Outcome cancelled(Node node, NodePosition pos, Frame frame, Instant started, Usage usage, int attempts) {
    recordCancelled(node, frame);
    journal(node, pos, NodeStatus.CANCELLED, attempts, started, Map.of("status", "cancelled"), usage, "cancelled",
        "cancelled while running", null);
    return new Outcome.Cancelled(null);
  }

  void recordCancelled(Node node, Frame frame) {
    if (frame.ownStatus(node.id()) == null || frame.ownStatus(node.id()) == NodeStatus.PAUSED) {
      frame.mark(node.id(), NodeStatus.CANCELLED, Map.of("status", "cancelled"));
      NodePosition pos = frame.position(node.id());
      ctx.bus.publish((seq, at) -> new Event.NodeCancelled(ctx.runId, seq, at, pos, node.kind()));
    }
  }

  void recordTimeout(Node node, Frame frame, String message) {
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("status", NodeStatus.FAILED.json());
    result.put("error", errorMap(ErrorCode.TIMEOUT.code(), message));
    frame.mark(node.id(), NodeStatus.FAILED, result);
    NodePosition pos = frame.position(node.id());
    ctx.bus.publish((seq, at) -> new Event.NodeFailed(ctx.runId, seq, at, pos, node.kind(), 0,
        ErrorCode.TIMEOUT.code(), message, node.allowFailure()));
  }

  /** A node whose edge or {@code when} condition threw: recorded as failed, never silently skipped. */
  void recordConditionFailure(Node node, Frame frame, String message) {
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("status", NodeStatus.FAILED.json());
    result.put("error", errorMap(ErrorCode.NODE_FAILED.code(), message));
    frame.mark(node.id(), NodeStatus.FAILED, result);
    NodePosition pos = frame.position(node.id());
    ctx.bus.publish((seq, at) -> new Event.NodeFailed(ctx.runId, seq, at, pos, node.kind(), 0,
        ErrorCode.NODE_FAILED.code(), message, false));
  }

  void journal(Node node, NodePosition pos, NodeStatus status, int attempts, Instant started,
      Map<String, Object> result, Usage usage, String code, String message, Map<String, Object> statePatch) {
    journal(node, pos, status, attempts, started, null, result, usage, code, message, statePatch, null);
  }

  void journal(Node node, NodePosition pos, NodeStatus status, int attempts, Instant started,
      Map<String, Object> rendered, Map<String, Object> result, Usage usage, String code, String message,
      Map<String, Object> statePatch, Map<String, java.util.List<Map<String, String>>> sessions) {
    ctx.journal(new NodeExecution(ctx.runId, pos, node.kind(), status, attempts, started, ctx.bus.now(), rendered,
        result, usage, code, message, statePatch == null ? null : castMap(Values.plain(statePatch)), sessions));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> castMap(Object o) {
    return (Map<String, Object>) o;
  }

  /** A node's shaped result; {@code innerUsage}: what a loop's body spent (not counted in the loop's own context). */
  record Shaped(Map<String, Object> result, Object output, Map<String, Object> statePatch, String cancelRun,
      Usage innerUsage) {
    Shaped(Map<String, Object> result, Object output, Map<String, Object> statePatch, String cancelRun) {
      this(result, output, statePatch, cancelRun, Usage.NONE);
    }
  }

  private Shaped run(Node node, NodeContextImpl ctx, Frame frame, ExecGraph graph) throws Exception {
    return switch (node.body()) {
      case Node.Work w -> {
        NodeOutcome o = w.program().execute(ctx);
        if (o == null) {
          throw new LoopflowException(ErrorCode.NODE_FAILED, "the handler returned no outcome", ctx.position());
        }
        Map<String, Object> result = new LinkedHashMap<>();
        Object out = Values.plain(o.output());
        result.put("output", out);
        // A field that is the output itself (an http body, an LLM reply's text) shares its copy instead of a second.
        o.fields().forEach((k, v) -> result.put(k, v == o.output() ? out : Values.plain(v)));
        if (!o.usage().equals(Usage.NONE) && !result.containsKey("usage")) {
          result.put("usage", usageMap(o.usage()));
        }
        yield new Shaped(result, out, o.statePatch(), null);
      }
      case Node.Router r -> router(node, r, ctx, frame, graph);
      case Node.Loop l -> this.ctx.loops.node(node, l, frame, graph, ctx);
      case Node.Marker m -> {
        Map<String, Object> loopResult = frame.result(m.pairedWith());
        Map<String, Object> result = new LinkedHashMap<>();
        if (loopResult != null) {
          loopResult.forEach((k, v) -> {
            if (!k.equals("status")) {
              result.put(k, v);
            }
          });
        }
        yield new Shaped(result, result.get("output"), null, null);
      }
      case Node.Approval a -> approval(node, a, ctx, frame);
      case Node.Cancel c -> {
        String reason = c.reason() == null ? "cancelled by node '" + node.id() + "'" : ctx.render(c.reason());
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("output", reason);
        result.put("reason", reason);
        yield new Shaped(result, reason, null, reason);
      }
      case Node.Input in -> {
        Object v = in.value() == null ? this.ctx.state.inputs : ctx.evaluate(in.value());
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("output", Values.plain(v));
        yield new Shaped(result, Values.plain(v), null, null);
      }
      case Node.Output out -> {
        Object v = out.value() == null ? feedingOutput(node, frame, graph) : ctx.evaluate(out.value());
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("output", Values.plain(v));
        yield new Shaped(result, Values.plain(v), null, null);
      }
    };
  }

  /**
   * Asks a person once, durably: the question is journaled as a paused execution and the run pauses; the answer
   * arrives with the resume. The timeout runs from when the question was first journaled, across processes.
   */
  private Shaped approval(Node node, Node.Approval a, NodeContextImpl nctx, Frame frame) {
    NodePosition pos = nctx.position();
    String message = a.message() == null ? "approve '" + pos.path() + "'?" : nctx.render(a.message());
    dev.loopflow.core.run.ResumeInput given = ctx.replay.takeInput(pos);
    dev.loopflow.core.run.ResumeInput.Decision decision = given == null ? null : given.effectiveDecision();
    String comment = given == null ? null : given.comment() != null ? given.comment()
        : given.decision() == null && decision == null ? given.text() : null;
    NodeExecution asked = ctx.replay.pausedRow(pos);
    Instant askedAt = asked != null ? asked.startedAt() : ctx.bus.now();
    Instant deadline = node.timeout() == null ? null : askedAt.plus(node.timeout());
    boolean timedOut = false;
    if (decision == null && deadline != null && !ctx.bus.now().isBefore(deadline)) {
      decision = a.approveOnTimeout() ? dev.loopflow.core.run.ResumeInput.Decision.APPROVE
          : dev.loopflow.core.run.ResumeInput.Decision.REJECT;
      timedOut = true;
    }
    if (decision == null) {
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("status", NodeStatus.PAUSED.json());
      r.put("message", message);
      if (deadline != null) {
        r.put("deadline", deadline.toString());
        r.put("default", a.approveOnTimeout() ? "approve" : "reject");
      }
      frame.mark(node.id(), NodeStatus.PAUSED, r);
      // Journaled when first asked, and again when asked anew after a rejection failed the run (so the journal's
      // latest execution here says what the run waits for); the deadline still counts from the first question.
      if (asked == null || ctx.replay.row(pos) != null) {
        ctx.journal(new NodeExecution(ctx.runId, pos, node.kind(), NodeStatus.PAUSED, 1, askedAt, askedAt, null, r,
            Usage.NONE, null, null, null, null));
      }
      String shown = deadline == null ? message : message + " (unanswered by " + deadline + ": "
          + (a.approveOnTimeout() ? "approve" : "reject") + ")";
      NodePosition.LoopFrame pass = pos.loops().isEmpty() ? null : pos.loops().get(pos.loops().size() - 1);
      ctx.requestPause(new dev.loopflow.core.run.Waiting(dev.loopflow.core.run.Waiting.Kind.APPROVAL, node.id(),
          pos.path(), pass == null ? null : pass.loopId(), pass == null ? null : pass.iteration(), message, deadline,
          deadline == null ? null : a.approveOnTimeout() ? "approve" : "reject"));
      ctx.bus.publish((seq, at) -> new Event.RunPaused(ctx.runId, seq, at, pos, shown));
      throw new LoopRunner.Paused();
    }
    boolean approved = decision == dev.loopflow.core.run.ResumeInput.Decision.APPROVE;
    if (!approved && a.failOnReject()) {
      Map<String, Object> partial = new LinkedHashMap<>();
      partial.put("decision", decision.json());
      partial.put("approved", false);
      partial.put("comment", comment);
      partial.put("timed_out", timedOut);
      throw new dev.loopflow.core.NodeFailedException("rejected" + (timedOut ? " (no answer before the timeout)" : "")
          + (comment == null || comment.isBlank() ? "" : ": " + comment), partial);
    }
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("output", decision.json());
    result.put("decision", decision.json());
    result.put("approved", approved);
    result.put("comment", comment);
    result.put("message", message);
    result.put("timed_out", timedOut);
    return new Shaped(result, decision.json(), null, null);
  }

  private Shaped router(Node node, Node.Router r, NodeContextImpl ctx, Frame frame, ExecGraph graph) {
    Object value = r.value() == null ? feedingOutput(node, frame, graph) : ctx.evaluate(r.value());
    String branch = null;
    String reason = null;
    if (r.byLlm()) {
      BranchChooser chooser = ctx.service(BranchChooser.class).orElseThrow(() -> new LoopflowException(
          ErrorCode.NODE_FAILED, "router '" + node.id() + "' chooses with an LLM but no LLM module is installed",
          ctx.position()));
      String instructions = r.instructions() == null ? null : ctx.render(r.instructions());
      BranchChooser.Choice choice = chooser.choose(ctx, r.model(), instructions, r.descriptions(), value);
      branch = choice.branch();
      reason = choice.reason();
    } else {
      Map<String, Object> scope = new LinkedHashMap<>(ctx.scope());
      scope.put("value", Values.readOnly(value));
      for (Map.Entry<String, Condition> e : r.routes().entrySet()) {
        if (e.getValue() == null || e.getValue().test(scope)) {
          branch = e.getKey();
          break;
        }
      }
      if (branch == null) {
        throw new LoopflowException(ErrorCode.NODE_FAILED, "no route matched and there is no default route "
            + "(routes: " + r.routes().keySet() + ")", ctx.position());
      }
    }
    String chosen = branch;
    this.ctx.bus.publish((seq, at) -> new Event.RouterSelected(this.ctx.runId, seq, at, ctx.position(), chosen));
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
    return new Shaped(result, output, null, null);
  }

  /**
   * The output of the node feeding this one: its first completed predecessor (a router contributes its value);
   * in a loop body with no such predecessor, the pass's {@code loop.input}; else the run's input.
   */
  Object feedingOutput(Node node, Frame frame, ExecGraph graph) {
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
    return ctx.state.inputs;
  }

  /**
   * The workflow's result: the {@code output} template, else an output node's value, else the last output. A template
   * that fails to render throws: the run must not report success with a result it could not compute.
   */
  Object workflowOutput() {
    Workflow workflow = ctx.workflow;
    Frame top = ctx.state.top;
    if (workflow.output() != null) {
      return Values.plain(workflow.output().evaluate(ctx.state.scope(top)));
    }
    for (Node n : workflow.nodes()) {
      if (n.body() instanceof Node.Output && top.ownStatus(n.id()) == NodeStatus.COMPLETED) {
        return top.ownResult(n.id()).get("output");
      }
    }
    String last = top.lastCompleted();
    return last == null ? null : top.ownResult(last).get("output");
  }

  static Map<String, Object> usageMap(Usage u) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("input_tokens", u.inputTokens());
    m.put("output_tokens", u.outputTokens());
    m.put("cost_usd", u.costUsd());
    m.put("llm_calls", u.llmCalls());
    return m;
  }

  /** The context handed to one node execution. */
  final class NodeContextImpl implements NodeContext {
    private final NodePosition position;
    private final Frame frame;
    private final Map<String, Object> scope;
    private Usage usage = Usage.NONE;
    private Map<String, Object> rendered;

    NodeContextImpl(NodePosition position, Frame frame, Map<String, Object> scope) {
      this.position = position;
      this.frame = frame;
      this.scope = scope;
    }

    synchronized Usage usage() {
      return usage;
    }

    @Override
    public String runId() {
      return ctx.runId;
    }

    @Override
    public NodePosition position() {
      return position;
    }

    @Override
    public Map<String, Object> scope() {
      return scope;
    }

    @Override
    public String render(dev.loopflow.core.expr.Template template) {
      String s = template.render(scope);
      remember(template, s);
      return s;
    }

    @Override
    public Object evaluate(dev.loopflow.core.expr.Template template) {
      Object v = template.evaluate(scope);
      remember(template, v);
      return v;
    }

    /** What this execution's templates rendered to, for the journal ("inputs as rendered"); literals are left out. */
    private synchronized void remember(dev.loopflow.core.expr.Template template, Object value) {
      if (!template.isLiteral()) {
        if (rendered == null) {
          rendered = new LinkedHashMap<>();
        }
        rendered.put(template.source(), Values.plain(value));
      }
    }

    synchronized Map<String, Object> rendered() {
      return rendered;
    }

    @Override
    public boolean test(Condition condition) {
      return condition.test(scope);
    }

    @Override
    public Map<String, Object> defaults() {
      return ctx.workflow.defaults();
    }

    @Override
    public Object workflowBlock(String name) {
      return ctx.workflow.blocks().get(name);
    }

    @Override
    public java.util.Optional<Object> option(String name) {
      return java.util.Optional.ofNullable(ctx.options.options().get(name));
    }

    @Override
    public Map<String, String> environment() {
      return ctx.options.environment();
    }

    @Override
    public java.nio.file.Path workingDirectory() {
      return ctx.options.workingDirectory();
    }

    @Override
    public Duration remaining() {
      Instant d = ctx.deadline;
      return d == null ? null : Duration.between(ctx.bus.now(), d);
    }

    @Override
    public void checkCancelled() {
      if (Thread.currentThread().isInterrupted()) {
        throw new LoopflowException(ErrorCode.CANCELLED, "cancelled", position);
      }
    }

    @Override
    public LlmAccounting llm() {
      return plan -> {
        checkCancelled();
        Budgets.Reservation r = Budgets.reserve(frame.budgets, plan, position);
        return new Reservation() {
          @Override
          public Integer maxOutputTokens() {
            return r.maxOutputTokens();
          }

          @Override
          public void settle(LlmCall call) {
            Usage u = Usage.ofCall(call.inputTokens(), call.outputTokens(), call.costUsd());
            LoopflowException over = r.settle(u);
            count(u);
            ctx.bus.publish((seq, at) -> new Event.LlmCalled(ctx.runId, seq, at, position, call.provider(),
                call.model(), call.inputTokens(), call.outputTokens(), call.costUsd(), call.mock(), call.attempts(),
                call.durationMillis()));
            if (over != null) {
              throw over;
            }
          }

          @Override
          public void release() {
            count(r.release());
          }

          @Override
          public void charge() {
            count(r.charge());
          }

          @Override
          public void cancel() {
            r.cancel();
          }
        };
      };
    }

    /** Adds a call to this execution's usage, which is journaled with it (a resume counts it again from there). */
    private synchronized void count(Usage u) {
      if (u != null) {
        usage = usage.plus(u);
      }
    }

    private final Map<String, java.util.List<Map<String, String>>> appended = new LinkedHashMap<>();

    /** Turns this execution added, by session key: journaled so a resumed run restores its sessions. */
    synchronized Map<String, java.util.List<Map<String, String>>> sessionTurns() {
      return appended.isEmpty() ? null : new LinkedHashMap<>(appended);
    }

    @Override
    public Conversation conversation(String name) {
      // Names starting with NUL are a module's own bookkeeping (the mock's script position), never a chat
      // session, so fresh_context leaves them alone.
      String key = frame.sessionScope == null || name.startsWith("\u0000") ? name : name + "@" + frame.sessionScope;
      Conversation c = ctx.state.conversation(key);
      return new Conversation() {
        @Override
        public java.util.List<Turn> turns() {
          return c.turns();
        }

        @Override
        public void append(Turn turn) {
          c.append(turn);
          synchronized (NodeContextImpl.this) {
            Map<String, String> t = new LinkedHashMap<>();
            t.put("role", turn.role());
            t.put("content", turn.content());
            appended.computeIfAbsent(key, k -> new java.util.ArrayList<>()).add(t);
          }
        }
      };
    }

    @Override
    public <T> java.util.Optional<T> service(Class<T> type) {
      return java.util.Optional.ofNullable(type.cast(ctx.services.get(type)));
    }
  }
}
