package dev.loopflow.core.internal.exec;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.expr.Values;
import dev.loopflow.core.internal.plan.ExecGraph;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.ExitReason;
import dev.loopflow.core.model.LoopConfig;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.run.RunError;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/*
 * Design notes.
 *
 * The loop core. Every construct is a LoopFront (its exit test, how a pass is fed and what a pass yields) driven by
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
 * Passes run one at a time on the loop's own thread, except for a front whose passes are independent (the
 * iterator): up to window() of them run at once on virtual threads, a new one starting as soon as any finishes,
 * and their results are settled in pass order, so outputs, the first failure and the last frame are those of the
 * lowest pass, whatever order they finished in. A pass that stops the loop sets the halt flag before it reports,
 * so no pass starts after it.
 *
 * Nothing about a loop's progress lives only in local variables that a resume would need: each pass's body
 * executions are journaled under the pass's position, and a resumed run re-enters the loop, finds those
 * executions in the replay and restores them instead of running them, which rebuilds the counter, loop.prev and
 * the loop's spending exactly. The only other fact, a person's answer at an interactive gate, is journaled as
 * an execution of the gate's own position.
 */
final class LoopRunner {
  private final RunContext ctx;
  private final Recorder recorder;
  private final UnitExecutor units;

  LoopRunner(RunContext ctx, Recorder recorder, UnitExecutor units) {
    this.ctx = ctx;
    this.recorder = recorder;
    this.units = units;
  }

  // ---------------------------------------------------------------------------------------------------------
  // Entry points

  /** Runs a loop node's passes; called by the node's lifecycle on the node's thread. */
  Ran node(Node node, Node.Loop loop, Frame frame, ExecGraph graph, NodeContextImpl nctx)
      throws InterruptedException {
    NodePosition pos = frame.position(node.id());
    LoopFront front = switch (loop.config()) {
      case LoopConfig.Refine r -> new LoopFronts.RefineFront(ctx, node, loop, r, frame, graph, pos, nctx);
      case LoopConfig.While w -> new LoopFronts.WhileFront(ctx, node, loop, w, frame, graph.body(node.id()), pos);
      case LoopConfig.Group g -> new LoopFronts.GroupFront(ctx, recorder, units, node, loop, g, frame,
          graph.body(node.id()), pos);
      case LoopConfig.Iterate it -> LoopFronts.IterateFront.of(ctx, node, loop, it, frame, graph, pos, nctx);
    };
    LoopFront.State st = drive(front);
    if (st.paused && !st.cancelled && st.failure == null) {
      return Ran.PAUSED;
    }
    Map<String, Object> r = result(front, st);
    if (st.stopped()) {
      return new Ran.Stopped(st.failure, st.cancelled, r);
    }
    return new Ran.Shaped(r, r.get("output"), null, null, front.budget.used());
  }

  /** Runs a loop edge's cycle region as one unit of its level; its summary goes on the edge's source node. */
  Outcome region(ExecGraph.RegionUnit ru, Frame frame) {
    LoopFronts.EdgeFront front = new LoopFronts.EdgeFront(ctx, recorder, ru, frame);
    LoopFront.State st;
    try {
      st = drive(front);
    } catch (InterruptedException e) {
      return Outcome.INTERRUPTED;
    }
    if (st.paused && !st.cancelled && st.failure == null) {
      return Outcome.PAUSED;
    }
    Map<String, Object> r = result(front, st);
    r.put("edge", ru.id());
    r.put("max_iterations", ru.edge().maxIterations());
    frame.attach(ru.edge().from(), "loop", r);
    if (st.cancelled) {
      return new Outcome.Cancelled(st.failure);
    }
    return st.failure != null ? new Outcome.Failed(st.failure, false) : Outcome.COMPLETED;
  }

  /**
   * Runs a restartable workflow's top level as the passes of its restart loop (see {@link RestartLoop}) and
   * reports how the level ended, as a plain level would.
   */
  LevelResult restartable(ExecGraph graph, Frame top) {
    RestartLoop front = new RestartLoop(ctx, recorder, top, graph, ctx.workflow.restartPolicy());
    LoopFront.State st;
    try {
      st = drive(front);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new LevelResult.Cancelled(null);
    }
    if (st.paused && !st.cancelled && st.failure == null) {
      return new LevelResult.Paused();
    }
    if (st.cancelled) {
      return new LevelResult.Cancelled(st.failure);
    }
    return st.failure != null ? new LevelResult.Failed(st.failure) : new LevelResult.Completed();
  }

  // ---------------------------------------------------------------------------------------------------------
  // The core

