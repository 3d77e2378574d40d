package dev.loopflow.core.internal.exec;

import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.internal.plan.LoadedWorkflow;
import dev.loopflow.core.model.Budget;
import dev.loopflow.core.model.Limits;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RunError;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.secrets.Redactor;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunRecord;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A run's result object from its journal. A run that ended or paused journaled its result (output, final state,
 * nodes report, what it waits for) and {@link #result} reads it back: the engine returns exactly that object, so
 * {@code run --json} and {@code show --json} print the same. A run still running, or whose process died, has no
 * such record; {@link #derive} rebuilds its state and top-level report from the completed executions through the
 * engine's own {@link RunState} (the same merges, {@code output:} keys and report), never a second implementation.
 */
public final class RunReports {
  private RunReports() {}

  /** The result of a run as journaled, derived from its executions when it has not ended or paused. */
  public static RunResult of(Workflow journaled, RunRecord run, List<NodeExecution> rows) {
    if (run.nodes() != null) {
      return result(run);
    }
    RunResult r = derive(journaled, run, rows);
    return (journaled == null || journaled.restartPolicy() == null ? r
        : r.withPipeline(pipeline(journaled, rows))).withForkedFrom(forkedFrom(run));
  }

  /** What a fork's result says of its origin ({@code run_id}, {@code at}, {@code reused_usage}); null for no fork. */
  public static Map<String, Object> forkedFrom(RunRecord run) {
    if (!(run.options().get(RunOptions.FORKED_FROM) instanceof Map<?, ?> m)) {
      return null;
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("run_id", m.get("run_id"));
    out.put("at", m.get("at"));
    out.put("reused_usage", m.get("reused_usage"));
    return out;
  }

  /** The {@code pipeline} summary of a run of {@code wf} from its journal; null when it has no restart policy. */
  static Map<String, Object> pipeline(Workflow wf, List<NodeExecution> rows) {
    return wf.restartPolicy() == null ? null : RestartLoop.summary(rows, wf.restartPolicy());
  }

  /** The result journaled with a run that ended or paused. */
  @SuppressWarnings("unchecked")
  public static RunResult result(RunRecord r) {
    Map<String, Map<String, Object>> nodes = new LinkedHashMap<>();
    if (r.nodes() != null) {
      r.nodes().forEach((k, v) -> nodes.put(k, (Map<String, Object>) v));
    }
    return new RunResult(r.runId(), r.status(), r.output(), r.state() == null ? Map.of() : r.state(), nodes,
        r.usage() == null ? Usage.NONE : r.usage(), r.error(), r.status() == RunStatus.PAUSED ? r.waiting() : null,
        r.pipeline(), forkedFrom(r));
  }

  /**
   * The result of a run that has not journaled one: {@code state} is the inputs with every completed execution's
   * writes merged in journal order, {@code nodes} the workflow's top-level nodes with their latest journaled
   * execution ({@code not_run} for none yet), {@code usage} the sum over all executions. {@code journaled} is the
   * workflow the run started from; null when unknown (a run built in code), in which case every key merges by
   * replacement and the report lists no nodes.
   */
  public static RunResult derive(Workflow journaled, RunRecord r, List<NodeExecution> rows) {
    Workflow wf = journaled != null ? journaled : new LoadedWorkflow(r.workflow(), null, r.file(), null, Map.of(),
        Map.of(), Budget.NONE, Limits.DEFAULTS, List.of(), List.of(), null, Map.of(), Map.of(), null, null);
    Map<String, Object> inputs = r.inputs() == null ? Map.of() : r.inputs();
    RunState st = new RunState(wf, inputs, new Budgets(Budget.NONE), Map.of());
    Usage usage = Usage.NONE;
    for (NodeExecution row : rows) {
      if (row.usage() != null) {
        usage = usage.plus(row.usage());
      }
      Node node = nodeAt(wf, row.position());
      if (node == null || !node.kind().equals(row.kind())) {
        continue; // a loop gate's answer, or a node the workflow no longer has
      }
      // Top-level nodes report their latest execution, also from inside a graph-form loop's passes (whose bodies
      // are top-level nodes), as the engine's frames do; nodes of a while_loop or loop_group body do not.
      boolean top = find(wf.nodes(), node.id()) == node;
      if (row.status() == NodeStatus.COMPLETED) {
        st.restore(top ? st.top : Frame.top(new Budgets(Budget.NONE)), node, row);
      } else if (top) {
        st.top.mark(node.id(), row.status(), new LinkedHashMap<>(row.result() == null ? Map.of() : row.result()));
      }
    }
    return new RunResult(r.runId(), r.status(), r.output(), st.stateCopy(), st.nodeReports(), usage, r.error(),
        r.status() == RunStatus.PAUSED ? r.waiting() : null);
  }

  /**
   * The record of a run that ended with {@code status}: its usage, output, error, final state and nodes report
   * ({@link #ended}), masked. Every way a run ends (its own engine finishing it, a cancel of a run no engine
   * executes) writes its last record through here, so they cannot differ.
   */
  static RunRecord endRecord(Redactor redactor, RunRecord run, RunStatus status,
      Instant at, Usage usage, Object output, RunError error,
      Map<String, Object> state, Map<String, Map<String, Object>> nodes, Map<String, Object> pipeline) {
    return redactor.record(run.finish(status, at, usage, output, error, state, ended(nodes)).toBuilder()
        .pipeline(pipeline).build());
  }

  /** The run.finished event for a record made by {@link #endRecord}. */
  static Event.RunFinished finishedEvent(RunRecord ended, long seq, Instant at) {
    RunError e = ended.error();
    Usage u = ended.usage();
    return new Event.RunFinished(ended.runId(), seq, at, ended.status().json(),
        e == null ? null : e.code(), e == null ? null : e.message(), u.inputTokens(), u.outputTokens(), u.costUsd(),
        u.llmCalls());
  }

  /**
   * The nodes report of a run that ended: no node waits for a person any more, so an approval that was still asking
   * (the run failed or was cancelled meanwhile) shows {@code cancelled}, never {@code paused}.
   */
  static Map<String, Object> ended(Map<String, Map<String, Object>> nodes) {
    Map<String, Object> out = new LinkedHashMap<>();
    nodes.forEach((id, report) -> {
      if (NodeStatus.PAUSED.json().equals(report.get("status"))) {
        Map<String, Object> r = new LinkedHashMap<>(report);
        r.put("status", NodeStatus.CANCELLED.json());
        report = r;
      }
      out.put(id, report);
    });
    return out;
  }

  /**
   * The node a journaled position names: each loop frame descends into that loop's own body when it has one
   * ({@code while_loop}, {@code loop_group}); graph-form loops and loop edges keep their bodies at the same level.
   */
  static Node nodeAt(Workflow wf, NodePosition pos) {
    List<Node> level = wf.nodes();
    for (NodePosition.LoopFrame f : pos.loops()) {
      Node loop = find(level, f.loopId());
      if (loop != null && loop.body() instanceof Node.Loop l && !l.body().isEmpty()) {
        level = l.body();
      }
    }
    return find(level, pos.nodeId());
  }

  private static Node find(List<Node> level, String id) {
    for (Node n : level) {
      if (n.id().equals(id)) {
        return n;
      }
    }
    return null;
  }
}
