/**
 * What went wrong and where: the error codes ({@link dev.loopflow.core.error.ErrorCode}), the root exception
 * ({@link dev.loopflow.core.error.LoopflowException}) and its typed subclasses, and the positions they name (a node's
 * {@link dev.loopflow.core.error.NodePosition}, a workflow file's {@link dev.loopflow.core.error.Location}, a load
 * {@link dev.loopflow.core.error.Problem}).
 *
 * <p>The leaf of the core: it depends on nothing else of loopflow, so every other package may throw and describe
 * errors without depending on the engine.
 */
package dev.loopflow.core.error;
