package dev.loopflow.core.spi;

import java.util.Objects;

/** One compiled node, immutable and reusable across executions and threads. */
@FunctionalInterface
public interface NodeProgram {
  /**
   * Runs the node once. Throw {@link dev.loopflow.core.error.LoopflowException} (or any exception, reported as
   * {@code node_failed}) to fail; honour interruption, which is how cancellation and timeouts arrive.
   */
  NodeOutcome execute(NodeContext context) throws Exception;

  /**
   * Whether the engine may run this program on the thread that schedules its graph level instead of a thread of its
   * own. True only for programs that compute and return (no network, no subprocess, no waiting for anything): a
   * node running alone at its level then costs no thread handoff. Nodes with a {@code timeout} always get their
   * own thread, since the scheduler must stay free to enforce it.
   */
  default boolean runsInline() {
    return false;
  }

  /**
   * What {@code output: key} stores for this node: false (the default) stores its {@code output}; true stores its
   * whole result map (an llm node's {@code text}, {@code json}, {@code usage}, ...). Fixed per program, since a
   * resumed run restores {@code state} from the journal without running the node again.
   */
  default boolean storesWholeResult() {
    return false;
  }

  /** {@code program}, marked as safe to run inline (see {@link #runsInline()}). */
  static NodeProgram inline(NodeProgram program) {
    Objects.requireNonNull(program, "program");
    return new NodeProgram() {
      @Override
      public NodeOutcome execute(NodeContext context) throws Exception {
        return program.execute(context);
      }

      @Override
      public boolean runsInline() {
        return true;
      }

      @Override
      public boolean storesWholeResult() {
        return program.storesWholeResult();
      }
    };
  }
}
