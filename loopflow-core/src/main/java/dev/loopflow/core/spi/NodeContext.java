package dev.loopflow.core.spi;

import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.expr.Condition;
import dev.loopflow.core.expr.Template;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** What a running node may see and do; deliberately narrow (it cannot reach the scheduler). */
public interface NodeContext {
  String runId();

  NodePosition position();

  /** The read-only template scope: {@code input}, {@code state}, {@code loop}, and every node's latest result. */
  Map<String, Object> scope();

  String render(Template template);

  Object evaluate(Template template);

  boolean test(Condition condition);

  /** The workflow's declared defaults ({@code defaults:}). */
  Map<String, Object> defaults();

  /** A raw top-level block of the workflow (e.g. {@code mock}), as plain data; null when absent. */
  Object workflowBlock(String name);

  /** A run option set by the caller (CLI flags, Java API), e.g. {@code llm.mock_script}. */
  Optional<Object> option(String name);

  /** Environment variables the node may use (the process environment unless overridden for the run). */
  Map<String, String> environment();

  Path workingDirectory();

  /** Time left before the run's deadline, or null when there is none. */
  Duration remaining();

  /** Throws {@link dev.loopflow.core.error.LoopflowException} with code {@code cancelled} when the run is cancelled. */
  void checkCancelled();

  /** Reserves and records this node's LLM calls against the budgets that apply to it. */
  LlmAccounting llm();

  /**
   * A named chat session ({@code session:} on an llm node). It lives as long as the run; inside a loop pass with
   * {@code fresh_context: true} the same name gives a session of that pass only. Its turns are journaled with the
   * execution that added them, so a resumed run continues it.
   */
  Conversation conversation(String name);

  /**
   * A module's own durable log under {@code name}: journaled like a session and restored on resume, but never a
   * chat session and never scoped to a loop pass ({@code fresh_context} does not reset it). The mock provider keeps
   * its position in a reply script here, so a resumed run continues the script where it stopped.
   */
  Conversation runLog(String name);

  /**
   * This execution's durable steps (an agent's model round trips and tool calls). {@link StepLog#record} is
   * durable when it returns; a run resumed after a crash in the middle of this execution gives the execution that
   * runs again the steps the interrupted one recorded, in order, so it can continue instead of repeating them.
   */
  StepLog steps();

  /** The run's shared memory. */
  SharedMemory sharedMemory();

  /**
   * Publishes a restart request from this node (the requester) on the run's command bus. The engine decides it
   * after this node completes, under the workflow's restart policy; the decision is journaled and becomes the
   * request's response. Throws {@code restart_validation_failed} when the workflow has no restart policy.
   *
   * @return the request's number on the bus
   */
  long requestRestart(String targetStageId, String reason, Map<String, String> parameters);

  /**
   * Reports text a streaming model produced since the last call: a delta of the reply being streamed, never the
   * text so far. The engine coalesces deltas into {@code node.streaming} events (at most one per 100 ms per
   * execution, or sooner once 8 KiB are waiting), masks credentials across their boundaries, and delivers them to
   * listeners only: they are not journaled and nothing replays them. Safe to call from any thread.
   */
  void streamed(String delta);

  /**
   * The reply being streamed is over: it completed, failed, or is about to be sent again. What the engine still
   * holds of it is published now, and text streamed after this belongs to the next reply (a new {@code reply}
   * number in the events). The engine also ends the stream when the execution ends.
   */
  default void streamEnded() {}

  /**
   * Runs the workflow in {@code file} (relative to the working directory) to its end as a child run of this one,
   * with the same engine and store, and returns its result: {@code run_id}, {@code status}, {@code output},
   * {@code error}. Child runs nest at most a few levels deep; a deeper one fails this node.
   */
  Map<String, Object> runWorkflow(Path file, Map<String, Object> inputs) throws InterruptedException;

  /**
   * {@link #runWorkflow(Path, Map)}, refused with {@code budget_exceeded} (and not started) when the tree of runs
   * this one belongs to (its parents, their other children, and theirs) has started {@code maxChildRuns} child runs
   * already. The child's LLM calls are reserved in this node's budgets (the run's and its loops') before they are
   * made, so a child gets at most what this node has left, and what the child spent counts in this execution's
   * usage and the run's. The result also has the child's {@code usage}.
   */
  default Map<String, Object> runWorkflow(Path file, Map<String, Object> inputs, int maxChildRuns)
      throws InterruptedException {
    return runWorkflow(file, inputs);
  }

