package dev.loopflow.llm.provider;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.anthropic.AnthropicTokenUsage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.openai.OpenAiTokenUsage;
import dev.langchain4j.model.output.FinishReason;
import dev.langchain4j.model.output.TokenUsage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * A {@link ChatClient} over a LangChain4j {@link ChatModel} and {@link StreamingChatModel} whose own retries are
 * disabled.
 *
 * <p>Retrying here rather than in LangChain4j lets us honour {@code Retry-After}, classify failures the same
 * way for every provider, inject the sleeper in tests and report the attempt count. Blocking and streamed calls
 * share the request, the retry loop and the reply mapping, so a streamed call's reply is the blocking one's. For
 * OpenAI-compatible servers, blocking calls skip LangChain4j's model and go through {@link OpenAiDirect}, inside the
 * same retry loop and reply mapping.
 */
final class LangChainChatClient implements ChatClient {

    private final ProviderSettings settings;
    private final ChatModel model;
    private final StreamingChatModel streaming;
    private final Function<ChatCall, ChatRequestParameters> parameters;
    private final OpenAiDirect direct;

    LangChainChatClient(ProviderSettings settings, ChatModel model, StreamingChatModel streaming,
            Function<ChatCall, ChatRequestParameters> parameters) {
        this(settings, model, streaming, parameters, null);
    }

    /**
     * @param direct when set, blocking calls go through it instead of {@code model} (streamed calls still go through
     *               {@code streaming}); {@link Providers} decides which providers have one
     */
    LangChainChatClient(ProviderSettings settings, ChatModel model, StreamingChatModel streaming,
            Function<ChatCall, ChatRequestParameters> parameters, OpenAiDirect direct) {
        this.settings = settings;
        this.model = model;
        this.streaming = streaming;
        this.parameters = parameters;
        this.direct = direct;
    }

    /** One attempt of a call. */
    private interface Attempt {
        ChatResponse send(Duration timeout) throws InterruptedException;
    }

    /** Whether blocking calls bypass LangChain4j's model (for the tests that pin which path a provider takes). */
    boolean direct() {
        return direct != null;
    }

    @Override
    public ChatReply chat(ChatCall call) {
        Objects.requireNonNull(call, "call must not be null");
        if (direct != null) {
            byte[] body = OpenAiWire.request(call); // once: every attempt sends the same bytes
            return retrying(call, timeout -> direct.send(body, timeout));
        }
        ChatRequest request = request(call);
        return retrying(call, timeout -> CallTimeout.with(timeout, () -> model.chat(request)));
    }

    @Override
    public ChatReply stream(ChatCall call, TextStream sink) {
        Objects.requireNonNull(call, "call must not be null");
        Objects.requireNonNull(sink, "sink must not be null");
        ChatRequest request = request(call);
        return retrying(call, timeout -> {
            try (ChatStream stream = new ChatStream()) {
                try {
                    return stream.run(streaming, request, timeout, sink);
                } catch (RuntimeException e) {
                    if (stream.streamedText()) {
                        sink.restarted(); // nothing streamed by a failed attempt is the reply, retried or not
                    }
                    throw e;
                }
            }
        });
    }

    /** The call as LangChain4j's request; a call it refuses fails here, before anything is sent. */
    private ChatRequest request(ChatCall call) {
        ChatRequest.Builder builder = ChatRequest.builder()
                .messages(messages(call))
                .parameters(parameters.apply(call));
        if (!call.tools().isEmpty()) {
            builder.toolSpecifications(call.tools().stream().map(ToolSpecs::toLangChain).toList());
        }
        return builder.build();
    }

