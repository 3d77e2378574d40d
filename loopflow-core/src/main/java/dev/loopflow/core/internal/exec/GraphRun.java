package dev.loopflow.core.internal.exec;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.internal.plan.ExecGraph;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RunError;
import dev.loopflow.core.time.Durations;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

/*
 * Design notes.
 *
 * One coordinator per execution of a graph level (the top level once per run; a loop body once per pass). The
 * coordinator runs on the caller's thread (the run's thread, or the loop node's virtual thread) and owns all
 * scheduling decisions for its level; units run on virtual threads and report back through the inbox. Only the
 * coordinator touches `remaining`, `ready` and `statuses`, so none of it needs locks.
 *
 * A unit becomes ready when every unit it depends on at this level has settled. A node then runs when at least
 * one incoming edge is active (source completed, condition true, router branch matches; edges from outside the
 * level are settled already; the entry edges of a graph-form loop are active) and its own `when` holds;
 * otherwise it is skipped, which makes its outgoing edges inactive, so skipping propagates downstream. A `when`
 * that throws fails the run: a broken condition must not silently change which nodes run.
 *
 * Work nodes take a run-wide slot (limits.concurrency); loop and region units do not, since they only wait for
 * their bodies. Failure, cancellation and timeouts stop dispatch and interrupt running units; interrupting a
 * loop's thread interrupts its body coordinator, which interrupts its own units, so cancellation reaches every
 * depth. A requested pause stops dispatch and lets running units finish.
 *
 * The class is one unit of over 500 lines on purpose: readiness, skipping, slots, deadlines, draining and pausing
 * all read and write the same coordinator-owned maps, and splitting them would hand that single-threaded state to
 * several classes.
 *
 * A unit alone at its level that only computes or coordinates (inline(): loops, regions, control nodes, programs
 * marked runsInline, never a node with a timeout) runs on the coordinator's own thread instead: there is nothing
 * else for the coordinator to watch meanwhile, and an interrupt meant for this level lands on the unit directly.
 * See docs/performance.md.
 */
final class GraphRun implements RunContext.Slots.Waiter {
  /**
   * {@code began} is claimed once, by the unit's task when it starts (it will then report) or by a coordinator that
   * gives up on it first (it then never runs, and the coordinator frees its slot).
   */
  private record Running(Future<?> future, Instant deadline, ExecGraph.Unit unit, boolean slot,
      AtomicBoolean began) {}

  private record Completion(String unitId, Outcome outcome) {}

  private record Poke() {}

  private final RunContext ctx;
  private final Recorder recorder;
  private final UnitExecutor units;
  private final ExecGraph graph;
  private final Frame frame;
  private final LinkedBlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
  private final Map<String, Running> running = new LinkedHashMap<>();
  private final Map<String, NodeStatus> statuses = new HashMap<>();
  /** Whether a unit of this level paused; the level then ends paused, never completed. */
  private boolean paused;
  /** For the entry node of a loop-edge region from its second pass on: the loop edge is its active incoming edge. */
  private final String loopedInto;
  private final Set<String> carried;
  private final LevelGate gate;

  GraphRun(RunContext ctx, Recorder recorder, UnitExecutor units, ExecGraph graph, Frame frame,
      UnitExecutor.Level how) {
    this.ctx = ctx;
    this.recorder = recorder;
    this.units = units;
    this.graph = graph;
    this.frame = frame;
    this.loopedInto = how.loopedInto();
    this.carried = how.carried();
    this.gate = how.gate();
  }

  /** A run slot freed: the coordinator wakes up and tries again. */
  @Override
  public void poke() {
    inbox.offer(new Poke());
  }