  /** A durable list of steps; see {@link NodeContext#steps()}. */
  interface StepLog {
    /** The steps an interrupted earlier execution of this node recorded; empty on a first execution. */
    List<Map<String, Object>> replayed();

    /** Journals a step durably: it is in the store when this returns (a resume replays it). */
    void record(Map<String, Object> step);

    /**
     * Journals a step that only a reader needs (a resume never relies on it): it is written with the run's next
     * durable write, which saves a write of its own. A crash before then loses it, along with the execution it
     * belongs to, which runs again and notes it again.
     */
    default void note(Map<String, Object> step) {
      record(step);
    }
  }

  /** A service registered with the engine (e.g. the LLM router's chooser), if any. */
  <T> Optional<T> service(Class<T> type);

  /**
   * Budget enforcement and usage recording for LLM calls. Every call is reserved before its request is sent and
   * settled (or released) after, so concurrent calls can never together pass a budget: the engine turns each
   * settled call into an event and the run's totals.
   */
  interface LlmAccounting {
    /**
     * Reserves one call under every budget that applies to this node (the run's and each enclosing loop's), all
     * or none. Throws {@code budget_exceeded} when one of them has no call left, or cannot hold the plan's
     * prompt plus one reply token; throws {@code node_failed} when a {@code max_usd} budget applies and the plan
     * has no price. The caller must end the reservation with {@link Reservation#settle} or
     * {@link Reservation#release}.
     */
    Reservation reserve(CallPlan plan);
  }

  /**
   * A call about to be made.
   *
   * @param maxInputTokens an upper bound on the tokens of everything the request sends
   * @param maxOutputTokens the reply limit the request would carry; null when it sets none
   * @param price what the model costs; null when unknown
   */
  record CallPlan(String provider, String model, long maxInputTokens, Integer maxOutputTokens, TokenPrice price) {
    public CallPlan {
      if (maxInputTokens < 0) {
        throw new IllegalArgumentException("maxInputTokens must be >= 0 but was " + maxInputTokens);
      }
      if (maxOutputTokens != null && maxOutputTokens < 1) {
        throw new IllegalArgumentException("maxOutputTokens must be >= 1 but was " + maxOutputTokens);
      }
    }
  }

  /**
   * A model's price in USD per million tokens: prompt ({@code input}) and reply ({@code output}) tokens, and, where
   * the provider prices them apart, prompt tokens read from its cache ({@code cacheRead}) and written to it
   * ({@code cacheWrite}); a null cache rate means such tokens cost the input rate.
   */
  record TokenPrice(BigDecimal inputPerMillion, BigDecimal outputPerMillion,
      BigDecimal cacheReadPerMillion, BigDecimal cacheWritePerMillion) {
    public TokenPrice {
      if (inputPerMillion == null || inputPerMillion.signum() < 0 || outputPerMillion == null
          || outputPerMillion.signum() < 0) {
        throw new IllegalArgumentException("prices must be non-negative amounts but were " + inputPerMillion
            + " and " + outputPerMillion);
      }
      if (cacheReadPerMillion != null && cacheReadPerMillion.signum() < 0
          || cacheWritePerMillion != null && cacheWritePerMillion.signum() < 0) {
        throw new IllegalArgumentException("cache prices must be non-negative amounts but were "
            + cacheReadPerMillion + " and " + cacheWritePerMillion);
      }
    }

    /** A price with no cache rates of its own. */
    public TokenPrice(BigDecimal inputPerMillion, BigDecimal outputPerMillion) {
      this(inputPerMillion, outputPerMillion, null, null);
    }

    /** The exact USD cost of these token counts, every prompt token at the input rate. */
    public BigDecimal cost(long inputTokens, long outputTokens) {
      return inputPerMillion.multiply(BigDecimal.valueOf(inputTokens))
          .add(outputPerMillion.multiply(BigDecimal.valueOf(outputTokens))).movePointLeft(6);
    }

    /**
     * The exact USD cost of a call whose {@code inputTokens} include {@code cacheReadTokens} read from the
     * provider's cache and {@code cacheWriteTokens} written to it, each priced at its own rate.
     */
    public BigDecimal cost(long inputTokens, long outputTokens, long cacheReadTokens,
        long cacheWriteTokens) {
      long plain = Math.max(0, inputTokens - cacheReadTokens - cacheWriteTokens);
      BigDecimal read = cacheReadPerMillion != null ? cacheReadPerMillion : inputPerMillion;
      BigDecimal write = cacheWritePerMillion != null ? cacheWritePerMillion : inputPerMillion;
      return inputPerMillion.multiply(BigDecimal.valueOf(plain))
          .add(read.multiply(BigDecimal.valueOf(cacheReadTokens)))
          .add(write.multiply(BigDecimal.valueOf(cacheWriteTokens)))
          .add(outputPerMillion.multiply(BigDecimal.valueOf(outputTokens))).movePointLeft(6);
    }

    /**
     * The most these token counts can cost, whatever part of the prompt the provider's cache reads or writes: every
     * prompt token at the dearest prompt rate. What a reservation holds.
     */
    public BigDecimal costAtMost(long inputTokens, long outputTokens) {
      BigDecimal prompt = inputPerMillion;
      if (cacheReadPerMillion != null) {
        prompt = prompt.max(cacheReadPerMillion);
      }
      if (cacheWritePerMillion != null) {
        prompt = prompt.max(cacheWritePerMillion);
      }
      return prompt.multiply(BigDecimal.valueOf(inputTokens))
          .add(outputPerMillion.multiply(BigDecimal.valueOf(outputTokens))).movePointLeft(6);
    }
  }

