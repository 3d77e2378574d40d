package dev.loopflow.llm.provider;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.TokenUsage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * A {@link ChatClient} over a LangChain4j {@link ChatModel} whose own retries are disabled.
 *
 * <p>Retrying here rather than in LangChain4j lets us honour {@code Retry-After}, classify failures the same
 * way for every provider, inject the sleeper in tests and report the attempt count.
 */
final class LangChainChatClient implements ChatClient {

    private final ProviderSettings settings;
    private final ChatModel model;
    private final Function<ChatCall, ChatRequestParameters> parameters;

    LangChainChatClient(
            ProviderSettings settings, ChatModel model, Function<ChatCall, ChatRequestParameters> parameters) {
        this.settings = settings;
        this.model = model;
        this.parameters = parameters;
    }

    @Override
    public ChatReply chat(ChatCall call) {
        Objects.requireNonNull(call, "call must not be null");
        ChatRequest request = ChatRequest.builder()
                .messages(messages(call))
                .parameters(parameters.apply(call))
                .build();
        Duration timeout = call.timeout() != null ? call.timeout() : settings.timeout();
        RetryPolicy retry = settings.retry();
        for (int attempt = 1; ; attempt++) {
            Failure failure;
            try {
                ChatResponse response = CallTimeout.with(timeout, () -> model.chat(request));
                return reply(call, response, attempt);
            } catch (RuntimeException e) {
                failure = Failure.of(e, retry.clock());
            }
            if (!failure.kind().retryable() || attempt >= retry.maxAttempts()) {
                throw failure.toException(settings, attempt, timeout);
            }
            try {
                retry.sleeper().sleep(retry.delayBefore(attempt, failure.retryAfter()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Failure(ProviderException.Kind.CANCELLED, null, "", Optional.empty(), e)
                        .toException(settings, attempt, timeout);
            }
        }
    }

    @Override
    public String toString() {
        return "ChatClient[" + settings + "]";
    }

    private static List<dev.langchain4j.data.message.ChatMessage> messages(ChatCall call) {
        List<dev.langchain4j.data.message.ChatMessage> messages = new ArrayList<>();
        if (call.system() != null && !call.system().isBlank()) {
            messages.add(SystemMessage.from(call.system()));
        }
        for (ChatMessage message : call.messages()) {
            messages.add(switch (message.role()) {
                case SYSTEM -> SystemMessage.from(message.content());
                case USER -> UserMessage.from(message.content());
                case ASSISTANT -> AiMessage.from(message.content());
            });
        }
        return messages;
    }

    private ChatReply reply(ChatCall call, ChatResponse response, int attempts) {
        TokenUsage usage = response.tokenUsage();
        return new ChatReply(
                text(response.aiMessage()),
                usage == null || usage.inputTokenCount() == null ? 0 : usage.inputTokenCount(),
                usage == null || usage.outputTokenCount() == null ? 0 : usage.outputTokenCount(),
                response.modelName() != null ? response.modelName() : call.model(),
                settings.provider().id(),
                attempts);
    }

    /** The text, or the arguments of a tool call when structured output arrived through tool use. */
    private static String text(AiMessage message) {
        if (message == null) {
            return "";
        }
        if (message.text() != null && !message.text().isEmpty()) {
            return message.text();
        }
        List<ToolExecutionRequest> tools = message.toolExecutionRequests();
        if (tools != null && !tools.isEmpty() && tools.get(0).arguments() != null) {
            return tools.get(0).arguments();
        }
        return message.text() == null ? "" : message.text();
    }
}
