package dev.loopflow.core.store;

import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.spi.Usage;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One execution of one node at one position: the templates it rendered ({@code input}: template source to
 * rendered value, null when none), its result fields, usage and error, and what it merged into the run's
 * {@code state} ({@code statePatch}, null when nothing), which is what a resumed run needs to restore it without
 * running it again, and the chat turns it added to LLM sessions ({@code sessions}: session key to turns as
 * {@code {role, content}}; null when none), so a resumed run's sessions continue where they were.
 */
public record NodeExecution(String runId, NodePosition position, String kind, NodeStatus status, int attempts,
    Instant startedAt, Instant finishedAt, Map<String, Object> input, Map<String, Object> result, Usage usage,
    String errorCode, String errorMessage, Map<String, Object> statePatch,
    Map<String, List<Map<String, String>>> sessions) {}
