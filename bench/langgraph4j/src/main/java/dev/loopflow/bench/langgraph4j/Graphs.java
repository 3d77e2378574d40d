package dev.loopflow.bench.langgraph4j;

import org.bsc.langgraph4j.CompileConfig;

/** What every workload's graph compilation shares. */
final class Graphs {

  /*
   * CompiledGraph counts generator steps, not node runs, against the recursion limit: the START step, one step per
   * node run, the END output and the final "done" step. Without this slack a loop of exactly N node runs fails on
   * its last step with "Maximum number of iterations reached".
   */
  private static final int BOOKKEEPING_STEPS = 3;

  private Graphs() {}

  /** A compile configuration whose recursion limit fits exactly {@code nodeRuns} node executions. */
  static CompileConfig.Builder compileConfig(long nodeRuns) {
    long limit = nodeRuns + BOOKKEEPING_STEPS;
    if (limit > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(nodeRuns + " node runs exceed LangGraph4j's int recursion limit");
    }
    return CompileConfig.builder().recursionLimit((int) limit);
  }
}
