package dev.loopflow.core.internal.exec;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.internal.plan.ExecGraph;
import dev.loopflow.core.model.Budget;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.ExitReason;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RunError;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One loop construct's front end over the loop core ({@link LoopRunner#drive}): its exit test, how a pass is fed,
 * what a pass yields and what the loop's result is. Everything constructs share (the counter and the bound,
 * {@code on_exhausted}, events, {@code loop.prev}, the loop's budget, cancellation, positions) is the core's, so a
 * front only answers questions; it never runs a pass itself.
 */
abstract class LoopFront {
  final String id;
  final String construct;
  final int max;
  final Edge.OnExhausted onExhausted;
  final NodePosition pos;
  final Frame outer;
  final ExecGraph graph;
  final Budgets budget;

  LoopFront(RunContext ctx, String id, String construct, int max, Edge.OnExhausted onExhausted, NodePosition pos,
      Frame outer, ExecGraph graph, Budget budget) {
    this.id = id;
    this.construct = construct;
    this.max = max;
    this.onExhausted = onExhausted;
    this.pos = pos;
    this.outer = outer;
    this.graph = graph;
    this.budget = ctx.budgets.forLoop(budget, construct + " '" + pos.path() + "'");
  }

  /** Progress of one loop execution. Lives for one execution; a resume rebuilds it by replaying the journal. */
  static final class State {
    /** Passes started so far; for a sequential loop also the passes finished. */
    int iteration;
    Object input;
    Object output;
    Object previousOutput;
    final List<Object> outputs = new ArrayList<>();
    Map<String, Object> prev = Map.of();
    String userInput;
    /** The gate form's values the person answered before this pass; null when none (read as an empty object). */
    Map<String, Object> userValues;
    Frame lastFrame;
    boolean exitReached;
    /** The first failure that stops the loop; null while none. */
    RunError failure;
    /** Why the loop ended (set by the first failure, or by the loop's end). */
    ExitReason reason;
    boolean cancelled;
    boolean paused;
    /** Set by a pass of a concurrent loop that stops it, before its result is settled: start nothing more. */
    final AtomicBoolean halt = new AtomicBoolean();
    /** Forgiven failures of a loop that continues on error (an iterator's {@code errors}). */
    final List<Map<String, Object>> errors = new ArrayList<>();

    boolean stopped() {
      return failure != null || cancelled || paused;
    }

    void fail(ExitReason why, RunError error) {
      if (failure == null) {
        failure = error;
        reason = why;
      }
    }
  }

  /** How many passes may run at once; only a loop whose passes are independent of each other says more than 1. */
  int window() {
    return 1;
  }

  /** Whether the exit test runs before the first pass too. */
  boolean testsBeforePass() {
    return false;
  }

  /** The first pass's {@code loop.input}. */
  Object initialInput() {
    return null;
  }

  /**
   * Null: another pass is wanted. Runs after each pass (and before the first when {@link #testsBeforePass}). A
   * test that cannot answer records the failure on {@code st} ({@link State#fail}) and returns
   * {@link ExitReason#ERROR}.
   */
  abstract ExitReason exitTest(State st) throws InterruptedException;

  /** The frame that contains the passes' frames. */
  Frame container() {
    return outer;
  }

  String sessionScope(State st) {
    return null;
  }

  /** For a loop edge's region from its second pass on: the node the loop edge enters. */
  String loopedInto(State st) {
    return null;
  }

  /**
   * Between passes, before the next one starts: feedback, gates, loop-back events. False when the run pauses
   * here (an interactive gate asked a person).
   */
  boolean beforeNextPass(State st) {
    return true;
  }

  /** Before pass {@code st.iteration} runs in {@code body} (a restart loop carries settled nodes into it). */
  void preparePass(State st, Frame body) {}

  /** Units of the pass's level that enter it settled and are not run ({@link #preparePass} put them there). */
  Set<String> carried(State st) {
    return Set.of();
  }

