package dev.loopflow.core.internal.exec;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.NodeFailedException;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.expr.Values;
import dev.loopflow.core.internal.plan.ExecGraph;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RunError;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.core.store.NodeExecution;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One node's lifecycle: restore it from the journal of an earlier attempt, or run its body with retries, and tell
 * the {@link Recorder} how it ended. What the body is decides who runs it: a work node's program, a control node
 * ({@link ControlNodes}) or a loop ({@link LoopRunner}). Runs on the node's thread (or its coordinator's, for units
 * that run inline); it reports only through the returned {@link Outcome}.
 */
final class NodeRunner {
  private final RunContext ctx;
  private final Recorder recorder;
  private final ControlNodes control;
  private final LoopRunner loops;

  NodeRunner(RunContext ctx, Recorder recorder, LoopRunner loops) {
    this.ctx = ctx;
    this.recorder = recorder;
    this.control = new ControlNodes(ctx, recorder);
    this.loops = loops;
  }

  Outcome execute(Node node, Frame frame, ExecGraph graph) {
    List<NodeContextImpl> executions = new ArrayList<>(1);
    Outcome o = execute(node, frame, graph, executions);
    if (o != Outcome.PAUSED) {
      // The node's row is journaled (or the run ended and nothing more is): its calls are counted by that row.
      executions.forEach(NodeContextImpl::ended);
    }
    return o;
  }

  private Outcome execute(Node node, Frame frame, ExecGraph graph, List<NodeContextImpl> executions) {
    NodePosition pos = frame.position(node.id());
    boolean loop = node.body() instanceof Node.Loop;
    NodeExecution replayed = ctx.replay.row(pos);
    if (!loop) {
      chargeEarlierAttempts(frame, pos);
      if (replayed != null && restore(node, frame, replayed)) {
        return replayed.status() == NodeStatus.COMPLETED ? Outcome.COMPLETED
            : new Outcome.Failed(new RunError(ErrorCode.of(replayed.errorCode()), replayed.errorMessage(), node.id(), pos.path(),
                Map.of()), true);
      }
      // It runs again: the module logs (the mock's script position) its failed or cancelled executions moved on
      // are the run's, and it continues from them.
      ctx.replay.takeRunLogs(pos).forEach((key, turns) -> {
        NodeContext.Conversation c = ctx.state.conversation(key);
        for (Map<String, String> t : turns) {
          c.append(new NodeContext.Conversation.Turn(t.get("role"), t.get("content")));
        }
      });
    }
    ForkSteer fork = ctx.replay.fork();
    if (fork != null && !loop) {
      fork.beforeNode(pos, ctx.state);
    }
    // Only a loop gets here with its completion already journaled: it re-enters its passes (restored from the
    // journal) to rebuild its state, and must not announce or journal that completion twice. Anything else that
    // gets here runs (again, after a failure that failed the run), and its new outcome is journaled.
    boolean completionJournaled = replayed != null && replayed.status() == NodeStatus.COMPLETED;
    Instant started = ctx.bus.now();
    int attempts = loop ? 1 : node.retry().maxAttempts();
    Usage usage = Usage.NONE;
    for (int attempt = 1; ; attempt++) {
      if (!completionJournaled) {
        recorder.started(node, pos, attempt);
      }
      NodeContextImpl nctx = new NodeContextImpl(ctx, pos, frame, ctx.state.scope(frame));
      executions.add(nctx);
      String failure;
      try {
        Ran ran = body(node, nctx, frame, graph);
        usage = usage.plus(nctx.usage());
        switch (ran) {
          case Ran.Shaped shaped -> {
            return recorder.completed(frame, node, pos, attempt, started, shaped, usage.plus(shaped.innerUsage()),
                nctx.rendered(), nctx.sessionTurns(), !completionJournaled);
          }
          case Ran.Paused p -> {
            return Outcome.PAUSED;
          }
          case Ran.Stopped stopped -> {
            // The loop's row carries only its own usage; its passes journal theirs.
            return recorder.loopStopped(frame, node, pos, started, usage, stopped);
          }
        }
      } catch (InterruptedException e) {
        return recorder.cancelled(frame, node, pos, started, usage.plus(nctx.usage()), attempt,
            runLogs(executions));
      } catch (LoopflowException e) {
        usage = usage.plus(nctx.usage());
        if (e.code() == ErrorCode.CANCELLED || Thread.currentThread().isInterrupted()) {
          return recorder.cancelled(frame, node, pos, started, usage, attempt, runLogs(executions));
        }
        if (e.code() == ErrorCode.BUDGET_EXCEEDED || attempt >= attempts) {
          return recorder.failed(frame, node, pos, started, nctx.rendered(), usage, attempt, e.code(),
              e.getMessage(), e instanceof NodeFailedException nfe ? nfe.partialResult() : Map.of(), e.details(),
              runLogs(executions));
        }
        failure = e.getMessage();
      } catch (Exception | Error e) {
        // Errors too (an AssertionError in a Java node, a library's Error): a node that ends without an outcome
        // would leave its coordinator waiting for it forever.
        usage = usage.plus(nctx.usage());
        if (Thread.currentThread().isInterrupted()) {
          return recorder.cancelled(frame, node, pos, started, usage, attempt, runLogs(executions));
        }
        failure = e.getMessage() == null ? e.toString() : e.getMessage();
        if (attempt >= attempts) {
          return recorder.failed(frame, node, pos, started, nctx.rendered(), usage, attempt,
              ErrorCode.NODE_FAILED, failure, Map.of(), Map.of(), runLogs(executions));
        }
      }
      recorder.retrying(node, pos, attempt + 1, failure);
      if (!ctx.waits.sleep(node.retry().delay())) {
        // interrupted while waiting to retry
        return recorder.cancelled(frame, node, pos, started, usage, attempt, runLogs(executions));
      }
    }
  }

