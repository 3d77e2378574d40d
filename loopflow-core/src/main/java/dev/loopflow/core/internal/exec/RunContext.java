package dev.loopflow.core.internal.exec;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunError;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.Waiting;
import dev.loopflow.core.secrets.Redactor;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.core.store.LeaseLostException;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunStore;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What every coordinator and node thread of one run shares: services, the run-wide step counter and
 * concurrency slots, the replay of an earlier attempt, and a requested pause. Nothing here decides scheduling.
 */
final class RunContext {
  final String runId;
  final Workflow workflow;
  final RunOptions options;
  final RunStore store;
  final Clock clock;
  final ExecutorService executor;
  final RunState state;
  final EventBus bus;
  final Budgets budgets;
  final Map<Class<?>, Object> services;
  final AtomicInteger steps = new AtomicInteger();
  final Slots slots;
  final Replay replay;
  /** Masks credentials in everything this run journals or publishes. */
  final Redactor redactor;
  final Map<String, NodePosition> running = new ConcurrentHashMap<>();
  /** Held while a completion is merged into state and journaled: both then happen in the same order. */
  final Object commits = new Object();
  volatile Instant deadline;
  /**
   * Set when the run is cancelled or times out. Interrupts carry the news to running nodes; coordinators and loops
   * also read this flag before starting anything, so a cancel that lands between two units or two passes is seen
   * even when no thread was waiting to be interrupted.
   */
  volatile boolean stopRequested;
  /** Set once the run has finished: late reports from nodes that ignored their interrupt are dropped. */
  volatile boolean closed;
  private volatile Waiting pause;
  /** The first internal failure (an engine bug, the store refusing a write); the run ends failed with it. */
  private volatile RunError fatal;
  /** Stops the run's own thread when an internal failure happens on another thread; set by the run. */
  volatile Runnable onFatal = () -> { };
  /** Every wait of the run (retry delays, its deadline, polling for node timeouts) goes through these. */
  final Waits waits;
  /** The run's command bus (restart requests). */
  final RunCommands commands;
  /** The run's shared memory. */
  final RunMemory memory;
  /** The child runs started by this run and every run above and below it (one tally per tree of runs). */
  final AtomicInteger childRuns;

  RunContext(String runId, Workflow workflow, RunOptions options, RunStore store, Clock clock,
      ExecutorService executor, RunState state, EventBus bus, Budgets budgets, Map<Class<?>, Object> services,
      Replay replay, Redactor redactor) {
    this(runId, workflow, options, store, clock, executor, state, bus, budgets, services, replay, redactor,
        new AtomicInteger());
  }

  RunContext(String runId, Workflow workflow, RunOptions options, RunStore store, Clock clock,
      ExecutorService executor, RunState state, EventBus bus, Budgets budgets, Map<Class<?>, Object> services,
      Replay replay, Redactor redactor, AtomicInteger childRuns) {
    this.childRuns = childRuns;
    this.runId = runId;
    this.workflow = workflow;
    this.options = options;
    this.store = store;
    this.clock = clock;
    this.executor = executor;
    this.state = state;
    this.bus = bus;
    this.budgets = budgets;
    this.services = services;
    this.slots = new Slots(workflow.limits().concurrency());
    this.replay = replay;
    this.redactor = redactor;
    this.waits = Waits.of(clock);
    this.commands = new RunCommands(store, runId, clock, redactor);
    this.memory = new RunMemory(store, runId, workflow.name(), clock, redactor);
  }

  /** The run's current restart iteration (1 before any restart); set by the restart loop. */
  volatile int restartIteration = 1;

  int restartIteration() {
    return restartIteration;
  }

  /** Pauses the run (the first request wins): running units finish, nothing new starts. */
  void requestPause(Waiting waiting) {
    synchronized (this) {
      if (pause == null) {
        pause = waiting;
      }
    }
  }

  /** What the run waits for once it has paused; null when nothing asked. */
  Waiting pause() {
    return pause;
  }

  /**
   * Whether coordinators stop dispatching because the run pauses. Not while the answer a resume brought is still
   * unused: the node it answers may not have started yet (another question asked first), and stopping then would
   * drop the answer. Until it is used, only the questions' own nodes wait; independent work goes on.
   */
  boolean pausing() {
    return pause != null && !replay.answerPending();
  }

  /**
   * Fails the run with an internal error: the first failure is kept, the run stops as if cancelled (running nodes
   * are interrupted, nothing new starts) and then ends failed with {@code internal_error}. Safe from any thread.
   */
  void failRun(String message) {
    failRun(message, null);
  }

