package dev.loopflow.llm.provider;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One request to a chat model.
 *
 * @param model       the provider's model name, e.g. {@code gpt-4o-mini}; required
 * @param system      system prompt, sent the way the provider expects (a leading system message, or
 *                    Anthropic's top-level {@code system}); nullable
 * @param messages    the conversation, at least one message
 * @param temperature sampling temperature in [0, 2]; {@code null} leaves the provider default
 * @param maxTokens   cap on generated tokens; {@code null} leaves the provider default (4096 for Anthropic,
 *                    which requires one)
 * @param jsonSchema  JSON Schema text; when set, the provider is asked for structured output conforming to it
 *                    and {@link ChatReply#text()} is the JSON document; nullable
 * @param timeout     per-attempt limit on waiting for the provider's answer; {@code null} uses the client's
 *                    {@link ProviderSettings#timeout()}. Retries may make a call take longer than this.
 * @param tools       the tools the model may call, with unique names; empty for none. When the model calls some,
 *                    {@link ChatReply#toolCalls()} holds the calls.
 */
public record ChatCall(
        String model,
        String system,
        List<ChatMessage> messages,
        Double temperature,
        Integer maxTokens,
        String jsonSchema,
        Duration timeout,
        List<ToolSpec> tools) {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    public ChatCall {
        if (model == null || model.isBlank()) {
            throw new IllegalArgumentException("model must not be blank but was " + quoted(model));
        }
        if (messages == null || messages.isEmpty()) {
            throw new IllegalArgumentException("messages must contain at least one message but was " + messages);
        }
        messages = List.copyOf(messages);
        if (temperature != null && !(temperature >= 0.0 && temperature <= 2.0)) {
            throw new IllegalArgumentException("temperature must be within [0, 2] but was " + temperature);
        }
        if (maxTokens != null && maxTokens < 1) {
            throw new IllegalArgumentException("maxTokens must be >= 1 but was " + maxTokens);
        }
        if (jsonSchema != null) {
            requireJsonObject(jsonSchema);
        }
        if (timeout != null && (timeout.isZero() || timeout.isNegative())) {
            throw new IllegalArgumentException("timeout must be positive but was " + timeout);
        }
        tools = tools == null ? List.of() : List.copyOf(tools);
        if (tools.stream().map(ToolSpec::name).distinct().count() != tools.size()) {
            throw new IllegalArgumentException("tool names must be unique but were "
                    + tools.stream().map(ToolSpec::name).toList());
        }
    }

    /** A call offering no tools. */
    public ChatCall(String model, String system, List<ChatMessage> messages, Double temperature, Integer maxTokens,
            String jsonSchema, Duration timeout) {
        this(model, system, messages, temperature, maxTokens, jsonSchema, timeout, List.of());
    }

    /** This call with another reply limit. */
    public ChatCall withMaxTokens(Integer cap) {
        return new ChatCall(model, system, messages, temperature, cap, jsonSchema, timeout, tools);
    }

    /** This call with another timeout. */
    public ChatCall withTimeout(Duration limit) {
        return new ChatCall(model, system, messages, temperature, maxTokens, jsonSchema, limit, tools);
    }

    /** A single user message to {@code model}, with provider defaults for everything else. */
    public static ChatCall of(String model, String userMessage) {
        return builder(model).user(userMessage).build();
    }

    public static Builder builder(String model) {
        return new Builder(model);
    }

    private static void requireJsonObject(String jsonSchema) {
        JsonNode node;
        try {
            node = MAPPER.readTree(jsonSchema);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(
                    "jsonSchema must be JSON but could not be parsed: " + e.getOriginalMessage(), e);
        }
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException("jsonSchema must be a JSON object but was " + quoted(jsonSchema));
        }
    }

    private static String quoted(String value) {
        return value == null ? "null" : "'" + value + "'";
    }

    /** Collects the optional parts of a call; {@link #build()} validates. */
    public static final class Builder {

        private final String model;
        private final List<ChatMessage> messages = new ArrayList<>();
        private String system;
        private Double temperature;
        private Integer maxTokens;
        private String jsonSchema;
        private Duration timeout;
        private final List<ToolSpec> tools = new ArrayList<>();

        private Builder(String model) {
            this.model = model;
        }

        public Builder system(String system) {
            this.system = system;
            return this;
        }

        public Builder message(ChatMessage message) {
            messages.add(message);
            return this;
        }

        public Builder messages(List<ChatMessage> messages) {
            this.messages.addAll(messages);
            return this;
        }

        public Builder user(String content) {
            return message(ChatMessage.user(content));
        }

        public Builder assistant(String content) {
            return message(ChatMessage.assistant(content));
        }

        public Builder temperature(Double temperature) {
            this.temperature = temperature;
            return this;
        }

        public Builder maxTokens(Integer maxTokens) {
            this.maxTokens = maxTokens;
            return this;
        }

        public Builder jsonSchema(String jsonSchema) {
            this.jsonSchema = jsonSchema;
            return this;
        }

        public Builder timeout(Duration timeout) {
            this.timeout = timeout;
            return this;
        }

        public Builder tools(List<ToolSpec> tools) {
            this.tools.addAll(tools);
            return this;
        }

        public ChatCall build() {
            return new ChatCall(model, system, messages, temperature, maxTokens, jsonSchema, timeout, tools);
        }
    }
}
