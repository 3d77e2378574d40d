package dev.loopflow.core.store;

import dev.loopflow.core.model.NodePosition;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.spi.Usage;
import java.time.Instant;
import java.util.Map;

/** One execution of one node at one position: its result fields, usage and error. */
public record NodeExecution(String runId, NodePosition position, String kind, NodeStatus status, int attempts,
    Instant startedAt, Instant finishedAt, Map<String, Object> result, Usage usage, String errorCode,
    String errorMessage) {}
