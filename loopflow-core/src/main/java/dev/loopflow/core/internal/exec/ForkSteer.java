package dev.loopflow.core.internal.exec;

import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.run.ForkEdits;
import dev.loopflow.core.run.ForkPoint;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A fork's edits, applied where the fork starts: state edits just before the loop tests whether to run the pass
 * (or just before the node runs, for a node point), a loop-input edit as the pass's input. Output edits are not
 * here: they change the reused journal rows before the replay restores them.
 *
 * <p>What must stay true: the edits apply once per run attempt, at the same moment of the replayed execution in
 * every attempt, so a fork that is resumed after a crash reaches the state it had.
 */
final class ForkSteer {
  private final ForkPoint at;
  private final ForkEdits edits;
  /** For a node point: the position of the execution the fork starts at. */
  private final NodePosition nodeAt;
  private final AtomicBoolean stateApplied = new AtomicBoolean();
  private final AtomicBoolean inputApplied = new AtomicBoolean();

  ForkSteer(ForkPoint at, ForkEdits edits, NodePosition nodeAt) {
    this.at = at;
    this.edits = edits;
    this.nodeAt = nodeAt;
  }

  /** Whether {@code pass} of the loop {@code loopId} inside {@code enclosing} is where this fork starts. */
  private boolean isPoint(List<NodePosition.LoopFrame> enclosing, String loopId, int pass) {
    return at instanceof ForkPoint.Pass p && p.pass() == pass && p.loopId().equals(loopId)
        && p.enclosing().equals(enclosing);
  }

  /** Before the loop decides whether to run {@code pass}: the state edits, once. */
  void beforePass(List<NodePosition.LoopFrame> enclosing, String loopId, int pass, RunState state) {
    if (isPoint(enclosing, loopId, pass) && stateApplied.compareAndSet(false, true)) {
      edits.state().forEach(state::edit);
    }
  }

  /** The input pass {@code pass} gets: the edited one at the fork's point, else {@code computed}. */
  Object passInput(List<NodePosition.LoopFrame> enclosing, String loopId, int pass, Object computed) {
    if (edits.setsLoopInput() && isPoint(enclosing, loopId, pass) && inputApplied.compareAndSet(false, true)) {
      return edits.loopInput();
    }
    return computed;
  }

  /** Before the node at {@code pos} runs (not when it is restored): the state edits of a node point, once. */
  void beforeNode(NodePosition pos, RunState state) {
    if (nodeAt != null && nodeAt.equals(pos) && stateApplied.compareAndSet(false, true)) {
      edits.state().forEach(state::edit);
    }
  }
}