  /**
   * Fails the run because of {@code cause}. A lost lease makes the failure {@code lease_lost}: the run then ends
   * here without writing anything more (the store refuses it anyway), since another engine now executes it. A lost
   * lease found after another failure replaces it: whatever failed first, this engine may no longer write the run's
   * end, and the run goes on elsewhere (a process stopped past its lease sees its cut-off write fail before it learns
   * why).
   */
  void failRun(String message, Throwable cause) {
    boolean leaseLost = LeaseLostException.isCause(cause);
    synchronized (this) {
      if (fatal != null && (!leaseLost || leaseLost())) {
        return;
      }
      fatal = new RunError(leaseLost ? ErrorCode.LEASE_LOST
          : ErrorCode.INTERNAL_ERROR, message, null);
    }
    stopRequested = true;
    onFatal.run();
  }

  RunError fatal() {
    return fatal;
  }

  /** Whether the run's lease moved to another engine: nothing more may be written for it here. */
  boolean leaseLost() {
    RunError f = fatal;
    return f != null && f.errorCode() == ErrorCode.LEASE_LOST;
  }

  /** How an unexpected exception is named in an internal error: its type and message, never a stack trace. */
  /**
   * The run-wide bound on work nodes running at once ({@code limits.concurrency}). Loop nodes hold no slot while
   * their bodies run, so nesting cannot deadlock. A coordinator that finds no free slot is poked when one frees.
   */
  static final class Slots {
    private final int max;
    private int used;
    private final Set<Waiter> waiting = new LinkedHashSet<>();

    Slots(int max) {
      this.max = max;
    }

    /** What waits for a slot: told when one frees, on the releasing thread, and must only wake itself up. */
    interface Waiter {
      void poke();
    }

    synchronized boolean tryAcquire(Waiter g) {
      if (used < max) {
        used++;
        waiting.remove(g);
        return true;
      }
      waiting.add(g);
      return false;
    }

    void release() {
      List<Waiter> w;
      synchronized (this) {
        used--;
        w = new ArrayList<>(waiting);
        waiting.clear();
      }
      w.forEach(Waiter::poke);
    }

    synchronized void forget(Waiter g) {
      waiting.remove(g);
    }
  }

  /**
   * The journal of an earlier attempt at this run. A node execution whose position completed before is restored
   * instead of run again; loops re-enter their passes and find their body executions here, so loop counters and
   * previous-pass outputs come back without being stored separately.
   */
  static final class Replay {
    static final Replay NONE = new Replay(List.of(), null, null);
    private final Map<String, NodeExecution> done = new ConcurrentHashMap<>();
    private final Set<String> prefixes = ConcurrentHashMap.newKeySet();
    private final Map<String, NodeExecution> pausedRows = new ConcurrentHashMap<>();
    /** What every journaled execution at a position spent, all attempts and statuses together. */
    private final Map<String, Usage> spent = new HashMap<>();
    private final Usage total;
    private final String pausedAt;
    private volatile ResumeInput resumeInput;
    /** Restart requests whose decisions are journaled. */
    private final Set<Long> decidedRestarts;
    /**
     * Whether the journal shows any attempt at executing the run: a node execution, or an event after
     * {@code run.started}. A run queued for workers has none when its first worker takes it.
     */
    private final boolean begun;
    /**
     * The loop events an earlier attempt journaled, by {@link #loopEventKey}. A resumed run re-enters its loops and
     * would announce again what was announced before the crash (a pass started, a loop-back, a loop's end); a loop
     * event equal to one already journaled is not journaled again, so a resumed run's journal reads like an
     * uninterrupted one.
     */
    private final Set<String> loopEvents = new HashSet<>();
    /** Module-log turns (the mock's script position) of failed and cancelled executions, by position path. */
    private final Map<String, Map<String, List<Map<String, String>>>> runLogs = new ConcurrentHashMap<>();
    /** Durable steps of interrupted executions, by position path: only the last execution's at each position. */
    private final Map<String, List<Map<String, Object>>> steps = new ConcurrentHashMap<>();

    Replay(List<NodeExecution> rows, String pausedAt, ResumeInput resumeInput) {
      this(rows, pausedAt, resumeInput, List.of());
    }

