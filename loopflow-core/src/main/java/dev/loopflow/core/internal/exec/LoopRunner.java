package dev.loopflow.core.internal.exec;

import dev.loopflow.core.ErrorCode;
import dev.loopflow.core.LoopIterationExceededException;
import dev.loopflow.core.LoopflowException;
import dev.loopflow.core.MaxIterationsExceededException;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.expr.Values;
import dev.loopflow.core.internal.plan.ExecGraph;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.ExitReason;
import dev.loopflow.core.model.LoopConfig;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.model.NodePosition;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RunError;
import dev.loopflow.core.similarity.Similarity;
import dev.loopflow.core.spi.Usage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

/*
 * Design notes.
 *
 * The loop core. Every construct is a Front (its exit test, how a pass is fed and what a pass yields) driven by
 * one loop, drive(), which owns what all constructs share: the counter and the bound, on_exhausted, the
 * loop.started / loop.iteration / loop.completed events, previous-pass outputs (loop.prev), the loop's own
 * budget and usage, cancellation, and positions (each pass runs in a frame whose position carries the loop id
 * and the iteration, so body executions never collide and a journal can key them).
 *
 * The bound: an iteration is one pass through the body and max bounds passes, the first included. The exit test
 * runs after every pass (while_loop: before every pass, including the first). The bound is exhausted only when
 * max passes have run and the exit test still asks for another; so a while_loop whose condition turns false
 * after exactly max passes completes with condition_false, and a loop edge fails on the loop-back that would
 * start pass max+1.
 *
 * Nothing about a loop's progress lives only in local variables that a resume would need: each pass's body
 * executions are journaled under the pass's position, and a resumed run re-enters the loop, finds those
 * executions in the replay and restores them instead of running them, which rebuilds the counter, loop.prev and
 * the loop's spending exactly. The only other fact, a person's answer at an interactive gate, is journaled as
 * an execution of the gate's own position.
 */
final class LoopRunner {
  private final RunContext ctx;

  LoopRunner(RunContext ctx) {
    this.ctx = ctx;
  }

