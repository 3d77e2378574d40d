package dev.loopflow.core.internal.exec;

import dev.loopflow.core.internal.plan.ExecGraph;

/**
 * The engine's {@link UnitExecutor}, wired once per run: node units go to the node lifecycle, loop edge regions to
 * the loop core, and a level (a loop pass's body) to a new coordinator. Everything is final after construction:
 * nothing is plugged in later, and no part reaches back into the one that called it.
 */
final class Units implements UnitExecutor {
  private final RunContext ctx;
  private final Recorder recorder;
  private final NodeRunner nodes;
  private final LoopRunner loops;

  Units(RunContext ctx, Recorder recorder) {
    this.ctx = ctx;
    this.recorder = recorder;
    this.loops = new LoopRunner(ctx, recorder, this);
    this.nodes = new NodeRunner(ctx, recorder, loops);
  }

  @Override
  public Outcome execute(ExecGraph.Unit unit, Frame frame, ExecGraph level) {
    return switch (unit) {
      case ExecGraph.NodeUnit nu -> nodes.execute(nu.node(), frame, level);
      case ExecGraph.RegionUnit ru -> loops.region(ru, frame);
    };
  }

  @Override
  public LevelResult runLevel(ExecGraph level, Frame frame, Level how) {
    return new GraphRun(ctx, recorder, this, level, frame, how).run();
  }

  /** The run's top level: a plain level, or the passes of its restart loop when it has a restart policy. */
  LevelResult runTop(ExecGraph level, Frame top) {
    return ctx.workflow.restartPolicy() == null ? runLevel(level, top, Level.PLAIN) : loops.restartable(level, top);
  }
}
