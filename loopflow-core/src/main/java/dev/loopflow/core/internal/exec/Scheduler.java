package dev.loopflow.core.internal.exec;

import dev.loopflow.core.ErrorCode;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.expr.Values;
import dev.loopflow.core.internal.plan.GraphPlan;
import dev.loopflow.core.internal.util.Durations;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.model.NodePosition;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RunError;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/*
 * Design notes.
 *
 * One coordinator thread per run owns all scheduling decisions; node bodies run on virtual threads and report
 * back through a queue. Because only the coordinator changes scheduling state (remaining-dependency counts,
 * the ready queue, the running set), none of it needs locks, and the order of decisions is easy to reason
 * about.
 *
 * A node becomes ready when every node it depends on has reached a terminal status. It then runs when at
 * least one incoming edge is active (source completed, edge condition true, router branch matches) — roots
 * always — and its own `when` holds; otherwise it is skipped, which makes its outgoing edges inactive, so
 * skipping propagates downstream without special cases. Ready nodes run in definition order as
 * `limits.concurrency` slots free up.
 *
 * Failure, cancellation and timeout all stop dispatching and interrupt running nodes, which get a bounded
 * time to stop (drainInterrupted) before they are recorded as cancelled; nodes that never started end as
 * not_run. Every terminal path goes through finish(), which journals the run record.
 */
final class Scheduler implements RunHandle {
  private final String runId;
  private final Workflow workflow;
  private final RunOptions options;
  private final RunStore store;
  private final Clock clock;
  private final ExecutorService executor;
  private final GraphPlan plan;
  private final RunState runState;
  private final EventBus bus;
  private final Budgets budgets;
  private final NodeRunner runner;
  private final LinkedBlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
  private final CountDownLatch done = new CountDownLatch(1);
  private final AtomicInteger steps = new AtomicInteger();
  private final Map<String, Running> running = new java.util.concurrent.ConcurrentHashMap<>();
  private volatile RunResult result;
  private volatile String cancelReason;
  private RunRecord record;

  private record Running(Future<?> future, Instant deadline, Node node) {}

  record Completion(String nodeId, NodeRunner.Outcome outcome) {}

  private record CancelRequest(String reason) {}

  Scheduler(String runId, Workflow workflow, Map<String, Object> inputs, RunOptions options, RunStore store,
      Map<Class<?>, Object> services, Clock clock, ExecutorService executor) {
    this.runId = runId;
    this.workflow = workflow;
    this.options = options;
    this.store = store;
    this.clock = clock;
    this.executor = executor;
    this.plan = GraphPlan.of(workflow);
    this.runState = new RunState(workflow, inputs);
    this.bus = new EventBus(clock, options.listeners());
    this.bus.subscribe(store::appendEvent);
    this.budgets = new Budgets(workflow.budget());
    this.runner = new NodeRunner(runId, workflow, runState, bus, budgets, options, services, steps, store,
        this::deadline);
  }

  private Instant deadlineAt;

  private Instant deadline() {
    return deadlineAt;
  }

  @Override
  public String runId() {
    return runId;
  }

  @Override
  public void cancel(String reason) {
    if (cancelReason == null) {
      cancelReason = reason == null ? "cancelled" : reason;
    }
    inbox.offer(new CancelRequest(cancelReason));
  }

  @Override
  public RunResult await() throws InterruptedException {
    done.await();
    return result;
  }

  @Override
  public Optional<RunResult> await(Duration timeout) throws InterruptedException {
    return done.await(timeout.toMillis(), TimeUnit.MILLISECONDS) ? Optional.of(result) : Optional.empty();
  }

  @Override
  public List<String> runningNodes() {
    return List.copyOf(running.keySet());
  }

  void run() {
    try {
      result = execute();
    } catch (RuntimeException | Error e) {
      result = new RunResult(runId, RunStatus.FAILED, null, runState.stateCopy(), nodeReports(),
          budgets.used(), new RunError(ErrorCode.NODE_FAILED.code(), "internal error: " + e, null));
    } finally {
      done.countDown();
    }
  }