  /** Runs {@code f}'s passes to the loop's end and returns how it ended (a stop, a pause or an exit). */
  private LoopFront.State drive(LoopFront f) throws InterruptedException {
    LoopFront.State st = new LoopFront.State();
    st.input = f.initialInput();
    if (!ctx.replay.covers(f.pos, 1)) {
      recorder.loopStarted(f.pos, f.construct, f.max);
    }
    Pool pool = f.window() > 1 ? new Pool(f, st) : null;
    ExitReason exit = null;
    ForkSteer fork = ctx.replay.fork();
    try {
      for (;;) {
        while (exit == null && !st.stopped() && !st.halt.get() && (pool == null || pool.running < f.window())) {
          if (fork != null) {
            fork.beforePass(f.pos.loops(), f.id, st.iteration + 1, ctx.state);
          }
          exit = beforePass(f, st);
          if (exit != null || st.stopped()) {
            break;
          }
          st.iteration++;
          if (fork != null) {
            st.input = fork.passInput(f.pos.loops(), f.id, st.iteration, st.input);
          }
          Frame body = f.container().child(f.id, st.iteration, f.vars(st), f.sessionScope(st), f.budget);
          if (!ctx.replay.covers(f.pos, st.iteration)) {
            recorder.loopPass(f.pos, f.construct, st.iteration, f.max, f.passInput(st), f.passCondition());
          }
          f.preparePass(st, body);
          if (pool == null) {
            settle(f, st, st.iteration, body, units.runLevel(f.graph, body,
                new UnitExecutor.Level(f.loopedInto(st), f.carried(st), f.gate(st))));
          } else {
            pool.start(st.iteration, body);
          }
        }
        if (pool == null || pool.running == 0) {
          break;
        }
        pool.awaitOne(st);
      }
    } catch (InterruptedException e) {
      if (pool == null) {
        throw e;
      }
      pool.cancelAll(st);
      st.cancelled = true;
      Thread.currentThread().interrupt();
    }
    if (st.stopped()) {
      if (!(st.paused && !st.cancelled && st.failure == null)) {
        ExitReason why = st.cancelled ? ExitReason.CANCELLED : st.reason;
        recorder.loopEnded(f.pos, f.construct, st.iteration, why.json(), f.budget.used());
        st.reason = why;
      }
      return st;
    }
    f.completed(st);
    recorder.loopEnded(f.pos, f.construct, st.iteration, exit.json(), f.budget.used());
    st.reason = exit;
    return st;
  }

  /**
   * Decides whether pass {@code st.iteration + 1} starts: the exit test, the bound, what happens between passes
   * and cancellation. Returns the exit reason when the loop ends normally; records a stop on {@code st}.
   */
  private ExitReason beforePass(LoopFront f, LoopFront.State st) throws InterruptedException {
    if (f.testsBeforePass() || st.iteration > 0) {
      ExitReason r;
      try {
        r = f.exitTest(st);
      } catch (LoopflowException e) {
        st.fail(ExitReason.ERROR, errorOf(e, f));
        return null;
      }
      if (r == ExitReason.ERROR && st.failure != null) {
        return null;
      }
      if (r == ExitReason.CONDITION_FALSE && f.passCondition() != null) {
        // A construct that reports its condition on every pass reports the check that ends it too, also when no
        // pass ran: the answer that stopped the loop is as observable as the ones that continued it.
        recorder.loopConditionFalse(f.pos, f.construct, st.iteration + 1, f.max);
      }
      if (r != null) {
        return r;
      }
    }
    if (st.iteration == f.max) {
      if (f.onExhausted == Edge.OnExhausted.CONTINUE) {
        return ExitReason.MAX_ITERATIONS;
      }
      st.fail(ExitReason.MAX_ITERATIONS, errorOf(f.exhausted(st), f));
      return null;
    }
    if (st.iteration > 0) {
      try {
        if (!f.beforeNextPass(st)) {
          st.paused = true;
          return null;
        }
      } catch (LoopflowException e) {
        st.fail(ExitReason.ERROR, errorOf(e, f));
        return null;
      }
    }
    if (Thread.currentThread().isInterrupted() || ctx.stopRequested) {
      st.cancelled = true;
    }
    return null;
  }

  /** Takes a finished pass's result into the loop's progress; passes are settled in pass order. */
  private void settle(LoopFront f, LoopFront.State st, int pass, Frame body, LevelResult res) {
    st.lastFrame = body;
    switch (res) {
      case null -> {
        st.cancelled = true; // a pass that never reported: it was cancelled before it could
        keep(f, st);
      }
      case LevelResult.Completed c -> completedPass(f, st, body);
      case LevelResult.Restart r -> completedPass(f, st, body);
      case LevelResult.Failed failed -> {

        if (f.forgives(failed.error())) {
          Map<String, Object> e = new LinkedHashMap<>();
          e.put("index", pass - 1);
          e.put("code", failed.error().code());
          e.put("message", failed.error().message());
          e.put("node", failed.error().node());
          st.errors.add(e);
        } else {
          st.fail(f.failureReason(failed.error()), failed.error());
          f.stoppedPass(st, body);
        }
        keep(f, st);
      }
      case LevelResult.Cancelled c -> {
        st.cancelled = true;
        if (st.failure == null && c.error() != null) {
          st.failure = c.error();
        }
        f.stoppedPass(st, body);
        keep(f, st);
      }
      case LevelResult.Paused p -> {
        st.paused = true;
        f.stoppedPass(st, body);
        keep(f, st);
      }
    }
  }