    private ChatReply retrying(ChatCall call, Attempt send) {
        Duration timeout = call.timeout() != null ? call.timeout() : settings.timeout();
        RetryPolicy retry = settings.retry();
        for (int attempt = 1; ; attempt++) {
            Failure failure;
            try {
                ChatResponse response = send.send(timeout);
                return reply(call, response, attempt);
            } catch (RuntimeException e) {
                failure = Failure.of(e, retry.clock());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Failure(ProviderException.Kind.CANCELLED, null, "", Optional.empty(), e)
                        .toException(settings, attempt, timeout);
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
                case ASSISTANT -> message.toolCalls().isEmpty()
                        ? AiMessage.from(message.content())
                        : AiMessage.builder()
                                .text(message.content().isEmpty() ? null : message.content())
                                .toolExecutionRequests(message.toolCalls().stream()
                                        .map(LangChainChatClient::request)
                                        .toList())
                                .build();
                case TOOL -> ToolExecutionResultMessage.builder()
                        .id(message.toolCallId())
                        .toolName(message.toolName())
                        .text(message.content())
                        .isError(message.error() ? Boolean.TRUE : null)
                        .build();
            });
        }
        return messages;
    }

    private static ToolExecutionRequest request(ToolCall call) {
        return ToolExecutionRequest.builder().id(call.id()).name(call.name()).arguments(call.arguments()).build();
    }

    private ChatReply reply(ChatCall call, ChatResponse response, int attempts) {
        TokenUsage usage = response.tokenUsage();
        AiMessage message = response.aiMessage();
        List<ToolCall> calls = call.tools().isEmpty() ? List.of() : toolCalls(message, settings.provider());
        long input = usage == null || usage.inputTokenCount() == null ? 0 : usage.inputTokenCount();
        long cacheRead = 0;
        long cacheWrite = 0;
        if (usage instanceof AnthropicTokenUsage anthropic) {
            // Anthropic's input_tokens counts only the prompt tokens after the last cache breakpoint: the cached
            // part comes apart, as cache_read_input_tokens and cache_creation_input_tokens, and is billed too.
            cacheRead = count(anthropic.cacheReadInputTokens());
            cacheWrite = count(anthropic.cacheCreationInputTokens());
            input += cacheRead + cacheWrite;
        } else if (usage instanceof OpenAiTokenUsage openAi && openAi.inputTokensDetails() != null) {
            // OpenAI's prompt_tokens already include the cached ones: cached_tokens only says which part was cached.
            cacheRead = Math.min(input, count(openAi.inputTokensDetails().cachedTokens()));
        }
        return new ChatReply(
                calls.isEmpty() ? text(message, settings.provider()) : message.text() == null ? "" : message.text(),
                input,
                usage == null || usage.outputTokenCount() == null ? 0 : usage.outputTokenCount(),
                response.modelName() != null ? response.modelName() : call.model(),
                settings.provider().id(),
                attempts,
                calls,
                finishReason(response.finishReason()),
                cacheRead,
                cacheWrite);
    }

    private static long count(Integer tokens) {
        return tokens == null || tokens < 0 ? 0 : tokens;
    }

    /** LangChain4j's finish reason under the name the OpenTelemetry GenAI conventions give it; null when absent. */
    static String finishReason(FinishReason reason) {
        if (reason == null) {
            return null;
        }
        return switch (reason) {
            case STOP -> "stop";
            case LENGTH -> "length";
            case TOOL_EXECUTION -> "tool_calls";
            case CONTENT_FILTER -> "content_filter";
            case OTHER -> "other";
        };
    }

    /**
     * The calls the model asked for; one with no id (Ollama gives none) gets its position as id. Anthropic sends
     * arguments as a JSON object, which LangChain4j writes out indented from a whole reply but passes on as the
     * provider wrote it from a stream: they are written compactly here, so a streamed reply's calls are a blocking
     * reply's. Arguments sent as text (OpenAI) are kept exactly as written, malformed or not.
     */
    private static List<ToolCall> toolCalls(AiMessage message, Provider provider) {
        if (message == null || message.toolExecutionRequests() == null) {
            return List.of();
        }
        List<ToolCall> calls = new ArrayList<>();
        for (ToolExecutionRequest r : message.toolExecutionRequests()) {
            String id = r.id() == null || r.id().isBlank() ? "call_" + calls.size() : r.id();
            String arguments = provider == Provider.ANTHROPIC ? compact(r.arguments()) : r.arguments();
            calls.add(new ToolCall(id, r.name(), arguments));
        }
        return calls;
    }

    // Decimals as written ("0.10" stays "0.10"), not through a double.
    private static final ObjectMapper JSON =
            new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    /** {@code json} without insignificant whitespace; anything that is not a JSON object as it is. */
    private static String compact(String json) {
        if (json == null) {
            return null;
        }
        try {
            JsonNode node = JSON.readTree(json);
            return node != null && node.isObject() ? JSON.writeValueAsString(node) : json;
        } catch (JsonProcessingException e) {
            return json;
        }
    }

    /**
     * The text, or the arguments of a tool call when structured output arrived through tool use (only for a call that
     * offered no tools: then a tool call can only be the provider's way of delivering structured output).
     */
    private static String text(AiMessage message, Provider provider) {
        if (message == null) {
            return "";
        }
        if (message.text() != null && !message.text().isEmpty()) {
            return message.text();
        }
        List<ToolExecutionRequest> tools = message.toolExecutionRequests();
        if (tools != null && !tools.isEmpty() && tools.get(0).arguments() != null) {
            return provider == Provider.ANTHROPIC ? compact(tools.get(0).arguments()) : tools.get(0).arguments();
        }
        return message.text() == null ? "" : message.text();
    }
}
