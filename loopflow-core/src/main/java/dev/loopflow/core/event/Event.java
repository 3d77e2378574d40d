package dev.loopflow.core.event;

import dev.loopflow.core.error.NodePosition;
import java.time.Instant;
import java.util.Map;

/** Something that happened in a run. {@link #type()} is the stable name used in JSONL and the journal. */
public sealed interface Event {
  String runId();

  long seq();

  Instant at();

  String type();

  /**
   * Whether this event is ephemeral: delivered to listeners (live progress, an events file, a Java listener) but
   * never journaled. An ephemeral event takes no sequence number of its own: its {@link #seq()} is that of the
   * last durable event published before it, so the journal's sequence stays gap-free for readers that replay
   * from it ({@code loopflow events --follow}, a stream resumed from its last id), and the event still sorts
   * after everything that came before it. The one rule, asked by the event bus.
   */
  default boolean ephemeral() {
    return false;
  }

  record RunStarted(String runId, long seq, Instant at, String workflow, Map<String, Object> inputs)
      implements Event {
    public String type() {
      return "run.started";
    }
  }

  /**
   * A journaled run continues in a new attempt (instead of a second {@code run.started}). {@code from} is what it
   * was: {@code paused} (waiting for a person), {@code failed}, or {@code crashed} (journaled as running, but no
   * process executes it any more). {@code waitedAt} is the position it waited at (null unless paused);
   * {@code answer} is what the person gave ({@code text}, or {@code decision} and {@code comment}), null for none.
   */
  record RunResumed(String runId, long seq, Instant at, String workflow, String from, String waitedAt,
      Map<String, Object> answer) implements Event {
    public String type() {
      return "run.resumed";
    }
  }

  record RunFinished(String runId, long seq, Instant at, String status, String errorCode, String message,
      long inputTokens, long outputTokens, Double costUsd, int llmCalls) implements Event {
    public String type() {
      return "run.finished";
    }
  }

  record NodeStarted(String runId, long seq, Instant at, NodePosition node, String kind, int attempt)
      implements Event {
    public String type() {
      return "node.started";
    }
  }

  /**
   * A node completed. {@code outputBytes} is the size in UTF-8 bytes of its whole output as text (masked, as the
   * preview is cut from), 0 for none; events journaled before it existed read back as 0.
   */
  record NodeCompleted(String runId, long seq, Instant at, NodePosition node, String kind, long durationMillis,
      String outputPreview, long inputTokens, long outputTokens, Double costUsd, long outputBytes) implements Event {
    public String type() {
      return "node.completed";
    }
  }

  record NodeFailed(String runId, long seq, Instant at, NodePosition node, String kind, long durationMillis,
      String errorCode, String message, boolean allowed) implements Event {
    public String type() {
      return "node.failed";
    }
  }

  record NodeSkipped(String runId, long seq, Instant at, NodePosition node, String kind, String reason)
      implements Event {
    public String type() {
      return "node.skipped";
    }
  }

  record NodeCancelled(String runId, long seq, Instant at, NodePosition node, String kind) implements Event {
    public String type() {
      return "node.cancelled";
    }
  }

  record NodeRetrying(String runId, long seq, Instant at, NodePosition node, String kind, int attempt,
      String message) implements Event {
    public String type() {
      return "node.retrying";
    }
  }

  record RouterSelected(String runId, long seq, Instant at, NodePosition node, String branch) implements Event {
    public String type() {
      return "router.selected";
    }
  }

  /**
   * One finished LLM call. {@code model} is the model that answered (as the provider names it), {@code requestModel}
   * the one asked for; {@code finishReason} is why the reply ended ({@code stop}, {@code length},
   * {@code tool_calls}, {@code content_filter}, ...), null when the provider did not say. Both are null in events
   * journaled before they existed. {@code inputTokens} counts every prompt token; {@code cacheReadTokens} and
   * {@code cacheWriteTokens} are the parts of them the provider read from or wrote to its prompt cache, null when it
   * did not say.
   */
  record LlmCalled(String runId, long seq, Instant at, NodePosition node, String provider, String model,
      long inputTokens, long outputTokens, Double costUsd, boolean mock, int attempts, long durationMillis,
      String requestModel, String finishReason, Long cacheReadTokens, Long cacheWriteTokens) implements Event {
    /** A call whose provider said nothing of its prompt cache. */
    public LlmCalled(String runId, long seq, Instant at, NodePosition node, String provider, String model,
        long inputTokens, long outputTokens, Double costUsd, boolean mock, int attempts, long durationMillis,
        String requestModel, String finishReason) {
      this(runId, seq, at, node, provider, model, inputTokens, outputTokens, costUsd, mock, attempts, durationMillis,
          requestModel, finishReason, null, null);
    }

    public String type() {
      return "llm.call";
    }
  }

