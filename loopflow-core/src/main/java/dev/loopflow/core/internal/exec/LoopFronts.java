package dev.loopflow.core.internal.exec;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopIterationExceededException;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.MaxIterationsExceededException;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.expr.Values;
import dev.loopflow.core.internal.plan.ExecGraph;
import dev.loopflow.core.model.Budget;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.ExitReason;
import dev.loopflow.core.model.LoopConfig;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunError;
import dev.loopflow.core.run.Waiting;
import dev.loopflow.core.similarity.Similarity;
import dev.loopflow.core.store.NodeExecution;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The five loop constructs as fronts over the one loop core. Each answers only what makes it different. */
final class LoopFronts {
  private LoopFronts() {}

  /** A loop edge S -> T: the cycle region from T to S runs again while the edge's condition holds after S. */
  static final class EdgeFront extends LoopFront {
    private final RunContext ctx;
    private final Recorder recorder;
    final Edge edge;

    EdgeFront(RunContext ctx, Recorder recorder, ExecGraph.RegionUnit ru, Frame outer) {
      super(ctx, ru.id(), "loop_edge", ru.edge().maxIterations(), ru.edge().onExhausted(), outer.position(ru.id()),
          outer, ru.body(), Budget.NONE);
      this.ctx = ctx;
      this.recorder = recorder;
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
    boolean beforeNextPass(State st) {
      recorder.loopBack(pos, edge.from(), edge.to(), st.iteration, max);
      return true;
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
    void stoppedPass(State st, Frame body) {
      body.copyUp();
    }

    @Override
    LoopflowException exhausted(State st) {
      return new LoopIterationExceededException(edge.from(), edge.to(), max, pos);
    }

    @Override
    String errorNode() {
      return edge.from();
    }
  }

  /** A {@code loop} node and its exit: an evaluator, a stable output or a fixed number of passes; feedback modes. */
  static final class RefineFront extends LoopFront {
    private final RunContext ctx;
    final LoopConfig.Refine cfg;
    final ExecGraph.Body body;
    final Object initial;

    RefineFront(RunContext ctx, Node node, Node.Loop loop, LoopConfig.Refine cfg, Frame frame, ExecGraph graph,
        NodePosition pos, NodeContextImpl nctx) {
      super(ctx, node.id(), "loop", loop.maxIterations(), loop.onExhausted(), pos, frame,
          graph.body(node.id()).graph(), loop.budget());
      this.ctx = ctx;
      this.cfg = cfg;
      this.body = graph.body(node.id());
      this.initial = loop.input() != null ? Values.plain(nctx.evaluate(loop.input()))
          : ControlNodes.feedingOutput(node, frame, graph, ctx.state.inputs);
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
        case STABLE_OUTPUT -> st.iteration >= 2 && Similarity.exceeds(st.previousOutput, st.output,
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
    boolean beforeNextPass(State st) {
      if (cfg.feedbackMode() == LoopConfig.Feedback.REPLACE) {
        st.input = st.output;
      } else {
        String out = st.output instanceof String s ? s : st.output == null ? "" : Json.compact(st.output);
        st.input = st.input + "\n---\n" + out;
      }
      return true;
    }

    @Override
    Object passOutput(State st, Frame f) {
      Map<String, Object> reached = exitReached(ctx.state, body, f);
      st.exitReached = reached != null;
      return reached != null ? valueOf(reached) : lastOutput(f);
    }

    @Override
    void afterPass(State st, Frame f) {
      f.copyUp();
    }

    @Override
    void stoppedPass(State st, Frame f) {
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

  /** A {@code while_loop}: its condition before each pass, the body in order, state threaded through. */
  static final class WhileFront extends LoopFront {
    private final RunContext ctx;
    final LoopConfig.While cfg;
    final Frame persistent;

    WhileFront(RunContext ctx, Node node, Node.Loop loop, LoopConfig.While cfg, Frame frame, ExecGraph.Body body,
        NodePosition pos) {
      super(ctx, node.id(), "while_loop", loop.maxIterations(), loop.onExhausted(), pos, frame, body.graph(),
          loop.budget());
      this.ctx = ctx;
      this.cfg = cfg;
      // Body results persist across passes (latest wins) but stay scoped to the loop.
      this.persistent = new Frame(frame, frame.loops, null, null, frame.budgets);
    }

    @Override
    boolean testsBeforePass() {
      return true;
    }

    @Override
    Boolean passCondition() {
      return Boolean.TRUE;
    }

    @Override
    Frame container() {
      return persistent;
    }

    /**
     * The condition sees this loop's own {@code loop} variable on every check, the first included: its
     * {@code iteration} is the number of passes run so far (0 before the first) and its {@code prev} the results of
     * the pass that just finished (empty before the first); {@code loop.parent} is the enclosing loop's. The body's
     * latest results are readable by id through the loop's own frame, which each finished pass publishes into.
     */
    @Override
    ExitReason exitTest(State st) {
      persistent.loopVars = vars(st);
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
    void stoppedPass(State st, Frame body) {
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

  /** A {@code loop_group}: a sealed sub-graph repeated until a signal or a command says done; optional gates. */
  static final class GroupFront extends LoopFront {
    private final RunContext ctx;
    private final Recorder recorder;
    private final UnitExecutor units;
    final LoopConfig.Group cfg;
    final ExecGraph until;

    GroupFront(RunContext ctx, Recorder recorder, UnitExecutor units, Node node, Node.Loop loop,
        LoopConfig.Group cfg, Frame frame, ExecGraph.Body body, NodePosition pos) {
      super(ctx, node.id(), "loop_group", loop.maxIterations(), loop.onExhausted(), pos, frame, body.graph(),
          loop.budget());
      this.ctx = ctx;
      this.recorder = recorder;
      this.units = units;
      this.cfg = cfg;
      this.until = body.until();
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
      if (until != null) {
        Outcome o = units.execute(until.units().get(0), st.lastFrame, until);
        if (o instanceof Outcome.Cancelled || Thread.currentThread().isInterrupted()) {
          throw new InterruptedException();
        }
        if (o instanceof Outcome.Completed) {
          return ExitReason.COMMAND;
        }
        if (o instanceof Outcome.Failed failed && !ranAndExited(st, failed)) {
          // Only an exit status answers "done?". A command that never ran (a value refused as unsafe, a template
          // that failed to render, a shell that could not start) must not silently mean "another pass".
          st.fail(ExitReason.ERROR, failed.error());
          return ExitReason.ERROR;
        }
      }
      return null;
    }

    /** True when the until command ran and exited (its result has an exit code), or ran out of time. */
    private boolean ranAndExited(State st, Outcome.Failed failed) {
      Map<String, Object> result = st.lastFrame.ownResult(cfg.untilCommand().id());
      return result != null && result.containsKey("exitCode")
          || failed.error().errorCode() == ErrorCode.TIMEOUT;
    }

    @Override
    boolean beforeNextPass(State st) {
      st.userInput = null;
      st.userValues = null;
      if (!cfg.interactive()) {
        return true;
      }
      List<NodePosition.LoopFrame> loops = new ArrayList<>(pos.loops());
      loops.add(new NodePosition.LoopFrame(id, st.iteration));
      NodePosition gate = new NodePosition(loops, LoopConfig.Group.GATE_ID);
      NodeExecution row = ctx.replay.row(gate);
      if (row != null) {
        Object in = row.result().get("input");
        st.userInput = in == null ? "" : String.valueOf(in);
        st.userValues = row.result().get("values") instanceof Map<?, ?> m ? plainMap(m) : null;
        return true;
      }
      ResumeInput given = ctx.replay.takeInput(gate);
      String answer = given == null ? null : given.gateText();
      if (answer != null) {
        st.userInput = answer;
        st.userValues = given.values();
        recorder.answered(gate, answer, given.values());
        return true;
      }
      String message = cfg.gateMessage() == null
          ? "loop_group '" + pos.path() + "' finished pass " + st.iteration + " of " + max + "; reply to continue"
          : cfg.gateMessage().render(ctx.state.scope(st.lastFrame));
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("status", "paused");
      r.put("message", message);
      ctx.requestPause(new Waiting(Waiting.Kind.INPUT, id, gate.path(), id, st.iteration, message, null, null,
          cfg.gateSchema() == null ? null : cfg.gateSchema().json()));
      recorder.asked(gate, LoopConfig.Group.GATE_ID, r, ctx.bus.now(), true, message);
      return false;
    }

    @Override
    Object passOutput(State st, Frame body) {
      String t = terminal(body);
      return t == null || body.ownStatus(t) != NodeStatus.COMPLETED ? null : valueOf(body.ownResult(t));
    }

    /** The pass's output node: {@code output:}, else the first body node (definition order) no other depends on. */
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

  /**
   * An {@code iterator} and its aggregator: one pass per item, up to {@code concurrency} at once, outputs in item
   * order. Its passes are independent, so it is the one front whose window is wider than one pass.
   */
  static final class IterateFront extends LoopFront {
    private final RunContext ctx;
    final LoopConfig.Iterate cfg;
    final ExecGraph.Body body;
    final List<?> items;

    private IterateFront(RunContext ctx, Node node, Node.Loop loop, LoopConfig.Iterate cfg, Frame frame,
        ExecGraph.Body body, NodePosition pos, List<?> items) {
      super(ctx, node.id(), "iterator", items.size(), Edge.OnExhausted.CONTINUE, pos, frame, body.graph(),
          loop.budget());
      this.ctx = ctx;
      this.cfg = cfg;
      this.body = body;
      this.items = items;
    }

    static IterateFront of(RunContext ctx, Node node, Node.Loop loop, LoopConfig.Iterate cfg, Frame frame,
        ExecGraph graph, NodePosition pos, NodeContextImpl nctx) {
      Object itemsValue = Values.plain(nctx.evaluate(cfg.items()));
      if (!(itemsValue instanceof List<?> items)) {
        throw new LoopflowException(ErrorCode.NODE_FAILED, "iterator items must yield an array, got "
            + Values.describe(itemsValue), pos);
      }
      return new IterateFront(ctx, node, loop, cfg, frame, graph.body(node.id()), pos, items);
    }

    @Override
    int window() {
      return cfg.concurrency();
    }

    /** Every item gets its pass: the test only says when all have started (at once for no items). */
    @Override
    boolean testsBeforePass() {
      return true;
    }

    @Override
    ExitReason exitTest(State st) {
      return st.iteration == items.size() ? ExitReason.CONDITION_MET : null;
    }

    @Override
    Map<String, Object> vars(State st) {
      int i = st.iteration - 1;
      Map<String, Object> v = new LinkedHashMap<>();
      v.put("item", Values.plain(items.get(i)));
      v.put("index", i);
      v.put("iteration", i + 1);
      v.put("max", max);
      v.put("input", Values.plain(items.get(i)));
      v.put("prev", Map.of());
      v.put("user_input", "");
      v.put("user_values", Map.of());
      v.put("id", id);
      Map<String, Object> parent = outer.loopVars();
      if (parent != null) {
        v.put("parent", parent);
      }
      return Collections.unmodifiableMap(v);
    }

    @Override
    Object passInput(State st) {
      return items.get(st.iteration - 1);
    }

    @Override
    Object passOutput(State st, Frame f) {
      Map<String, Object> reached = exitReached(ctx.state, body, f);
      return Values.plain(reached != null ? valueOf(reached) : lastOutput(f));
    }

    /** {@code continue_on_error} forgives an item's own failure, never a spent budget (as allow_failure does). */
    @Override
    boolean forgives(RunError error) {
      return cfg.continueOnError() && error.errorCode() != ErrorCode.BUDGET_EXCEEDED;
    }

    @Override
    boolean keepsEveryPass() {
      return true;
    }

    @Override
    Object finalOutput(State st) {
      return st.outputs;
    }

    @Override
    void completed(State st) {
      if (st.lastFrame != null) {
        st.lastFrame.copyUp();
      }
    }

    @Override
    void stoppedPass(State st, Frame f) {
      f.copyUp();
    }

    @Override
    LoopflowException exhausted(State st) {
      throw new IllegalStateException("an iterator's bound is its item count and cannot be exhausted");
    }
  }

  /** A journaled object read back as the plain map the loop variable holds. */
  private static Map<String, Object> plainMap(Map<?, ?> m) {
    Map<String, Object> out = new LinkedHashMap<>();
    m.forEach((k, v) -> out.put(String.valueOf(k), v));
    return Collections.unmodifiableMap(out);
  }
}