  /** The module-log turns the attempts of one node execution added, in order. */
  private static Map<String, List<Map<String, String>>> runLogs(List<NodeContextImpl> executions) {
    Map<String, List<Map<String, String>>> all = new LinkedHashMap<>();
    for (NodeContextImpl e : executions) {
      e.runLogTurns().forEach((k, v) -> all.computeIfAbsent(k, x -> new ArrayList<>()).addAll(v));
    }
    return all;
  }

  private Ran body(Node node, NodeContextImpl nctx, Frame frame, ExecGraph graph) throws Exception {
    return switch (node.body()) {
      case Node.Work w -> work(w, nctx);
      case Node.Loop l -> loops.node(node, l, frame, graph, nctx);
      default -> control.run(node, nctx, frame, graph);
    };
  }

  private static Ran work(Node.Work w, NodeContextImpl nctx) throws Exception {
    NodeOutcome o;
    try {
      o = w.program().execute(nctx);
    } finally {
      nctx.streamEnded(); // what a handler streamed and did not end is published before the node's own event
    }
    if (o == null) {
      throw new LoopflowException(ErrorCode.NODE_FAILED, "the handler returned no outcome", nctx.position());
    }
    Map<String, Object> result = new LinkedHashMap<>();
    Object out = Values.plain(o.output());
    result.put("output", out);
    // A field that is the output itself (an http body, an LLM reply's text) shares its copy instead of a second.
    o.fields().forEach((k, v) -> result.put(k, v == o.output() ? out : Values.plain(v)));
    if (!o.usage().equals(Usage.NONE) && !result.containsKey("usage")) {
      result.put("usage", Recorder.usageMap(o.usage()));
    }
    // What the journal cannot write must fail the node here: failing later, while journaling, left the run
    // 'running' for ever.
    String bad = notData(result, "result");
    if (bad == null && o.statePatch() != null) {
      bad = notData(o.statePatch(), "state");
    }
    if (bad != null) {
      throw new LoopflowException(ErrorCode.NODE_FAILED, "the node's " + bad + " is not data (text, a number, "
          + "true/false, a list or a map) and cannot be saved", nctx.position());
    }
    return new Ran.Shaped(result, out, o.statePatch(), null, Usage.NONE);
  }

  /** The path of the first part of the value that is not plain data, or null when it is all data. */
  static String notData(Object value, String path) {
    if (value == null || value instanceof String || value instanceof Number || value instanceof Boolean) {
      return null;
    }
    if (value instanceof Map<?, ?> map) {
      for (Map.Entry<?, ?> e : map.entrySet()) {
        String bad = notData(e.getValue(), path + "." + e.getKey());
        if (bad != null) {
          return bad;
        }
      }
      return null;
    }
    if (value instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        String bad = notData(list.get(i), path + "[" + i + "]");
        if (bad != null) {
          return bad;
        }
      }
      return null;
    }
    return path;
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
   * holds all journaled spending (see {@link RunExecution}), including positions this attempt never reaches.
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
}