  /** A loop begins (before its first pass, or before its condition is first tested). */
  record LoopStarted(String runId, long seq, Instant at, NodePosition node, String construct, int max)
      implements Event {
    public String type() {
      return "loop.started";
    }
  }

  /**
   * A pass begins, or a while_loop's condition refused it. {@code iteration} is 1-based; {@code index} (0-based) and
   * {@code total} say the same facts under the names loop.iteration subscribers also read. {@code conditionResult}
   * is the while_loop condition checked before this pass (null for other constructs): true, and the pass begins;
   * false, and it never does: that check ended the loop ({@link #startsAPass()} tells the two apart).
   */
  record LoopIteration(String runId, long seq, Instant at, NodePosition node, String construct, int iteration,
      int index, int max, int total, String inputPreview, Boolean conditionResult) implements Event {
    public String type() {
      return "loop.iteration";
    }

    /** False for the check that ended a while_loop: no pass {@code iteration} starts. */
    public boolean startsAPass() {
      return !Boolean.FALSE.equals(conditionResult);
    }
  }

  /** A loop edge's loop-back: the loop edge from {@code edgeFrom} to {@code edgeTo} fired for the {@code iteration}th time. */
  record LoopIterate(String runId, long seq, Instant at, NodePosition node, String edgeFrom, String edgeTo,
      int iteration, int maxIterations) implements Event {
    public String type() {
      return "loop.iterate";
    }
  }

  /** A loop ended, normally or not: passes run, why, and what all its passes cost. */
  record LoopCompleted(String runId, long seq, Instant at, NodePosition node, String construct, int iterationsRun,
      String exitReason, long inputTokens, long outputTokens, Double costUsd, int llmCalls) implements Event {
    public String type() {
      return "loop.completed";
    }
  }

  /** The run stopped to wait for a person (an interactive loop gate or an approval). */
  record RunPaused(String runId, long seq, Instant at, NodePosition node, String message) implements Event {
    public String type() {
      return "run.paused";
    }
  }

  /**
   * A listener threw while receiving the event of type {@code eventType}; it is detached from the run, which goes
   * on. {@code listener} says which one (its registration number and class), {@code message} what it threw.
   */
  record ListenerFailed(String runId, long seq, Instant at, String listener, String eventType, String message)
      implements Event {
    public String type() {
      return "listener.failed";
    }
  }

  /**
   * A durable step inside one node execution (an agent's model round trip or tool call). {@code execution}
   * tells the executions of one position apart, so a resumed run continues only the last one.
   */
  record NodeStep(String runId, long seq, Instant at, NodePosition node, String execution,
      Map<String, Object> step) implements Event {
    public String type() {
      return "node.step";
    }
  }

  /**
   * Text a streaming model produced in a node execution, as it arrives: {@code tokens} is the text since the
   * previous event of the same reply (a delta), never the text so far. {@code reply} numbers the replies streamed
   * in the execution from 1: an agent's turns, and an attempt retried after a broken stream, each start a new
   * reply, so a view appends the tokens of one reply and starts over at a new number. Ephemeral: never journaled.
   */
  record NodeStreaming(String runId, long seq, Instant at, NodePosition node, String nodeId, int reply,
      String tokens) implements Event {
    public String type() {
      return "node.streaming";
    }

    @Override
    public boolean ephemeral() {
      return true;
    }
  }

  /**
   * A restart request arrived on the run's bus (from a node, the Java API, the command line or HTTP). Every restart
   * event carries {@code topic}, the restart policy's {@code restart_topic} it was published under (null in events
   * journaled before topics were recorded).
   */
  record RestartRequested(String runId, long seq, Instant at, long requestSeq, String requesterStageId,
      String targetStageId, String reason, Map<String, Object> parameters, int iteration, long timestampMs,
      String topic) implements Event {
    public String type() {
      return "restart.requested";
    }
  }

  /** A restart request passed the restart policy: the run goes back to {@code targetStageId}. */
  record RestartAccepted(String runId, long seq, Instant at, long requestSeq, String requesterStageId,
      String targetStageId, String reason, int iteration, String topic) implements Event {
    public String type() {
      return "restart.accepted";
    }
  }

  /** A restart request was refused; {@code errorCode} says by which check. */
  record RestartRejected(String runId, long seq, Instant at, long requestSeq, String requesterStageId,
      String targetStageId, String reason, String errorCode, String message, int iteration, String topic)
      implements Event {
    public String type() {
      return "restart.rejected";
    }
  }

  /** A stage's output did not validate; the stage runs again with a fresh session. */
  record StageValidationRetry(String runId, long seq, Instant at, NodePosition node, int retry, String sessionId,
      String error) implements Event {
    public String type() {
      return "stage.validation_retry";
    }
  }
}
