package dev.loopflow.core.model;

import dev.loopflow.core.expr.Condition;
import dev.loopflow.core.expr.Template;

/**
 * What distinguishes one loop construct from another: its exit test and how a pass is fed. Everything
 * constructs share (bound, {@code on_exhausted}, budget, events, previous-pass outputs, position) lives in the
 * one loop core; each variant here is only the front end's configuration.
 */
public sealed interface LoopConfig {
  /** The construct's name as written in YAML ({@code loop}, {@code while_loop}, ...). */
  String construct();

  /** 000's {@code exitCondition}. */
  enum ExitCondition { MAX_ITERATIONS, EVALUATOR, STABLE_OUTPUT }

  /** 000's {@code feedbackMode}. */
  enum Feedback { REPLACE, APPEND }

  /** {@code loop} + {@code exit} (000). */
  record Refine(String exitId, ExitCondition exitCondition, double stabilityThreshold, Feedback feedbackMode)
      implements LoopConfig {
    public String construct() {
      return "loop";
    }
  }

  /** {@code while_loop} (003): {@code condition} is tested before every pass. */
  record While(Condition condition) implements LoopConfig {
    public String construct() {
      return "while_loop";
    }
  }

  /**
   * {@code loop_group} (004).
   *
   * @param until the completion signal, or null
   * @param untilCommand a compiled shell node run after a pass whose signal did not match; exit 0 ends the loop
   * @param terminal the body node whose output is the pass's output ({@code output:}); null = 004's rule
   */
  record Group(String until, Node untilCommand, boolean freshContext, boolean interactive, Template gateMessage,
      String terminal) implements LoopConfig {
    public String construct() {
      return "loop_group";
    }
  }

  /** {@code iterator} + {@code aggregator} (000's foundation): one pass per item of {@code items}. */
  record Iterate(String aggregatorId, Template items, int concurrency, boolean continueOnError)
      implements LoopConfig {
    public String construct() {
      return "iterator";
    }
  }
}
