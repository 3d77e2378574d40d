package dev.loopflow.llm.provider;

import java.util.List;
import java.util.Objects;

/**
 * One turn of a conversation.
 *
 * <p>An {@link Role#ASSISTANT} message may carry the tool calls the model asked for (its {@code content} is then
 * its text besides the calls, often empty); a {@link Role#TOOL} message is the result of one such call, naming the
 * call's {@code toolCallId} and {@code toolName}, with {@code error} set when the tool failed.
 */
public record ChatMessage(Role role, String content, List<ToolCall> toolCalls, String toolCallId, String toolName,
        boolean error) {

    public enum Role {
        SYSTEM,
        USER,
        ASSISTANT,
        TOOL
    }

    public ChatMessage {
        Objects.requireNonNull(role, "role must not be null");
        Objects.requireNonNull(content, "content must not be null (role " + role + ")");
        toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
        if (!toolCalls.isEmpty() && role != Role.ASSISTANT) {
            throw new IllegalArgumentException("only an assistant message carries tool calls, not " + role);
        }
        if (role == Role.TOOL && (toolCallId == null || toolCallId.isBlank() || toolName == null)) {
            throw new IllegalArgumentException("a tool result needs the id and the name of the call it answers");
        }
    }

    public ChatMessage(Role role, String content) {
        this(role, content, List.of(), null, null, false);
    }

    public static ChatMessage system(String content) {
        return new ChatMessage(Role.SYSTEM, content);
    }

    public static ChatMessage user(String content) {
        return new ChatMessage(Role.USER, content);
    }

    public static ChatMessage assistant(String content) {
        return new ChatMessage(Role.ASSISTANT, content);
    }

    /** The model's reply asking for {@code calls}, with its text besides them ({@code ""} when none). */
    public static ChatMessage assistant(String content, List<ToolCall> calls) {
        return new ChatMessage(Role.ASSISTANT, content, calls, null, null, false);
    }

    /** The result of the tool call {@code call}: its output, or, when {@code error}, why it failed. */
    public static ChatMessage toolResult(ToolCall call, String content, boolean error) {
        return new ChatMessage(Role.TOOL, content, List.of(), call.id(), call.name(), error);
    }
}
