package dev.loopflow.core.internal.exec;

import dev.loopflow.core.internal.plan.ExecGraph;
import java.util.Set;

/**
 * Runs one unit for the coordinator of its level. The coordinator ({@link GraphRun}) decides when a unit runs and
 * what its outcome means for the level; it never knows what kind of unit it ran, and the unit reports only through
 * the returned outcome. Whatever the unit is (a work node, a control node, a loop whose passes run levels of their
 * own), calls go one way: down.
 */
interface UnitExecutor {
  /** {@code level}: the plan of the level {@code unit} belongs to; {@code frame}: where its results go. */
  Outcome execute(ExecGraph.Unit unit, Frame frame, ExecGraph level);

  /** Runs one level of units (a loop pass's body) to its end; how a loop runs its passes. */
  LevelResult runLevel(ExecGraph level, Frame frame, Level how);

  /**
   * How a level runs. {@code loopedInto}: for a loop edge region's later passes, the node the loop edge enters;
   * {@code carried}: units that enter the level settled and are not run; {@code gate}: asked after each unit
   * completes (a restart loop's), or null.
   */
  record Level(String loopedInto, Set<String> carried, LevelGate gate) {
    static final Level PLAIN = new Level(null, Set.of(), null);
  }
}
