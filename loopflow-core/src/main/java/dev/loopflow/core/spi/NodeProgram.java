package dev.loopflow.core.spi;

/** One compiled node, immutable and reusable across executions and threads. */
@FunctionalInterface
public interface NodeProgram {
  /**
   * Runs the node once. Throw {@link dev.loopflow.core.LoopflowException} (or any exception, reported as
   * {@code node_failed}) to fail; honour interruption, which is how cancellation and timeouts arrive.
   */
  NodeOutcome execute(NodeContext context) throws Exception;
}