  private static void completedPass(LoopFront f, LoopFront.State st, Frame body) {
    st.previousOutput = st.output;
    st.output = f.passOutput(st, body);
    st.outputs.add(st.output);
    st.prev = Collections.unmodifiableMap(body.ownResults());
    f.afterPass(st, body);
  }

  private static void keep(LoopFront f, LoopFront.State st) {
    if (f.keepsEveryPass()) {
      st.outputs.add(null);
    }
  }

  /** Whether a pass's result stops a concurrent loop (so nothing more starts). */
  private static boolean stops(LoopFront f, LevelResult r) {
    return !(r instanceof LevelResult.Completed) && !(r instanceof LevelResult.Restart)
        && !(r instanceof LevelResult.Failed fl && f.forgives(fl.error()));
  }

  private RunError errorOf(LoopflowException e, LoopFront f) {
    return new RunError(e.code(), e.getMessage(), f.errorNode(), f.pos.path(), e.details());
  }

  private Map<String, Object> result(LoopFront f, LoopFront.State st) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("output", Values.plain(f.finalOutput(st)));
    r.put("iterations", Values.plain(st.outputs));
    r.put("count", st.iteration);
    r.put("exit_reason", st.reason.json());
    r.put("usage", Recorder.usageMap(f.budget.used()));
    if (!st.errors.isEmpty()) {
      r.put("errors", st.errors);
    }
    if (st.failure != null) {
      r.put("error", Recorder.errorMap(st.failure));
    } else if (st.cancelled) {
      r.put("error", Recorder.errorMap(ErrorCode.CANCELLED.code(), "cancelled", f.pos.path()));
    }
    return r;
  }

  /** The passes of a concurrent loop in flight: started on virtual threads, settled in pass order. */
  private final class Pool {
    private record Done(int pass, LevelResult result) {}

    private final LoopFront f;
    private final LoopFront.State st;
    private final LinkedBlockingQueue<Done> finished = new LinkedBlockingQueue<>();
    private final Map<Integer, Future<?>> futures = new TreeMap<>();
    private final Map<Integer, Frame> frames = new TreeMap<>();
    private final Map<Integer, LevelResult> results = new TreeMap<>();
    private int running;
    private int nextToSettle = 1;

    Pool(LoopFront f, LoopFront.State st) {
      this.f = f;
      this.st = st;
    }

    void start(int pass, Frame body) {
      running++;
      frames.put(pass, body);
      futures.put(pass, ctx.executor.submit(() -> {
        LevelResult r = null;
        try {
          r = units.runLevel(f.graph, body, UnitExecutor.Level.PLAIN);
          if (stops(f, r)) {
            st.halt.set(true);
          }
        } finally {
          finished.add(new Done(pass, r));
        }
      }));
    }

    /** Waits for any pass to finish, then settles every finished pass whose turn has come. */
    void awaitOne(LoopFront.State st) throws InterruptedException {
      take(finished.take());
      for (Done d = finished.poll(); d != null; d = finished.poll()) {
        take(d);
      }
      settleReady(st);
    }

    private void take(Done d) {
      running--;
      futures.remove(d.pass());
      results.put(d.pass(), d.result());
    }

    private void settleReady(LoopFront.State st) {
      while (frames.containsKey(nextToSettle) && results.containsKey(nextToSettle)) {
        int pass = nextToSettle++;
        settle(f, st, pass, frames.remove(pass), results.remove(pass));
      }
    }

    /**
     * The loop was interrupted: every pass in flight is interrupted and gets a bounded time to report; one that
     * does not is settled as cancelled.
     */
    void cancelAll(LoopFront.State st) {
      futures.values().forEach(fu -> fu.cancel(true));
      InterruptGrace grace = InterruptGrace.startingNow(ctx.clock);
      while (running > 0 && grace.open()) {
        try {
          Done d = finished.poll(100, TimeUnit.MILLISECONDS);
          if (d != null) {
            take(d);
          }
        } catch (InterruptedException again) {
          break;
        }
      }
      for (Integer pass : frames.keySet()) {
        results.putIfAbsent(pass, null);
      }
      while (!frames.isEmpty()) {
        int pass = frames.keySet().iterator().next();
        settle(f, st, pass, frames.remove(pass), results.remove(pass));
      }
    }
  }
}