  LevelResult run() {
    Map<String, Integer> remaining = new HashMap<>();
    ArrayDeque<String> ready = new ArrayDeque<>();
    for (ExecGraph.Unit u : graph.units()) {
      int n = graph.dependencyCount(u.id());
      remaining.put(u.id(), n);
      if (n == 0) {
        ready.add(u.id());
      }
    }
    LevelResult stop = null;
    boolean interrupted = false;
    try {
      while (true) {
        while (stop == null && !ready.isEmpty()) {
          if (ctx.stopRequested) {
            stop = new LevelResult.Cancelled(null);
            break;
          }
          if (ctx.pausing()) {
            stop = new LevelResult.Paused();
            break;
          }
          String id = ready.peek();
          if (!carried.isEmpty() && carried.contains(id)) {
            // Settled before this level began (a restart carried it over): its successors may go.
            ready.poll();
            NodeStatus s = frame.ownStatus(id);
            statuses.put(id, s == null ? NodeStatus.COMPLETED : s);
            release(id, remaining, ready);
            continue;
          }
          ExecGraph.Unit unit = graph.unit(id);
          if (unit instanceof ExecGraph.NodeUnit nu) {
            Node node = nu.node();
            Decision d = decide(node);
            if (d instanceof Decision.Skip s) {
              ready.poll();
              skip(node, s.reason());
              release(id, remaining, ready);
              continue;
            }
            if (d instanceof Decision.Fail f) {
              ready.poll();
              stop = new LevelResult.Failed(f.error());
              break;
            }
          }
          boolean needsSlot = unit instanceof ExecGraph.NodeUnit nu && !(nu.node().body() instanceof Node.Loop);
          if (needsSlot && !ctx.slots.tryAcquire(this)) {
            break; // poked when a slot frees
          }
          ready.poll();
          if (unit instanceof ExecGraph.NodeUnit && ctx.steps.incrementAndGet() > ctx.workflow.limits().maxSteps()) {
            if (needsSlot) {
              ctx.slots.release();
            }
            NodePosition pos = frame.position(id);
            stop = new LevelResult.Failed(new RunError(ErrorCode.MAX_STEPS_EXCEEDED, "limits.max_steps ("
                + ctx.workflow.limits().maxSteps() + ") reached: the run executed that many nodes; '" + pos.path()
                + "' was not started", id, pos.path(), Map.of()));
            break;
          }
          if (running.isEmpty() && ready.isEmpty() && inline(unit)) {
            stop = runInline(unit, needsSlot, remaining, ready);
            continue;
          }
          start(unit, needsSlot);
        }
        if (stop != null || running.isEmpty() && ready.isEmpty()) {
          break;
        }
        Object msg;
        try {
          msg = inbox.poll(pollMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          interrupted = true;
          stop = new LevelResult.Cancelled(null);
          break;
        }
        if (msg instanceof Completion c) {
          Running r = running.remove(c.unitId());
          if (r == null) {
            continue; // already finalized (timed out)
          }
          settle(r);
          stop = onOutcome(c.unitId(), c.outcome(), remaining, ready);
          continue;
        }
        if (msg instanceof Poke) {
          continue;
        }
        stop = checkDeadlines(remaining, ready);
      }
    } catch (RuntimeException | Error e) {
      // A bug in scheduling itself (or in a handler's runsInline()): the run ends failed, never left half-run.
      ctx.failRun("internal error while scheduling " + (frame.loops.isEmpty() ? "the run" : "pass '"
          + frame.loops.stream().map(f -> f.loopId() + "[" + f.iteration() + "]")
              .collect(Collectors.joining(".")) + "'") + ": " + Throwables.describe(e), e);
      stop = new LevelResult.Cancelled(null);
    } finally {
      ctx.slots.forget(this);
    }
    if (stop instanceof LevelResult.Paused || stop instanceof LevelResult.Restart) {
      return waitForRunning(stop, remaining, ready);
    }
    if (stop != null) {
      interruptAll();
      drainInterrupted();
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      return stop;
    }
    return paused ? new LevelResult.Paused() : new LevelResult.Completed();
  }

  private void start(ExecGraph.Unit unit, boolean slot) {
    String id = unit.id();
    Instant deadline = null;
    if (unit instanceof ExecGraph.NodeUnit nu && nu.node().timeout() != null) {
      deadline = ctx.clock.instant().plus(nu.node().timeout());
    }
    NodePosition pos = frame.position(id);
    ctx.running.put(pos.path(), pos);
    AtomicBoolean began = new AtomicBoolean();
    Future<?> f = ctx.executor.submit(() -> {
      if (!began.compareAndSet(false, true)) {
        return; // the coordinator gave up on this unit before it began (and freed its slot)
      }
      Outcome o;
      try {
        o = execute(unit);
      } finally {
        if (slot) {
          ctx.slots.release();
        }
      }
      inbox.offer(new Completion(id, o));
    });
    running.put(id, new Running(f, deadline, unit, slot, began));
  }

  /**
   * Runs one unit. Whatever it throws is an internal failure (node and loop failures arrive as outcomes): the run
   * is failed with it, and the unit still reports, so its coordinator never waits for a unit that died.
   */
  private Outcome execute(ExecGraph.Unit unit) {
    try {
      return units.execute(unit, frame, graph);
    } catch (Throwable e) {
      ctx.failRun("internal error in '" + frame.position(unit.id()).path() + "': " + Throwables.describe(e), e);
      return Outcome.INTERRUPTED;
    }
  }

  /**
   * A unit alone at its level that only computes (or only coordinates a loop) runs on this thread: nothing else of
   * this level can need the coordinator meanwhile, and an interrupt meant for this level reaches the unit directly.
   */
  private static boolean inline(ExecGraph.Unit unit) {
    return switch (unit) {
      case ExecGraph.RegionUnit ru -> true;
      case ExecGraph.NodeUnit nu -> nu.node().timeout() == null && switch (nu.node().body()) {
        case Node.Work w -> w.program().runsInline();
        case Node.Router r -> !r.byLlm();
        case Node.Loop l -> true;
        case Node.Marker m -> true;
        case Node.Input i -> true;
        case Node.Output o -> true;
        case Node.Cancel c -> true;
        case Node.Approval a -> true;
      };
    };
  }

  private LevelResult runInline(ExecGraph.Unit unit, boolean slot, Map<String, Integer> remaining,
      ArrayDeque<String> ready) {
    String id = unit.id();
    NodePosition pos = frame.position(id);
    String path = pos.path();
    ctx.running.put(path, pos);
    Outcome o;
    try {
      o = execute(unit);
    } finally {
      if (slot) {
        ctx.slots.release();
      }
      ctx.running.remove(path);
    }
    return onOutcome(id, o, remaining, ready);
  }

  private void settle(Running r) {
    ctx.running.remove(frame.position(r.unit().id()).path());
  }

  private LevelResult onOutcome(String id, Outcome o, Map<String, Integer> remaining,
      ArrayDeque<String> ready) {
    switch (o) {
      case Outcome.Completed done -> {
        statuses.put(id, NodeStatus.COMPLETED);
        if (done.cancelRun() != null) {
          return new LevelResult.Cancelled(new RunError(ErrorCode.CANCELLED, done.cancelRun(), id,
              frame.position(id).path(), Map.of()));
        }
        if (gate != null) {
          LevelResult end = gate.afterCompleted(id, frame);
          if (end != null) {
            return end;
          }
        }
        release(id, remaining, ready);
        return null;
      }
      case Outcome.Failed failed -> {
        statuses.put(id, NodeStatus.FAILED);
        if (failed.allowed()) {
          release(id, remaining, ready);
          return null;
        }
        return new LevelResult.Failed(failed.error());
      }
      case Outcome.Cancelled cancelled -> {
        statuses.put(id, NodeStatus.CANCELLED);
        return new LevelResult.Cancelled(cancelled.error());
      }
      case Outcome.Paused p -> {
        // The unit waits for a person: nothing after it runs. Whether the level stops dispatching others is the
        // run's pause (ctx.pausing()); the level ends paused once nothing else runs.
        statuses.put(id, NodeStatus.PAUSED);
        paused = true;
        return null;
      }
    }
  }

  private LevelResult checkDeadlines(Map<String, Integer> remaining, ArrayDeque<String> ready) {
    Instant now = ctx.clock.instant();
    LevelResult stop = null;
    for (Running r : List.copyOf(running.values())) {
      if (r.deadline() == null || now.isBefore(r.deadline())) {
        continue;
      }
      Node node = ((ExecGraph.NodeUnit) r.unit()).node();
      running.remove(node.id());
      settle(r);
      String message = "node '" + frame.position(node.id()).path() + "' timed out after "
          + Durations.format(node.timeout());
      // Recorded before the interrupt: the node's thread, reporting that interrupt, then finds it settled as timed
      // out and does not record it as cancelled.
      recorder.timedOut(node, frame, message);
      r.future().cancel(true);
      if (r.slot() && r.began().compareAndSet(false, true)) {
        ctx.slots.release();
      }
      statuses.put(node.id(), NodeStatus.FAILED);
      if (node.allowFailure()) {
        release(node.id(), remaining, ready);
      } else if (stop == null) {
        stop = new LevelResult.Failed(new RunError(ErrorCode.TIMEOUT, message, node.id(),
            frame.position(node.id()).path(), Map.of()));
      }
    }
    return stop;
  }

  private long pollMillis() {
    Instant now = ctx.clock.instant();
    long wait = Math.min(60_000, ctx.waits.pollCap());
    for (Running r : running.values()) {
      if (r.deadline() != null) {
        wait = Math.min(wait, Math.max(1, Duration.between(now, r.deadline()).toMillis()));
      }
    }
    return wait;
  }

  private void interruptAll() {
    for (Running r : running.values()) {
      r.future().cancel(true);
    }
  }

  /** Interrupted units get a bounded time to report, so a node that ignores its interrupt cannot hold the run. */
  private void drainInterrupted() {
    InterruptGrace grace = InterruptGrace.startingNow(ctx.clock);
    while (!running.isEmpty() && grace.open()) {
      for (Running r : List.copyOf(running.values())) {
        if (r.began().compareAndSet(false, true)) {
          // Its task had not begun: it never will, so there is nothing to wait for.
          running.remove(r.unit().id());
          settle(r);
          if (r.slot()) {
            ctx.slots.release();
          }
          if (r.unit() instanceof ExecGraph.NodeUnit nu) {
            recorder.cancelledUnstarted(nu.node(), frame);
          }
        }
      }
      if (running.isEmpty()) {
        break;
      }
      try {
        Object msg = inbox.poll(100, TimeUnit.MILLISECONDS);
        if (msg instanceof Completion c) {
          Running r = running.remove(c.unitId());
          if (r != null) {
            settle(r);
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    for (Running r : running.values()) {
      settle(r);
      if (r.unit() instanceof ExecGraph.NodeUnit nu) {
        recorder.cancelledUnstarted(nu.node(), frame);
      }
    }
    running.clear();
  }

  /**
   * A pause lets running units finish (their work is journaled and not repeated on resume). A unit that fails or
   * ends the run meanwhile decides this level's result instead: a failure (a rejected approval next to another
   * approval that asks, say) is never hidden behind a pause.
   */
  private LevelResult waitForRunning(LevelResult paused, Map<String, Integer> remaining, ArrayDeque<String> ready) {
    LevelResult result = paused;
    while (!running.isEmpty()) {
      Object msg;
      try {
        msg = inbox.poll(pollMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        interruptAll();
        drainInterrupted();
        Thread.currentThread().interrupt();
        return new LevelResult.Cancelled(null);
      }
      if (msg instanceof Completion c) {
        Running r = running.remove(c.unitId());
        if (r != null) {
          settle(r);
          LevelResult other = onOutcome(c.unitId(), c.outcome(), remaining, ready);
          if ((result instanceof LevelResult.Paused || result instanceof LevelResult.Restart) && other != null
              && !(other instanceof LevelResult.Paused) && !(other instanceof LevelResult.Restart)) {
            result = other;
          }
        }
      }
    }
    return result;
  }

  private void release(String id, Map<String, Integer> remaining, ArrayDeque<String> ready) {
    for (String s : graph.successors(id)) {
      int left = remaining.merge(s, -1, Integer::sum);
      if (left == 0) {
        ready.add(s);
      }
    }
  }

  private void skip(Node node, String reason) {
    statuses.put(node.id(), NodeStatus.SKIPPED);
    recorder.skipped(node, frame, reason);
  }

  private sealed interface Decision {
    record Run() implements Decision {}

    record Skip(String reason) implements Decision {}

    record Fail(RunError error) implements Decision {}
  }

  private NodeStatus status(String id) {
    NodeStatus s = statuses.get(id);
    return s != null ? s : frame.status(id);
  }

  private Decision decide(Node node) {
    List<ExecGraph.Incoming> incoming = graph.incoming(node.id());
    Map<String, Object> scope = null;
    if (!incoming.isEmpty() && !node.id().equals(loopedInto)) {
      boolean active = false;
      for (ExecGraph.Incoming in : incoming) {
        if (in.from().equals(graph.entry())) {
          active = true;
          break;
        }
        NodeStatus s = status(in.from());
        if (s != NodeStatus.COMPLETED && s != NodeStatus.FAILED) {
          continue;
        }
        if (in.branch() != null) {
          Map<String, Object> r = frame.result(in.from());
          if (r == null || !in.branch().equals(r.get("selectedBranch"))) {
            continue;
          }
        }
        if (in.when() != null) {
          if (scope == null) {
            scope = ctx.state.scope(frame);
          }
          try {
            if (!in.when().test(scope)) {
              continue;
            }
          } catch (RuntimeException e) {
            return fail(node, "the condition on edge " + in.from() + " -> " + node.id() + " failed: "
                + e.getMessage());
          }
        }
        active = true;
        break;
      }
      if (!active) {
        return new Decision.Skip("no active incoming edge");
      }
    }
    if (node.when() != null) {
      try {
        if (!node.when().test(scope == null ? ctx.state.scope(frame) : scope)) {
          return new Decision.Skip("when is false: " + node.when().source());
        }
      } catch (RuntimeException e) {
        return fail(node, "its when condition failed: " + e.getMessage());
      }
    }
    return new Decision.Run();
  }

  private Decision fail(Node node, String message) {
    NodePosition pos = frame.position(node.id());
    String full = "node '" + pos.path() + "' could not be scheduled: " + message;
    recorder.conditionFailed(node, frame, full);
    return new Decision.Fail(new RunError(ErrorCode.NODE_FAILED, full, node.id(), pos.path(), Map.of()));
  }
}
