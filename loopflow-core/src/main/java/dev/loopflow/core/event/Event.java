package dev.loopflow.core.event;

import dev.loopflow.core.model.NodePosition;
import java.time.Instant;
import java.util.Map;

/** Something that happened in a run. {@link #type()} is the stable name used in JSONL and the journal. */
public sealed interface Event {
  String runId();

  long seq();

  Instant at();

  String type();

  record RunStarted(String runId, long seq, Instant at, String workflow, Map<String, Object> inputs)
      implements Event {
    public String type() {
      return "run.started";
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

  record NodeCompleted(String runId, long seq, Instant at, NodePosition node, String kind, long durationMillis,
      String outputPreview, long inputTokens, long outputTokens, Double costUsd) implements Event {
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

  record LlmCalled(String runId, long seq, Instant at, NodePosition node, String provider, String model,
      long inputTokens, long outputTokens, Double costUsd, boolean mock, int attempts, long durationMillis)
      implements Event {
    public String type() {
      return "llm.call";
    }
  }
}
