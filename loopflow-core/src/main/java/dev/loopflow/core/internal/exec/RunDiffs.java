package dev.loopflow.core.internal.exec;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.NodePosition.LoopFrame;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ForkPoint;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RunDiff;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunRecord;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The sides of a diff, read from journals. The state after a pass is rebuilt with the engine's own merges from the
 * executions journaled up to the pass's last one ({@link RunReports#derive}), so it is the state the next pass
 * started from; a run's side is its result.
 */
public final class RunDiffs {
  private RunDiffs() {}

  /** Pass {@code p} of run {@code run}, whose executions with its lineage are {@code rows}. */
  public static RunDiff.Side pass(Workflow journaled, RunRecord run, List<NodeExecution> rows, ForkPoint.Pass p) {
    int last = -1;
    Map<String, Object> outputs = new LinkedHashMap<>();
    int d = p.enclosing().size();
    for (int i = 0; i < rows.size(); i++) {
      NodeExecution r = rows.get(i);
      List<LoopFrame> loops = r.position().loops();
      if (loops.size() > d && loops.subList(0, d).equals(p.enclosing()) && loops.get(d).equals(p.path().getLast())) {
        last = i;
        if (r.status() == NodeStatus.COMPLETED) {
          outputs.put(inside(r.position(), d + 1), r.result() == null ? null : r.result().get("output"));
        }
      }
    }
    if (last < 0) {
      throw new LoopflowException(ErrorCode.USAGE, "run '" + run.runId() + "' journaled nothing in pass "
          + p.text() + "; name a pass that ran (loopflow show " + run.runId() + " lists them)", null);
    }
    RunResult upTo = RunReports.derive(journaled, run, rows.subList(0, last + 1));
    return new RunDiff.Side(run.runId() + " " + p.text(), upTo.state(), outputs);
  }

  /** Run {@code run}'s result: its state at the end and its top-level nodes' outputs. */
  public static RunDiff.Side run(RunRecord run, RunResult result) {
    Map<String, Object> outputs = new LinkedHashMap<>();
    result.nodes().forEach((id, report) -> {
      if ("completed".equals(report.get("status"))) {
        outputs.put(id, report.get("output"));
      }
    });
    return new RunDiff.Side(run.runId(), result.state(), outputs);
  }

  /** The path of {@code pos} below its first {@code depth} loop frames: {@code draft}, {@code inner[2].check}. */
  private static String inside(NodePosition pos, int depth) {
    return new NodePosition(pos.loops().subList(depth, pos.loops().size()), pos.nodeId()).path();
  }
}