  private RunResult execute() {
    Instant started = clock.instant();
    Duration timeout = options.timeout() != null ? options.timeout() : workflow.limits().timeout();
    deadlineAt = timeout == null ? null : started.plus(timeout);
    record = new RunRecord(runId, workflow.name(), workflow.file(), workflow.source(), hash(workflow.source()),
        runState.inputs, RunStatus.RUNNING, started, null, Usage.NONE, null, null);
    store.createRun(record);
    bus.publish((seq, at) -> new Event.RunStarted(runId, seq, at, workflow.name(), runState.inputs));

    Map<String, Integer> remaining = new HashMap<>();
    ArrayDeque<String> ready = new ArrayDeque<>();
    for (String id : plan.order()) {
      int n = (int) plan.incoming(id).stream().map(GraphPlan.Incoming::from).distinct().count();
      remaining.put(id, n);
      if (n == 0) {
        ready.add(id);
      }
    }
    RunError failure = null;
    RunStatus stopStatus = null;
    while (true) {
      // Resolve skips eagerly and start as many ready nodes as slots allow.
      while (stopStatus == null && !ready.isEmpty() && running.size() < workflow.limits().concurrency()) {
        String id = ready.poll();
        Node node = workflow.node(id);
        String skipReason = skipReason(node);
        if (skipReason != null) {
          runState.mark(id, NodeStatus.SKIPPED, Map.of("status", "skipped"));
          bus.publish((seq, at) -> new Event.NodeSkipped(runId, seq, at, NodePosition.top(id), node.kind(),
              skipReason));
          release(id, remaining, ready);
          continue;
        }
        if (steps.incrementAndGet() > workflow.limits().maxSteps()) {
          failure = new RunError(ErrorCode.MAX_STEPS_EXCEEDED.code(), "limits.max_steps (" + workflow.limits()
              .maxSteps() + ") reached: the run executed that many nodes", id);
          stopStatus = RunStatus.FAILED;
          break;
        }
        Instant nodeDeadline = node.timeout() == null ? null : clock.instant().plus(node.timeout());
        Future<?> f = executor.submit(() -> inbox.offer(new Completion(id, runner.execute(node))));
        running.put(id, new Running(f, nodeDeadline, node));
      }
      // Once the run is stopping, interrupted nodes get a bounded time to report (drainInterrupted): a node that
      // ignores its interrupt must not keep the run from ending.
      if (stopStatus != null || running.isEmpty() && ready.isEmpty()) {
        break;
      }
      Object msg;
      try {
        msg = inbox.poll(pollMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        cancel("interrupted");
        continue;
      }
      if (msg instanceof CancelRequest cr) {
        if (stopStatus == null) {
          stopStatus = RunStatus.CANCELLED;
          failure = new RunError(ErrorCode.CANCELLED.code(), "run cancelled: " + cr.reason(), null);
          interruptAll();
        }
        continue;
      }
      if (msg instanceof Completion c) {
        Running r = running.remove(c.nodeId());
        if (r == null) {
          continue; // already finalized (timed out or cancelled)
        }
        NodeRunner.Outcome o = c.outcome();
        switch (o) {
          case NodeRunner.Outcome.Completed done -> {
            if (done.cancelRun() != null && stopStatus == null) {
              stopStatus = RunStatus.CANCELLED;
              failure = new RunError(ErrorCode.CANCELLED.code(), done.cancelRun(), c.nodeId());
              interruptAll();
            }
            release(c.nodeId(), remaining, ready);
          }
          case NodeRunner.Outcome.Failed failed -> {
            if (failed.allowed()) {
              release(c.nodeId(), remaining, ready);
            } else if (stopStatus == null) {
              stopStatus = RunStatus.FAILED;
              failure = new RunError(failed.code(), failed.message(), c.nodeId());
              interruptAll();
            }
          }
          case NodeRunner.Outcome.Cancelled cancelled -> {
            if (stopStatus == null) {
              stopStatus = RunStatus.CANCELLED;
              failure = new RunError(ErrorCode.CANCELLED.code(), "run cancelled", c.nodeId());
            }
          }
        }
        continue;
      }
      // Poll timed out: check the run deadline and node deadlines.
      Instant now = clock.instant();
      if (deadlineAt != null && !now.isBefore(deadlineAt) && stopStatus == null) {
        stopStatus = RunStatus.FAILED;
        failure = new RunError(ErrorCode.TIMEOUT.code(), "run timed out after " + Durations.format(timeout)
            + " (limits.timeout); running: " + running.keySet(), null);
        interruptAll();
        continue;
      }
      for (Running r : List.copyOf(running.values())) {
        if (r.deadline() != null && !now.isBefore(r.deadline())) {
          running.remove(r.node().id());
          r.future().cancel(true);
          String id = r.node().id();
          String message = "node '" + id + "' timed out after " + Durations.format(r.node().timeout());
          runner.recordTimeout(r.node(), message);
          if (r.node().allowFailure()) {
            release(id, remaining, ready);
          } else if (stopStatus == null) {
            stopStatus = RunStatus.FAILED;
            failure = new RunError(ErrorCode.TIMEOUT.code(), message, id);
            interruptAll();
          }
        }
      }
    }
    // Wait for interrupted nodes to report so their final status is journaled.
    drainInterrupted();
    RunStatus status = stopStatus == null ? RunStatus.COMPLETED : stopStatus;
    return finish(status, failure);
  }

  private long pollMillis() {
    Instant now = clock.instant();
    long wait = 60_000;
    if (deadlineAt != null) {
      wait = Math.min(wait, Math.max(1, Duration.between(now, deadlineAt).toMillis()));
    }
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

  private void drainInterrupted() {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!running.isEmpty() && System.nanoTime() < until) {
      try {
        Object msg = inbox.poll(100, TimeUnit.MILLISECONDS);
        if (msg instanceof Completion c) {
          running.remove(c.nodeId());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    for (Running r : running.values()) {
      runner.recordCancelled(r.node());
    }
    running.clear();
  }

  private void release(String id, Map<String, Integer> remaining, ArrayDeque<String> ready) {
    for (String s : plan.successors(id)) {
      int left = remaining.merge(s, -1, Integer::sum);
      if (left == 0) {
        ready.add(s);
      }
    }
  }

  /** Null when the node should run; otherwise why it is skipped. */
  private String skipReason(Node node) {
    List<GraphPlan.Incoming> incoming = plan.incoming(node.id());
    if (!incoming.isEmpty()) {
      boolean active = false;
      Map<String, Object> scope = null;
      for (GraphPlan.Incoming in : incoming) {
        NodeStatus s = runState.status(in.from());
        if (s != NodeStatus.COMPLETED && s != NodeStatus.FAILED) {
          continue;
        }
        if (in.branch() != null) {
          Map<String, Object> r = runState.result(in.from());
          if (r == null || !in.branch().equals(r.get("selectedBranch"))) {
            continue;
          }
        }
        if (in.when() != null) {
          if (scope == null) {
            scope = runState.scope();
          }
          try {
            if (!in.when().test(scope)) {
              continue;
            }
          } catch (RuntimeException e) {
            return "edge condition from '" + in.from() + "' failed: " + e.getMessage();
          }
        }
        active = true;
        break;
      }
      if (!active) {
        return "no active incoming edge";
      }
    }
    if (node.when() != null) {
      try {
        if (!node.when().test(runState.scope())) {
          return "when is false: " + node.when().source();
        }
      } catch (RuntimeException e) {
        return "when failed: " + e.getMessage();
      }
    }
    return null;
  }

  private RunResult finish(RunStatus status, RunError error) {
    Object output = status == RunStatus.COMPLETED || status == RunStatus.CANCELLED ? runner.workflowOutput() : null;
    if (status == RunStatus.FAILED) {
      output = null;
    }
    Usage usage = budgets.used();
    Instant end = clock.instant();
    record = record.finish(status, end, usage, output, error);
    store.updateRun(record);
    RunError e = error;
    bus.publish((seq, at) -> new Event.RunFinished(runId, seq, at, status.json(), e == null ? null : e.code(),
        e == null ? null : e.message(), usage.inputTokens(), usage.outputTokens(), usage.costUsd(),
        usage.llmCalls()));
    return new RunResult(runId, status, output, runState.stateCopy(), nodeReports(), usage, error);
  }

  private Map<String, Map<String, Object>> nodeReports() {
    Map<String, Map<String, Object>> out = new LinkedHashMap<>();
    for (Node n : workflow.nodes()) {
      Map<String, Object> r = runState.result(n.id());
      NodeStatus s = runState.status(n.id());
      Map<String, Object> report = new LinkedHashMap<>();
      report.put("status", (s == null ? NodeStatus.NOT_RUN : s).json());
      if (r != null) {
        r.forEach((k, v) -> {
          if (!k.equals("status")) {
            report.put(k, Values.plain(v));
          }
        });
      }
      out.put(n.id(), report);
    }
    return out;
  }

  static String hash(String source) {
    if (source == null) {
      return null;
    }
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(md.digest(source.getBytes(StandardCharsets.UTF_8)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
