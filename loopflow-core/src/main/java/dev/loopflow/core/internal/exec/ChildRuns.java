package dev.loopflow.core.internal.exec;

import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.run.RunOptions;
import java.nio.file.Path;
import java.util.Map;

/**
 * Runs another workflow file to its end for a node (an agent's {@code workflow} tool), with the engine that runs
 * the parent. Registered as a service by the facade, which owns loading; the engine never loads files itself.
 */
public interface ChildRuns {
  /** Nesting deeper than this fails the node that asked (a workflow calling itself as a tool). */
  int MAX_DEPTH = 4;

  /**
   * The child's {@code run_id}, {@code status}, {@code output}, {@code error} ({@code code}, {@code message}) and
   * {@code usage}. The child's calls are reserved in {@code ledger}'s budgets and what it spent is added to it.
   */
  Map<String, Object> run(Path file, Map<String, Object> inputs, RunOptions parent, String parentRunId,
      NodePosition caller, ChildLedger ledger) throws InterruptedException;
}
