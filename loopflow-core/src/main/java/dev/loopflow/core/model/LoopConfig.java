package dev.loopflow.core.model;

import dev.loopflow.core.expr.Condition;
import dev.loopflow.core.expr.Template;
import dev.loopflow.core.run.AnswerSchema;

/**
 * What distinguishes one loop construct from another: its exit test and how a pass is fed. Everything
 * constructs share (bound, {@code on_exhausted}, budget, events, previous-pass outputs, position) lives in the
 * one loop core; each variant here is only the front end's configuration.
 */
public sealed interface LoopConfig {
  /** The construct's name as written in YAML ({@code loop}, {@code while_loop}, ...). */
  String construct();

  /** How a {@code loop} decides it is done ({@code exitCondition}). */
  enum ExitCondition { MAX_ITERATIONS, EVALUATOR, STABLE_OUTPUT }

  /** How a {@code loop} feeds one pass's output to the next ({@code feedbackMode}). */
  enum Feedback { REPLACE, APPEND }

  /** {@code loop} + {@code exit}: refine until an evaluator, a stable output or the bound says done. */
  record Refine(String exitId, ExitCondition exitCondition, double stabilityThreshold, Feedback feedbackMode)
      implements LoopConfig {
    public String construct() {
      return "loop";
    }
  }

  /** {@code while_loop}: {@code condition} is tested before every pass. */
  record While(Condition condition) implements LoopConfig {
    public String construct() {
      return "while_loop";
    }
  }

  /**
   * {@code loop_group}: a sealed sub-graph repeated until a signal or a command says done.
   *
   * @param until the completion signal, or null
   * @param untilCommand a compiled shell node run after a pass whose signal did not match; exit 0 ends the loop
   * @param terminal the body node whose output is the pass's output ({@code output:}); null = the first body node no other depends on
   * @param gateSchema the form an interactive group's gate asks the person to fill ({@code gate_schema}), or null
   */
  record Group(String until, Node untilCommand, boolean freshContext, boolean interactive, Template gateMessage,
      String terminal, AnswerSchema gateSchema) implements LoopConfig {
    /**
     * The node id the until command runs under, at {@code <group>[k].$until}; no node can have it ('$' is not
     * allowed in ids), so it never collides with a body node.
     */
    public static final String UNTIL_COMMAND_ID = "$until";
    /**
     * Where an interactive group waits for a person after pass k: {@code <group>[k].gate}, also the journal kind of
     * that wait. A body node of an interactive group cannot have this id.
     */
    public static final String GATE_ID = "gate";

    public String construct() {
      return "loop_group";
    }
  }

  /** {@code iterator} + {@code aggregator}: one pass per item of {@code items}. */
  record Iterate(String aggregatorId, Template items, int concurrency, boolean continueOnError)
      implements LoopConfig {
    public String construct() {
      return "iterator";
    }
  }
}