    Replay(List<NodeExecution> rows, String pausedAt, ResumeInput resumeInput,
        List<Event> events) {
      begun = !rows.isEmpty()
          || events.stream().anyMatch(e -> !(e instanceof Event.RunStarted));
      Map<String, String> lastExecution = new HashMap<>();
      Map<String, Calls> calls = new LinkedHashMap<>();
      for (Event e : events) {
        if (e instanceof Event.NodeStep s) {
          String path = s.node().path();
          if (!s.execution().equals(lastExecution.put(path, s.execution()))) {
            steps.put(path, new ArrayList<>());
          }
          Object type = s.step().get("type");
          if (RunLog.CALL_RESERVED.equals(type) || RunLog.CALL_ENDED.equals(type)
              || RunLog.EXECUTION_ENDED.equals(type)) {
            calls.computeIfAbsent(s.execution(), k -> new Calls(path)).add(type, s.step());
          } else {
            steps.get(path).add(s.step());
          }
        }
        String key = loopEventKey(e);
        if (key != null) {
          loopEvents.add(key);
        }
      }
      // An execution whose row is journaled: the steps handed to the node say so at their end (their module-log
      // turns, the mock's script position, are then restored from the row, not to be counted again from steps).
      lastExecution.forEach((path, id) -> {
        Calls c = calls.get(id);
        if (c != null && c.accounted && steps.containsKey(path)) {
          steps.get(path).add(Map.of("type", RunLog.EXECUTION_ENDED));
        }
      });
      Usage sum = Usage.NONE;
      // Calls of executions that no journal row holds (see RunLog): counted here, once per resume, since
      // no row ever will.
      for (Calls c : calls.values()) {
        Usage u = c.unaccounted();
        if (u != Usage.NONE) {
          spent.merge(c.path, u, Usage::plus);
          sum = sum.plus(u);
        }
      }
      for (NodeExecution r : rows) {
        // Each row holds only what its own execution spent (a loop's row none of its body's), so the rows add up
        // to what the run spent, failed and cancelled executions included.
        if (r.usage() != null && !r.usage().equals(Usage.NONE)) {
          spent.merge(r.position().path(), r.usage(), Usage::plus);
          sum = sum.plus(r.usage());
        }
        if (r.status() == NodeStatus.PAUSED) {
          pausedRows.putIfAbsent(r.position().path(), r);
        }
        if ((r.status() == NodeStatus.FAILED
            || r.status() == NodeStatus.CANCELLED) && r.sessions() != null) {
          r.sessions().forEach((key, turns) -> {
            if (RunLog.isRunLog(key)) {
              runLogs.computeIfAbsent(r.position().path(), k -> new LinkedHashMap<>())
                  .computeIfAbsent(key, k -> new ArrayList<>()).addAll(turns);
            }
          });
        }
        if (r.status() == NodeStatus.COMPLETED
            || r.status() == NodeStatus.FAILED) {
          done.put(r.position().path(), r);
          StringBuilder sb = new StringBuilder();
          for (NodePosition.LoopFrame f : r.position().loops()) {
            sb.append(f.loopId()).append('[').append(f.iteration()).append(']');
            prefixes.add(sb.toString());
            sb.append('.');
          }
        }
      }
      this.total = sum;
      this.decidedRestarts = RestartDecisions.decidedIn(rows);
      this.pausedAt = pausedAt;
      this.resumeInput = resumeInput == null || resumeInput.isEmpty() ? null : resumeInput;
    }

    /** The journaled LLM calls of one execution, and whether its journal row holds them. */
    private static final class Calls {
      final String path;
      final Map<Long, Usage> reserved = new HashMap<>();
      final Map<Long, Usage> ended = new HashMap<>();
      boolean accounted;

      Calls(String path) {
        this.path = path;
      }

      void add(Object type, Map<String, Object> step) {
        if (RunLog.EXECUTION_ENDED.equals(type)) {
          accounted = true;
        } else if (RunLog.CALL_RESERVED.equals(type)) {
          reserved.put(callNumber(step), RunLog.usageOf(step.get("usage")));
        } else {
          ended.put(callNumber(step), RunLog.usageOf(step.get("usage")));
        }
      }

      /** The call's number within its execution, whatever number type the store read it back as. */
      private static Long callNumber(Map<String, Object> step) {
        return step.get("call") instanceof Number n ? n.longValue() : -1L;
      }

      /** What the calls counted, when no row holds them; a call with no end counts at its reservation. */
      Usage unaccounted() {
        if (accounted) {
          return Usage.NONE;
        }
        Usage u = Usage.NONE;
        for (Map.Entry<Long, Usage> r : reserved.entrySet()) {
          u = u.plus(ended.getOrDefault(r.getKey(), r.getValue()));
        }
        return u;
      }
    }

    /** The module-log turns failed or cancelled executions at {@code at} added, handed out once. */
    Map<String, List<Map<String, String>>> takeRunLogs(NodePosition at) {
      if (runLogs.isEmpty()) {
        return Map.of();
      }
      Map<String, List<Map<String, String>>> r = runLogs.remove(at.path());
      return r == null ? Map.of() : r;
    }