  /** What the pass's coordinator asks after each unit completes; null for none. */
  LevelGate gate(State st) {
    return null;
  }

  /** The exit reason a failed pass gives the loop. */
  ExitReason failureReason(RunError error) {
    return error.errorCode() == ErrorCode.BUDGET_EXCEEDED ? ExitReason.BUDGET : ExitReason.ERROR;
  }

  /** The {@code loop} variable of pass {@code st.iteration}. */
  Map<String, Object> vars(State st) {
    Map<String, Object> parent = outer.loopVars();
    String[] names = parent != null ? VAR_NAMES_WITH_PARENT : VAR_NAMES;
    Object[] values = new Object[names.length];
    values[0] = st.iteration;
    values[1] = st.iteration - 1;
    values[2] = max;
    values[3] = st.input;
    values[4] = st.prev;
    values[5] = st.userInput == null ? "" : st.userInput;
    values[6] = st.userValues == null ? Map.of() : st.userValues;
    values[7] = id;
    if (parent != null) {
      values[8] = parent;
    }
    return new LoopVars(names, values);
  }

  /** The names of {@link #vars}, in the order the variable iterates in. */
  private static final String[] VAR_NAMES = {"iteration", "index", "max", "input", "prev", "user_input",
      "user_values", "id"};
  private static final String[] VAR_NAMES_WITH_PARENT = {"iteration", "index", "max", "input", "prev",
      "user_input", "user_values", "id", "parent"};

  /** What the loop.iteration event previews for pass {@code st.iteration}. */
  Object passInput(State st) {
    return st.input;
  }

  /** The condition value the loop.iteration event reports (a while_loop's, true); null for other constructs. */
  Boolean passCondition() {
    return null;
  }

  /** What pass {@code st.iteration} yielded, read from its frame. */
  abstract Object passOutput(State st, Frame body);

  /** After a pass completed (graph-form loops publish their body results to the enclosing level). */
  void afterPass(State st, Frame body) {}

  /**
   * After a pass failed, was cancelled or paused and stopped the loop. A front that publishes its passes' results
   * publishes this pass's too: the enclosing level must report what the pass's nodes did last (the node that
   * failed as failed, with its error), never the outcome of the pass before it.
   */
  void stoppedPass(State st, Frame body) {}

  /** Whether a failed pass is forgiven and the loop goes on (an iterator's {@code continue_on_error}). */
  boolean forgives(RunError error) {
    return false;
  }

  /** Whether a pass that did not complete still takes its place (as null) among the outputs. */
  boolean keepsEveryPass() {
    return false;
  }

  /** The error for an exhausted bound with {@code on_exhausted: fail}. */
  abstract LoopflowException exhausted(State st);

  /** The node the loop's errors name: the loop node, or a loop edge's source. */
  String errorNode() {
    return id;
  }

  /** The loop's result value ({@code output}). */
  Object finalOutput(State st) {
    return st.output;
  }

  /** After the loop completed normally. */
  void completed(State st) {}

  // ---------------------------------------------------------------------------------------------------------
  // What fronts read from a finished pass

  /** The output a completed node contributes downstream: a router's value, else its output. */
  static Object valueOf(Map<String, Object> r) {
    if (r == null) {
      return null;
    }
    return r.containsKey("selectedBranch") ? r.get("value") : r.get("output");
  }

  static Object lastOutput(Frame body) {
    String last = body.lastCompleted();
    return last == null ? null : valueOf(body.ownResult(last));
  }

  /**
   * The result of the body node whose edge into the loop's exit/aggregator is active after a pass (source
   * completed, branch and condition hold), or null when the pass did not reach it.
   */
  static Map<String, Object> exitReached(RunState state, ExecGraph.Body body, Frame f) {
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
          scope = state.scope(f);
        }
        if (!in.when().test(scope)) {
          continue;
        }
      }
      return r;
    }
    return null;
  }
}
