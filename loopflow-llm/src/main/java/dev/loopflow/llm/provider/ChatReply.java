package dev.loopflow.llm.provider;

import java.util.List;

/**
 * The outcome of a successful {@link ChatCall}.
 *
 * @param text         the assistant's text; for structured output, the JSON document
 * @param inputTokens  every prompt token the provider reported, including those it read from or wrote to its prompt
 *                     cache (Anthropic reports these three apart; they are added up here), 0 when it reports none
 * @param outputTokens completion tokens as reported by the provider, 0 when it reports none
 * @param model        the model that answered, as the provider names it (often a dated snapshot of the
 *                     requested alias), else the requested model
 * @param provider     the provider id, e.g. {@code openai}
 * @param attempts     how many HTTP attempts the call took, 1 when no retry was needed
 * @param toolCalls    the tool calls the model asked for, in its order; empty when it answered (always empty when
 *                     the call offered no tools)
 * @param finishReason why the reply ended, in the OpenTelemetry GenAI vocabulary: {@code stop}, {@code length},
 *                     {@code tool_calls}, {@code content_filter} or {@code other}; null when the provider did not say
 * @param cacheReadTokens  the part of {@code inputTokens} the provider read from its prompt cache, 0 when none or
 *                         unreported
 * @param cacheWriteTokens the part of {@code inputTokens} the provider wrote to its prompt cache, 0 when none or
 *                         unreported
 */
public record ChatReply(String text, long inputTokens, long outputTokens, String model, String provider, int attempts,
        List<ToolCall> toolCalls, String finishReason, long cacheReadTokens, long cacheWriteTokens) {

    public ChatReply {
        if (text == null) {
            throw new IllegalArgumentException("text must not be null");
        }
        if (inputTokens < 0) {
            throw new IllegalArgumentException("inputTokens must be >= 0 but was " + inputTokens);
        }
        if (outputTokens < 0) {
            throw new IllegalArgumentException("outputTokens must be >= 0 but was " + outputTokens);
        }
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be >= 1 but was " + attempts);
        }
        if (cacheReadTokens < 0 || cacheWriteTokens < 0 || cacheReadTokens + cacheWriteTokens > inputTokens) {
            throw new IllegalArgumentException("cacheReadTokens and cacheWriteTokens must be >= 0 and together at most "
                    + "inputTokens (" + inputTokens + ") but were " + cacheReadTokens + " and " + cacheWriteTokens);
        }
        toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    }

    /** A reply whose provider said nothing of its prompt cache. */
    public ChatReply(String text, long inputTokens, long outputTokens, String model, String provider, int attempts,
            List<ToolCall> toolCalls, String finishReason) {
        this(text, inputTokens, outputTokens, model, provider, attempts, toolCalls, finishReason, 0, 0);
    }

    /** A reply whose finish reason is unknown. */
    public ChatReply(String text, long inputTokens, long outputTokens, String model, String provider, int attempts,
            List<ToolCall> toolCalls) {
        this(text, inputTokens, outputTokens, model, provider, attempts, toolCalls, null);
    }

    /** A reply with no tool calls and an unknown finish reason. */
    public ChatReply(String text, long inputTokens, long outputTokens, String model, String provider, int attempts) {
        this(text, inputTokens, outputTokens, model, provider, attempts, List.of());
    }

    public long totalTokens() {
        return inputTokens + outputTokens;
    }
}