    /** The steps an interrupted execution at {@code at} recorded, handed out once (a retry starts afresh). */
    List<Map<String, Object>> takeSteps(NodePosition at) {
      if (steps.isEmpty()) {
        return List.of();
      }
      List<Map<String, Object>> s = steps.remove(at.path());
      return s == null ? List.of() : List.copyOf(s);
    }

    Set<Long> decidedRestarts() {
      return decidedRestarts;
    }

    /** Whether an execution at {@code path} completed in an earlier attempt. */
    boolean completedAt(String path) {
      NodeExecution r = done.get(path);
      return r != null && r.status() == NodeStatus.COMPLETED;
    }

    boolean isEmpty() {
      return done.isEmpty() && resumeInput == null && pausedRows.isEmpty();
    }

    /** Whether the answer this attempt was resumed with has not been taken by the node it answers yet. */
    /** See {@link #begun}. */
    boolean begun() {
      return begun;
    }

    boolean answerPending() {
      return resumeInput != null;
    }

    /** The first time the run paused at {@code at} (when a person was first asked), or null. */
    NodeExecution pausedRow(NodePosition at) {
      return pausedRows.isEmpty() ? null : pausedRows.get(at.path());
    }

    /** What the journaled executions at {@code at} spent, {@link Usage#NONE} when nothing. */
    Usage spentAt(NodePosition at) {
      return spent.isEmpty() ? Usage.NONE : spent.getOrDefault(at.path(), Usage.NONE);
    }

    /** What the run spent before this attempt, by its journal. */
    Usage total() {
      return total;
    }

    /** The fork's point and edits, when this replays a fork's origin; null otherwise. */
    private volatile ForkSteer fork;
    /** What of {@link #total} the run's budget is charged with: all of it, but a fork's reused part. */
    private volatile Usage charged;

    /** Makes this the replay of a fork: {@code charged} is what the fork itself spent (not what it reuses). */
    Replay forFork(ForkSteer steer, Usage charged) {
      this.fork = steer;
      this.charged = charged;
      return this;
    }

    /** What the run's budget starts from: everything this replay holds, except what a fork reuses. */
    Usage charged() {
      Usage c = charged;
      return c != null ? c : total;
    }

    /** The fork's point and edits, or null when this run is no fork. */
    ForkSteer fork() {
      return fork;
    }

    NodeExecution row(NodePosition at) {
      return done.isEmpty() ? null : done.get(at.path());
    }

    /** Whether an earlier attempt journaled any loop event. */
    boolean anyLoopEvents() {
      return !loopEvents.isEmpty();
    }

    /** Whether an earlier attempt journaled a loop event equal to {@code e} (see {@link #loopEvents}). */
    boolean journaled(Event e) {
      String key = loopEventKey(e);
      return key != null && loopEvents.contains(key);
    }

    /**
     * What makes a loop event the same one: its kind, the loop's position and what it says about the loop (the
     * pass, the condition's answer, the exit). Time and sequence number are left out; they differ between attempts.
     * Null for events that are not loop events.
     */
    static String loopEventKey(Event e) {
      return switch (e) {
        case Event.LoopStarted s -> "started|" + s.node().path();
        case Event.LoopIteration i -> "pass|" + i.node().path() + "|" + i.iteration() + "|"
            + i.conditionResult();
        case Event.LoopIterate b -> "back|" + b.node().path() + "|" + b.iteration();
        case Event.LoopCompleted c -> "ended|" + c.node().path() + "|" + c.iterationsRun()
            + "|" + c.exitReason();
        default -> null;
      };
    }

    /** Whether any execution inside pass {@code iteration} of the loop at {@code loop} was journaled. */
    boolean covers(NodePosition loop, int iteration) {
      if (prefixes.isEmpty()) {
        return false;
      }
      StringBuilder sb = new StringBuilder();
      for (NodePosition.LoopFrame f : loop.loops()) {
        sb.append(f.loopId()).append('[').append(f.iteration()).append("].");
      }
      return prefixes.contains(sb.append(loop.nodeId()).append('[').append(iteration).append(']').toString());
    }

    /** The person's answer for the gate at {@code at}, once, if the run paused there. */
    synchronized ResumeInput takeInput(NodePosition at) {
      if (resumeInput != null && at.path().equals(pausedAt)) {
        ResumeInput s = resumeInput;
        resumeInput = null;
        return s;
      }
      return null;
    }
  }
}