  /**
   * A reserved call. End it exactly once, by whichever of {@link #settle}, {@link #release}, {@link #charge} and
   * {@link #cancel} describes what happened; the others then do nothing (so {@code charge} can sit in a finally).
   */
  interface Reservation {
    /**
     * The reply limit the request must carry: the plan's (or, when it has none and a token or cost budget
     * applies, a default), lowered to what the budgets leave. Null when no token or cost budget applies and the
     * plan has none: the request then goes out unchanged.
     */
    Integer maxOutputTokens();

    /**
     * Records the finished call in place of its reservation. Throws {@code budget_exceeded} when the call used
     * more than was reserved for it and that passed a limit; the usage is recorded first either way.
     */
    void settle(LlmCall call);

    /** The provider answered with an error, so it processed nothing: the call counts, with no tokens. */
    void release();

    /**
     * The request was sent but what it used is unknown (it timed out, was cancelled while waiting, or its answer
     * could not be read): the provider may have processed and billed it, so it counts at its whole reservation.
     */
    void charge();

    /** The request was never sent: nothing counts. */
    void cancel();
  }

  /**
   * One finished LLM call, as the engine journals it. {@code model} is the model that answered, {@code requestModel}
   * the one asked for (null: the same); {@code finishReason} why the reply ended, null when unknown.
   * {@code inputTokens} counts every prompt token, including {@code cacheReadTokens} and {@code cacheWriteTokens},
   * the parts the provider read from or wrote to its prompt cache (null when it did not say).
   */
  record LlmCall(String provider, String model, long inputTokens, long outputTokens, Double costUsd, boolean mock,
      int attempts, long durationMillis, String requestModel, String finishReason, Long cacheReadTokens,
      Long cacheWriteTokens) {
    /** A call whose provider said nothing of its prompt cache. */
    public LlmCall(String provider, String model, long inputTokens, long outputTokens, Double costUsd, boolean mock,
        int attempts, long durationMillis, String requestModel, String finishReason) {
      this(provider, model, inputTokens, outputTokens, costUsd, mock, attempts, durationMillis, requestModel,
          finishReason, null, null);
    }

    /** A call whose requested model is the one that answered and whose finish reason is unknown. */
    public LlmCall(String provider, String model, long inputTokens, long outputTokens, Double costUsd, boolean mock,
        int attempts, long durationMillis) {
      this(provider, model, inputTokens, outputTokens, costUsd, mock, attempts, durationMillis, null, null);
    }
  }

  /** A thread-safe growing list of chat turns. */
  interface Conversation {
    List<Turn> turns();

    void append(Turn turn);

    record Turn(String role, String content) {}
  }
}