  /** The run paused inside a loop; unwinds to the top without recording anything as failed. */
  static final class Paused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Paused() {
      super(null, null, false, false);
    }
  }

  /** A loop stopped abnormally: its body failed or was cancelled, or its bound was exhausted with fail. */
  static final class BodyStopped extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient RunError error;
    private final boolean cancelled;
    private final transient Map<String, Object> partial;

    BodyStopped(RunError error, boolean cancelled, Map<String, Object> partial) {
      super(error == null ? "cancelled" : error.message(), null, false, false);
      this.error = error;
      this.cancelled = cancelled;
      this.partial = partial;
    }

    RunError error() {
      return error;
    }

    boolean cancelled() {
      return cancelled;
    }

    Map<String, Object> partial() {
      return partial;
    }
  }

  /** Mutable progress of one loop execution. Lives for one execution; a resume rebuilds it by replay. */
  private static final class State {
    int iteration;
    Object input;
    Object output;
    Object previousOutput;
    final List<Object> outputs = new ArrayList<>();
    Map<String, Object> prev = Map.of();
    String userInput;
    Frame lastFrame;
    boolean exitReached;
  }

  /** One construct's front end over the core. */
  private abstract class Front {
    final String id;
    final String construct;
    final int max;
    final Edge.OnExhausted onExhausted;
    final NodePosition pos;
    final Frame outer;
    final ExecGraph graph;
    final Budgets budget;

    Front(String id, String construct, int max, Edge.OnExhausted onExhausted, NodePosition pos, Frame outer,
        ExecGraph graph, dev.loopflow.core.model.Budget budget) {
      this.id = id;
      this.construct = construct;
      this.max = max;
      this.onExhausted = onExhausted;
      this.pos = pos;
      this.outer = outer;
      this.graph = graph;
      this.budget = ctx.budgets.forLoop(budget, construct + " '" + pos.path() + "'");
    }

    boolean testsBeforePass() {
      return false;
    }

    /** The first pass's {@code loop.input}. */
    Object initialInput() {
      return null;
    }

    /** Null: another pass is wanted. Runs after each pass (and before the first when testsBeforePass). */
    abstract ExitReason exitTest(State st) throws InterruptedException;

    /** The frame that contains the passes' frames. */
    Frame container() {
      return outer;
    }

    String sessionScope(State st) {
      return null;
    }

    String loopedInto(State st) {
      return null;
    }

    /** Between passes, before the next one starts: feedback, gates, loop-back events. */
    void beforeNextPass(State st) {}

    /** What pass {@code st.iteration} yielded, read from its frame. */
    abstract Object passOutput(State st, Frame body);

    /** After a pass completed (graph-form loops publish their body results to the enclosing level). */
    void afterPass(State st, Frame body) {}

    /** The error for an exhausted bound with on_exhausted: fail. */
    abstract LoopflowException exhausted(State st);

    /** The loop's result value ({@code output}). */
    Object finalOutput(State st) {
      return st.output;
    }
  }

  // ---------------------------------------------------------------------------------------------------------
  // Entry points

  /** Runs a loop node; called by the node runner on the node's thread. */
  NodeRunner.Shaped node(Node node, Node.Loop loop, Frame frame, ExecGraph graph, NodeRunner.NodeContextImpl nctx)
      throws InterruptedException {
    ExecGraph.Body body = graph.body(node.id());
    NodePosition pos = frame.position(node.id());
    if (loop.config() instanceof LoopConfig.Iterate it) {
      return iterate(node, loop, it, frame, body, pos, nctx);
    }
    Front front = switch (loop.config()) {
      case LoopConfig.Refine r -> new RefineFront(node, loop, r, frame, graph, body, pos, nctx);
      case LoopConfig.While w -> new WhileFront(node, loop, w, frame, body, pos);
      case LoopConfig.Group g -> new GroupFront(node, loop, g, frame, body, pos);
      case LoopConfig.Iterate it -> throw new IllegalStateException("handled above");
    };
    End end = drive(front);
    return shaped(front, end);
  }

  /** Runs a loop edge's cycle region as one unit of its level. */
  NodeRunner.Outcome region(ExecGraph.RegionUnit ru, Frame frame) {
    Edge e = ru.edge();
    EdgeFront front = new EdgeFront(ru, frame);
    try {
      End end = drive(front);
      Map<String, Object> r = result(front, end);
      r.put("edge", ru.id());
      r.put("max_iterations", e.maxIterations());
      frame.attach(e.from(), "loop", r);
      return new NodeRunner.Outcome.Completed(null);
    } catch (Paused p) {
      return new NodeRunner.Outcome.Paused();
    } catch (BodyStopped b) {
      Map<String, Object> r = new LinkedHashMap<>(b.partial());
      r.put("edge", ru.id());
      r.put("max_iterations", e.maxIterations());
      frame.attach(e.from(), "loop", r);
      return b.cancelled() ? new NodeRunner.Outcome.Cancelled(b.error()) : new NodeRunner.Outcome.Failed(b.error(),
          false);
    } catch (InterruptedException ie) {
      return new NodeRunner.Outcome.Cancelled(null);
    }
  }

  // ---------------------------------------------------------------------------------------------------------
  // The core

  private record End(State st, ExitReason reason) {}

  private End drive(Front f) throws InterruptedException {
    State st = new State();
    st.input = f.initialInput();
    if (!ctx.replay.covers(f.pos, 1)) {
      ctx.bus.publish((seq, at) -> new Event.LoopStarted(ctx.runId, seq, at, f.pos, f.construct, f.max));
    }
    for (;;) {
      if (f.testsBeforePass() || st.iteration > 0) {
        ExitReason r;
        try {
          r = f.exitTest(st);
        } catch (LoopflowException e) {
          throw stop(f, st, ExitReason.ERROR, errorOf(e, f), false);
        }
        if (r != null) {
          return end(f, st, r);
        }
      }
      if (st.iteration == f.max) {
        if (f.onExhausted == Edge.OnExhausted.CONTINUE) {
          return end(f, st, ExitReason.MAX_ITERATIONS);
        }
        LoopflowException e = f.exhausted(st);
        throw stop(f, st, ExitReason.MAX_ITERATIONS, errorOf(e, f), false);
      }
      if (st.iteration > 0) {
        try {
          f.beforeNextPass(st);
        } catch (LoopflowException e) {
          throw stop(f, st, ExitReason.ERROR, errorOf(e, f), false);
        }
      }
      if (Thread.currentThread().isInterrupted() || ctx.stopRequested) {
        throw stop(f, st, ExitReason.CANCELLED, null, true);
      }
      st.iteration++;
      int i = st.iteration;
      Frame body = f.container().child(f.id, i, vars(f, st), f.sessionScope(st), f.budget);
      if (!ctx.replay.covers(f.pos, i)) {
        String preview = ctx.preview(st.input);
        Boolean cond = f.testsBeforePass() ? Boolean.TRUE : null;
        ctx.bus.publish((seq, at) -> new Event.LoopIteration(ctx.runId, seq, at, f.pos, f.construct, i, i - 1, f.max,
            f.max, preview, cond));
      }
      GraphRun.Result res = new GraphRun(ctx, f.graph, body, f.loopedInto(st)).run();
      st.lastFrame = body;
      switch (res) {
        case GraphRun.Result.Completed c -> { }
        case GraphRun.Result.Failed failed -> {
          ExitReason why = ErrorCode.BUDGET_EXCEEDED.code().equals(failed.error().code()) ? ExitReason.BUDGET
              : ExitReason.ERROR;
          throw stop(f, st, why, failed.error(), false);
        }
        case GraphRun.Result.Cancelled c -> throw stop(f, st, ExitReason.CANCELLED, c.error(), true);
        case GraphRun.Result.Paused p -> throw new Paused();
      }
      st.previousOutput = st.output;
      st.output = f.passOutput(st, body);
      st.outputs.add(st.output);
      st.prev = Collections.unmodifiableMap(body.ownResults());
      f.afterPass(st, body);
    }
  }

  private static boolean spentBudget(GraphRun.Result.Failed failed) {
    return ErrorCode.BUDGET_EXCEEDED.code().equals(failed.error().code());
  }

  private Map<String, Object> vars(Front f, State st) {
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("iteration", st.iteration);
    v.put("index", st.iteration - 1);
    v.put("max", f.max);
    v.put("input", st.input);
    v.put("prev", st.prev);
    v.put("user_input", st.userInput == null ? "" : st.userInput);
    v.put("id", f.id);
    Map<String, Object> parent = f.outer.loopVars();
    if (parent != null) {
      v.put("parent", parent);
    }
    return Collections.unmodifiableMap(v);
  }

  private End end(Front f, State st, ExitReason reason) {
    Usage u = f.budget.used();
    ctx.bus.publish((seq, at) -> new Event.LoopCompleted(ctx.runId, seq, at, f.pos, f.construct, st.iteration,
        reason.json(), u.inputTokens(), u.outputTokens(), u.costUsd(), u.llmCalls()));
    return new End(st, reason);
  }

  private BodyStopped stop(Front f, State st, ExitReason reason, RunError error, boolean cancelled) {
    end(f, st, reason);
    Map<String, Object> partial = result(f, new End(st, reason));
    return new BodyStopped(error, cancelled, partial);
  }

  private RunError errorOf(LoopflowException e, Front f) {
    String node = f instanceof EdgeFront ef ? ef.edge.from() : f.id;
    return new RunError(e.code().code(), e.getMessage(), node, f.pos.path(), e.details());
  }

  private Map<String, Object> result(Front f, End end) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("output", Values.plain(f.finalOutput(end.st())));
    r.put("iterations", Values.plain(end.st().outputs));
    r.put("count", end.st().iteration);
    r.put("exit_reason", end.reason().json());
    r.put("usage", NodeRunner.usageMap(f.budget.used()));
    return r;
  }

  private NodeRunner.Shaped shaped(Front f, End end) {
    Map<String, Object> r = result(f, end);
    return new NodeRunner.Shaped(r, r.get("output"), null, null, f.budget.used());
  }

  /** The output a completed node contributes downstream: a router's value, else its output. */
  private static Object valueOf(Map<String, Object> r) {
    if (r == null) {
      return null;
    }
    return r.containsKey("selectedBranch") ? r.get("value") : r.get("output");
  }

  /**
   * The result of the body node whose edge into the loop's exit/aggregator is active after a pass (source
   * completed, branch and condition hold), or null when the pass did not reach it.
   */
  private Map<String, Object> exitReached(ExecGraph.Body body, Frame f) {
    Map<String, Object> scope = null;
    for (ExecGraph.Incoming in : body.exitEdges()) {
      if (f.ownStatus(in.from()) != NodeStatus.COMPLETED) {
        continue;
      }
      Map<String, Object> r = f.ownResult(in.from());
      if (in.branch() != null && !in.branch().equals(r.get("selectedBranch"))) {
        continue;
      }
      if (in.when() != null) {
        if (scope == null) {
          scope = ctx.state.scope(f);
        }
        if (!in.when().test(scope)) {
          continue;
        }
      }
      return r;
    }
    return null;
  }

  private static Object lastOutput(Frame body) {
    String last = body.lastCompleted();
    return last == null ? null : valueOf(body.ownResult(last));
  }

  // ---------------------------------------------------------------------------------------------------------
  // Front ends

  /** 001: a loop edge S -> T; the region re-runs while the edge's condition holds after S. */
  private final class EdgeFront extends Front {
    final Edge edge;

    EdgeFront(ExecGraph.RegionUnit ru, Frame outer) {
      super(ru.id(), "loop_edge", ru.edge().maxIterations(), ru.edge().onExhausted(), outer.position(ru.id()),
          outer, ru.body(), dev.loopflow.core.model.Budget.NONE);
      this.edge = ru.edge();
    }

    @Override
    ExitReason exitTest(State st) {
      Frame body = st.lastFrame;
      if (body.ownStatus(edge.from()) != NodeStatus.COMPLETED) {
        return ExitReason.CONDITION_FALSE;
      }
      if (edge.when() != null && !edge.when().test(ctx.state.scope(body))) {
        return ExitReason.CONDITION_FALSE;
      }
      return null;
    }

    @Override
    String loopedInto(State st) {
      return st.iteration > 1 ? edge.to() : null;
    }

    @Override
    void beforeNextPass(State st) {
      int n = st.iteration;
      ctx.bus.publish((seq, at) -> new Event.LoopIterate(ctx.runId, seq, at, pos, edge.from(), edge.to(), n, max));
    }

    @Override
    Object passOutput(State st, Frame body) {
      return valueOf(body.ownResult(edge.from()));
    }

    @Override
    void afterPass(State st, Frame body) {
      body.copyUp();
    }

    @Override
    LoopflowException exhausted(State st) {
      return new LoopIterationExceededException(edge.from(), edge.to(), max, pos);
    }
  }

  /** 000: a loop node and its exit; evaluator, stable output or a fixed number of passes; feedback modes. */
  private final class RefineFront extends Front {
    final LoopConfig.Refine cfg;
    final ExecGraph.Body body;
    final Object initial;

    RefineFront(Node node, Node.Loop loop, LoopConfig.Refine cfg, Frame frame, ExecGraph graph, ExecGraph.Body body,
        NodePosition pos, NodeRunner.NodeContextImpl nctx) {
      super(node.id(), "loop", loop.maxIterations(), loop.onExhausted(), pos, frame, body.graph(), loop.budget());
      this.cfg = cfg;
      this.body = body;
      this.initial = loop.input() != null ? Values.plain(nctx.evaluate(loop.input()))
          : ctx.runner.feedingOutput(node, frame, graph);
      if (cfg.feedbackMode() == LoopConfig.Feedback.APPEND && !(initial instanceof String)) {
        throw new LoopflowException(ErrorCode.NODE_FAILED, "feedbackMode append works on text, but the loop's input "
            + "is " + Values.describe(initial) + "; use feedbackMode replace or give a text input", pos);
      }
    }

    @Override
    Object initialInput() {
      return initial;
    }

    @Override
    ExitReason exitTest(State st) {
      return switch (cfg.exitCondition()) {
        case MAX_ITERATIONS -> null;
        case EVALUATOR -> st.exitReached || routerSaidDone(st.lastFrame) ? ExitReason.EVALUATOR_DONE : null;
        case STABLE_OUTPUT -> st.iteration >= 2 && Similarity.atLeast(st.previousOutput, st.output,
            cfg.stabilityThreshold()) ? ExitReason.STABLE_OUTPUT : null;
      };
    }

    private boolean routerSaidDone(Frame f) {
      for (ExecGraph.Unit u : graph.units()) {
        if (u instanceof ExecGraph.NodeUnit nu && nu.node().body() instanceof Node.Router
            && f.ownStatus(nu.id()) == NodeStatus.COMPLETED
            && "done".equals(f.ownResult(nu.id()).get("selectedBranch"))) {
          return true;
        }
      }
      return false;
    }

    @Override
    void beforeNextPass(State st) {
      if (cfg.feedbackMode() == LoopConfig.Feedback.REPLACE) {
        st.input = st.output;
      } else {
        String out = st.output instanceof String s ? s : st.output == null ? "" : Json.compact(st.output);
        st.input = st.input + "\n---\n" + out;
      }
    }

    @Override
    Object passOutput(State st, Frame f) {
      Map<String, Object> reached = exitReached(body, f);
      st.exitReached = reached != null;
      return reached != null ? valueOf(reached) : lastOutput(f);
    }

    @Override
    void afterPass(State st, Frame f) {
      f.copyUp();
    }

    @Override
    LoopflowException exhausted(State st) {
      return new MaxIterationsExceededException("loop", id, max, switch (cfg.exitCondition()) {
        case EVALUATOR -> "the evaluator never chose 'done'";
        case STABLE_OUTPUT -> "the output never became stable (threshold " + cfg.stabilityThreshold() + ")";
        case MAX_ITERATIONS -> null;
      }, pos);
    }
  }

  /** 003: condition before each pass, body in order, state threaded through. */
  private final class WhileFront extends Front {
    final LoopConfig.While cfg;
    final Frame persistent;

    WhileFront(Node node, Node.Loop loop, LoopConfig.While cfg, Frame frame, ExecGraph.Body body, NodePosition pos) {
      super(node.id(), "while_loop", loop.maxIterations(), loop.onExhausted(), pos, frame, body.graph(),
          loop.budget());
      this.cfg = cfg;
      // Body results persist across passes (latest wins) but stay scoped to the loop.
      this.persistent = new Frame(frame, frame.loops, null, null, frame.budgets);
    }

    @Override
    boolean testsBeforePass() {
      return true;
    }

    @Override
    Frame container() {
      return persistent;
    }

    /**
     * The condition is a field of the while_loop node, so it is evaluated where the node sits: {@code loop} is the
     * enclosing loop's on every check (never this loop's last pass on some checks only), and the body's latest
     * results are readable through the loop's own frame.
     */
    @Override
    ExitReason exitTest(State st) {
      return cfg.condition().test(ctx.state.scope(persistent)) ? null : ExitReason.CONDITION_FALSE;
    }

    @Override
    Object passOutput(State st, Frame body) {
      return lastOutput(body);
    }

    @Override
    void afterPass(State st, Frame body) {
      body.copyUp();
    }

    @Override
    Object finalOutput(State st) {
      return ctx.state.stateCopy();
    }

    @Override
    LoopflowException exhausted(State st) {
      return new MaxIterationsExceededException("while_loop", id, max, "its condition '" + cfg.condition().source()
          + "' was still true after " + max + " passes", pos);
    }
  }

  /** 004: a sealed sub-DAG repeated until a signal or a command says done; interactive gates between passes. */
  private final class GroupFront extends Front {
    final LoopConfig.Group cfg;
    final Node loopNode;

    GroupFront(Node node, Node.Loop loop, LoopConfig.Group cfg, Frame frame, ExecGraph.Body body, NodePosition pos) {
      super(node.id(), "loop_group", loop.maxIterations(), loop.onExhausted(), pos, frame, body.graph(),
          loop.budget());
      this.cfg = cfg;
      this.loopNode = node;
    }

    @Override
    String sessionScope(State st) {
      return cfg.freshContext() ? pos.path() + "#" + st.iteration : null;
    }

    @Override
    ExitReason exitTest(State st) throws InterruptedException {
      if (cfg.until() != null && Signals.matches(st.output, cfg.until())) {
        return ExitReason.SIGNAL;
      }
      if (cfg.untilCommand() != null) {
        ExecGraph g = ExecGraph.ofBody(List.of(cfg.untilCommand()), true);
        NodeRunner.Outcome o = ctx.runner.execute(cfg.untilCommand(), st.lastFrame, g);
        if (o instanceof NodeRunner.Outcome.Cancelled || Thread.currentThread().isInterrupted()) {
          throw new InterruptedException();
        }
        if (o instanceof NodeRunner.Outcome.Completed) {
          return ExitReason.COMMAND;
        }
        if (o instanceof NodeRunner.Outcome.Failed failed && !ranAndExited(st, failed)) {
          // Only an exit status answers "done?". A command that never ran (a value refused as unsafe, a template
          // that failed to render, a shell that could not start) must not silently mean "another pass".
          throw stop(this, st, ExitReason.ERROR, failed.error(), false);
        }
      }
      return null;
    }

    /** True when the until command ran and exited (its result has an exit code), or ran out of time. */
    private boolean ranAndExited(State st, NodeRunner.Outcome.Failed failed) {
      Map<String, Object> result = st.lastFrame.ownResult(cfg.untilCommand().id());
      return result != null && result.containsKey("exitCode")
          || ErrorCode.TIMEOUT.code().equals(failed.error().code());
    }

    @Override
    void beforeNextPass(State st) {
      st.userInput = null;
      if (!cfg.interactive()) {
        return;
      }
      List<NodePosition.LoopFrame> loops = new ArrayList<>(pos.loops());
      loops.add(new NodePosition.LoopFrame(id, st.iteration));
      NodePosition gate = new NodePosition(loops, "gate");
      var row = ctx.replay.row(gate);
      if (row != null) {
        Object in = row.result().get("input");
        st.userInput = in == null ? "" : String.valueOf(in);
        return;
      }
      dev.loopflow.core.run.ResumeInput given = ctx.replay.takeInput(gate);
      String answer = given == null ? null : given.gateText();
      Instant now = ctx.bus.now();
      if (answer != null) {
        st.userInput = answer;
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("status", "completed");
        r.put("input", answer);
        ctx.journal(new dev.loopflow.core.store.NodeExecution(ctx.runId, gate, "gate", NodeStatus.COMPLETED, 1, now,
            now, null, r, Usage.NONE, null, null, null, null));
        return;
      }
      String message = cfg.gateMessage() == null
          ? "loop_group '" + pos.path() + "' finished pass " + st.iteration + " of " + max + "; reply to continue"
          : cfg.gateMessage().render(ctx.state.scope(st.lastFrame));
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("status", "paused");
      r.put("message", message);
      ctx.journal(new dev.loopflow.core.store.NodeExecution(ctx.runId, gate, "gate", NodeStatus.PAUSED, 1, now, now,
          null, r, Usage.NONE, null, null, null, null));
      ctx.requestPause(new dev.loopflow.core.run.Waiting(dev.loopflow.core.run.Waiting.Kind.INPUT, id, gate.path(), id,
          st.iteration, message, null, null));
      ctx.bus.publish((seq, at) -> new Event.RunPaused(ctx.runId, seq, at, gate, message));
      throw new Paused();
    }

    @Override
    Object passOutput(State st, Frame body) {
      String t = terminal(body);
      return t == null || body.ownStatus(t) != NodeStatus.COMPLETED ? null : valueOf(body.ownResult(t));
    }

    /** 004's terminal-output rule: {@code output:}, else the first body node (definition order) no other depends on. */
    private String terminal(Frame body) {
      if (cfg.terminal() != null) {
        return cfg.terminal();
      }
      // Only a terminal node that completed counts: a failed one's leftover output must never signal completion.
      for (ExecGraph.Unit u : graph.units()) {
        if (graph.successors(u.id()).isEmpty() && body.ownStatus(u.id()) == NodeStatus.COMPLETED) {
          return u.id();
        }
      }
      return null;
    }

    @Override
    LoopflowException exhausted(State st) {
      String why = cfg.until() != null ? "no pass produced the completion signal '" + cfg.until() + "'"
          + (cfg.untilCommand() != null ? " and until_command never exited 0" : "")
          : cfg.untilCommand() != null ? "until_command never exited 0" : null;
      return new MaxIterationsExceededException("loop_group", id, max, why, pos);
    }
  }

  // ---------------------------------------------------------------------------------------------------------
  // Iterator: one pass per item, optionally several at once, results in item order.

  private NodeRunner.Shaped iterate(Node node, Node.Loop loop, LoopConfig.Iterate cfg, Frame frame,
      ExecGraph.Body body, NodePosition pos, NodeRunner.NodeContextImpl nctx) throws InterruptedException {
    Object itemsValue = Values.plain(nctx.evaluate(cfg.items()));
    if (!(itemsValue instanceof List<?> items)) {
      throw new LoopflowException(ErrorCode.NODE_FAILED, "iterator items must yield an array, got "
          + Values.describe(itemsValue), pos);
    }
    int n = items.size();
    Budgets budget = ctx.budgets.forLoop(loop.budget(), "iterator '" + pos.path() + "'");
    if (!ctx.replay.covers(pos, 1)) {
      ctx.bus.publish((seq, at) -> new Event.LoopStarted(ctx.runId, seq, at, pos, "iterator", n));
    }
    GraphRun.Result[] results = new GraphRun.Result[n];
    Frame[] frames = new Frame[n];
    List<Future<?>> futures = new ArrayList<>();
    Semaphore permits = new Semaphore(cfg.concurrency());
    // Set by an item before it frees its permit, so the loop sees it before starting the next item.
    AtomicBoolean stop = new AtomicBoolean();
    Map<String, Object> parent = frame.loopVars();
    boolean interrupted = false;
    int started = 0;
    try {
      for (int i = 0; i < n; i++) {
        permits.acquire();
        if (stop.get() || ctx.stopRequested) {
          permits.release();
          break;
        }
        int idx = i;
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("item", Values.plain(items.get(i)));
        v.put("index", i);
        v.put("iteration", i + 1);
        v.put("max", n);
        v.put("input", Values.plain(items.get(i)));
        v.put("prev", Map.of());
        v.put("user_input", "");
        v.put("id", node.id());
        if (parent != null) {
          v.put("parent", parent);
        }
        Frame f = frame.child(node.id(), i + 1, Collections.unmodifiableMap(v), null, budget);
        frames[i] = f;
        if (!ctx.replay.covers(pos, i + 1)) {
          String preview = ctx.preview(items.get(i));
          ctx.bus.publish((seq, at) -> new Event.LoopIteration(ctx.runId, seq, at, pos, "iterator", idx + 1, idx, n,
              n, preview, null));
        }
        started++;
        futures.add(ctx.executor.submit(() -> {
          try {
            GraphRun.Result r = new GraphRun(ctx, body.graph(), f, null).run();
            results[idx] = r;
            if (!(r instanceof GraphRun.Result.Completed)
                && !(r instanceof GraphRun.Result.Failed fl && cfg.continueOnError() && !spentBudget(fl))) {
              stop.set(true);
            }
          } finally {
            permits.release();
          }
        }));
      }
    } catch (InterruptedException ie) {
      futures.forEach(fu -> fu.cancel(true));
      interrupted = true;
    }
    // Join every started item before reporting. (A cancelled future returns at once, so on cancellation an
    // interrupted item may still be finishing.)
    for (Future<?> fu : futures) {
      try {
        fu.get();
      } catch (InterruptedException ie) {
        futures.forEach(x -> x.cancel(true));
        interrupted = true;
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.CancellationException e) {
        // the item's result slot stays empty and counts as cancelled
      }
    }
    RunError failure = null;
    boolean cancelled = interrupted;
    boolean paused = false;
    List<Object> list = new ArrayList<>();
    List<Map<String, Object>> errors = new ArrayList<>();
    for (int k = 0; k < started; k++) {
      GraphRun.Result r = results[k];
      Object value = null;
      switch (r) {
        case null -> cancelled = true;
        case GraphRun.Result.Completed c -> {
          Map<String, Object> reached = exitReached(body, frames[k]);
          value = Values.plain(reached != null ? valueOf(reached) : lastOutput(frames[k]));
        }
        case GraphRun.Result.Failed fl -> {
          // continue_on_error forgives an item's own failure, never a spent budget (as allow_failure does).
          if (cfg.continueOnError() && !spentBudget(fl)) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("index", k);
            e.put("code", fl.error().code());
            e.put("message", fl.error().message());
            e.put("node", fl.error().node());
            errors.add(e);
          } else if (failure == null) {
            failure = fl.error();
          }
        }
        case GraphRun.Result.Cancelled c -> {
          cancelled = true;
          if (failure == null && c.error() != null) {
            failure = c.error();
          }
        }
        case GraphRun.Result.Paused p -> paused = true;
      }
      list.add(value);
    }
    if (paused && failure == null && !cancelled) {
      throw new Paused();
    }
    int count = started;
    Usage used = budget.used();
    ExitReason reason = cancelled ? ExitReason.CANCELLED : failure == null ? ExitReason.CONDITION_MET
        : ErrorCode.BUDGET_EXCEEDED.code().equals(failure.code()) ? ExitReason.BUDGET : ExitReason.ERROR;
    ctx.bus.publish((seq, at) -> new Event.LoopCompleted(ctx.runId, seq, at, pos, "iterator", count, reason.json(),
        used.inputTokens(), used.outputTokens(), used.costUsd(), used.llmCalls()));
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("output", list);
    r.put("iterations", list);
    r.put("count", count);
    r.put("exit_reason", reason.json());
    r.put("usage", NodeRunner.usageMap(used));
    if (!errors.isEmpty()) {
      r.put("errors", errors);
    }
    if (cancelled || failure != null) {
      throw new BodyStopped(failure, cancelled, r);
    }
    if (count > 0 && frames[count - 1] != null) {
      frames[count - 1].copyUp();
    }
    return new NodeRunner.Shaped(r, list, null, null, used);
  }
}
