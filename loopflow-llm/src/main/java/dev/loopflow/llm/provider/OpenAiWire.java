package dev.loopflow.llm.provider;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.exception.InternalServerException;
import dev.langchain4j.internal.JsonSchemaElementUtils;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.ChatResponseMetadata;
import dev.langchain4j.model.openai.OpenAiTokenUsage;
import dev.langchain4j.model.openai.internal.OpenAiUtils;
import dev.langchain4j.model.openai.internal.chat.ChatCompletionResponse;
import dev.langchain4j.model.output.TokenUsage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The OpenAI Chat Completions wire format of a blocking call, written and read with Jackson's streaming generator and
 * parser instead of LangChain4j's object mapping.
 *
 * <p>What must stay true: the request is the JSON document LangChain4j's {@code OpenAiChatModel} sends for the same
 * call (same fields, same values; LangChain4j indents it, this writes it compactly), and a reply reads exactly as
 * LangChain4j reads it (same text, tool calls, usage, model and finish reason, and for a reply it cannot read, the
 * same exception). The parser only takes the shape a well-behaved server sends: any other value, type, duplicate key,
 * refusal, legacy {@code function_call}, or malformed JSON sends the same bytes through LangChain4j's own reading
 * ({@link #readAsLangChain}), so hostile replies fail exactly as before.
 */
final class OpenAiWire {

    /**
     * Buffers of the generator and parser are taken from a small shared pool. Jackson's default pool is one per
     * thread, and every call runs on a virtual thread of its own, so each request and reply allocated its buffers
     * anew (about 16 KB a call). The pool is bounded: at most as many buffer sets are kept as calls can write or
     * read at once on a busy machine; beyond that they are allocated and dropped as before.
     */
    private static final JsonFactory JSON = JsonFactory.builder()
            .recyclerPool(JsonRecyclerPools.newBoundedPool(64))
            .build();
    // As LangChain4j's own mapper for this API (ignored properties tolerated, floats as doubles).
    private static final ObjectMapper LANGCHAIN_JSON = new ObjectMapper()
            .disable(DeserializationFeature.FAIL_ON_IGNORED_PROPERTIES);
    // OpenAI requires a name matching ^[a-zA-Z0-9_-]+$; it is not shown to users.
    static final String SCHEMA_NAME = "output";

    private OpenAiWire() {}

    // ---- request ---------------------------------------------------------------------------------------------------

    /** The request body of {@code call}, not streamed. */
    static byte[] request(ChatCall call) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256 + approximateSize(call));
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("model", call.model());
            g.writeArrayFieldStart("messages");
            if (call.system() != null && !call.system().isBlank()) {
                message(g, "system", call.system());
            }
            for (ChatMessage m : call.messages()) {
                message(g, m);
            }
            g.writeEndArray();
            if (call.temperature() != null) {
                g.writeNumberField("temperature", call.temperature());
            }
            g.writeBooleanField("stream", false);
            boolean reasoning = Providers.isReasoningModel(call.model());
            if (call.maxTokens() != null && !reasoning) {
                g.writeNumberField("max_tokens", call.maxTokens());
            }
            if (call.jsonSchema() != null) {
                g.writeObjectFieldStart("response_format");
                g.writeStringField("type", "json_schema");
                g.writeObjectFieldStart("json_schema");
                g.writeStringField("name", SCHEMA_NAME);
                g.writeBooleanField("strict", false);
                g.writeFieldName("schema");
                // Through a tree, as LangChain4j does through a map: a repeated key keeps its last value.
                LANGCHAIN_JSON.writeTree(g, schema(call.jsonSchema()));
                g.writeEndObject();
                g.writeEndObject();
            }
            if (!call.tools().isEmpty()) {
                g.writeArrayFieldStart("tools");
                for (ToolSpec tool : call.tools()) {
                    tool(g, tool);
                }
                g.writeEndArray();
            }
            if (call.maxTokens() != null && reasoning) {
                g.writeNumberField("max_completion_tokens", call.maxTokens());
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array does not fail
        }
        return out.toByteArray();
    }

    private static int approximateSize(ChatCall call) {
        int size = call.system() == null ? 0 : call.system().length();
        for (ChatMessage m : call.messages()) {
            size += m.content().length() + 32;
        }
        return Math.min(size, 1 << 20);
    }

    private static JsonNode schema(String schema) {
        try {
            return LANGCHAIN_JSON.readTree(schema);
        } catch (JsonProcessingException e) {
            // ChatCall checked that it is a JSON object.
            throw new IllegalArgumentException("jsonSchema must be JSON but could not be parsed", e);
        }
    }

    private static void message(JsonGenerator g, String role, String content) throws IOException {
        g.writeStartObject();
        g.writeStringField("role", role);
        g.writeStringField("content", content);
        g.writeEndObject();
    }

    private static void message(JsonGenerator g, ChatMessage m) throws IOException {
        switch (m.role()) {
            case SYSTEM -> {
                if (m.content().isBlank()) {
                    // LangChain4j refuses an empty system message before sending anything; so does this path.
                    throw new IllegalArgumentException("text cannot be null or blank");
                }
                message(g, "system", m.content());
            }
            case USER -> message(g, "user", m.content());
            case ASSISTANT -> {
                g.writeStartObject();
                g.writeStringField("role", "assistant");
                if (m.toolCalls().isEmpty()) {
                    g.writeStringField("content", m.content());
                } else {
                    if (!m.content().isEmpty()) {
                        g.writeStringField("content", m.content());
                    }
                    g.writeArrayFieldStart("tool_calls");
                    for (ToolCall c : m.toolCalls()) {
                        g.writeStartObject();
                        g.writeStringField("id", c.id());
                        g.writeStringField("type", "function");
                        g.writeObjectFieldStart("function");
                        g.writeStringField("name", c.name());
                        g.writeStringField("arguments", c.arguments().isBlank() ? "{}" : c.arguments());
                        g.writeEndObject();
                        g.writeEndObject();
                    }
                    g.writeEndArray();
                }
                g.writeEndObject();
            }
            case TOOL -> {
                g.writeStartObject();
                g.writeStringField("role", "tool");
                g.writeStringField("tool_call_id", m.toolCallId());
                g.writeStringField("content", m.content());
                g.writeEndObject();
            }
        }
    }

    private static void tool(JsonGenerator g, ToolSpec tool) throws IOException {
        g.writeStartObject();
        g.writeStringField("type", "function");
        g.writeObjectFieldStart("function");
        g.writeStringField("name", tool.name());
        if (!tool.description().isEmpty()) {
            g.writeStringField("description", tool.description());
        }
        g.writeFieldName("parameters");
        // The same conversion as LangChain4j's (rare, and it decides which keywords reach the provider).
        Map<String, Object> parameters = JsonSchemaElementUtils.toMap(ToolSpecs.parameters(tool.parameters()), false);
        LANGCHAIN_JSON.writeValue(g, parameters);
        g.writeEndObject();
        g.writeEndObject();
    }

    // ---- reply -----------------------------------------------------------------------------------------------------

    /** The reply in {@code body} (a 2xx answer), read as LangChain4j reads it. */
    static ChatResponse reply(byte[] body) {
        ChatResponse fast = readWellFormed(body);
        return fast != null ? fast : readAsLangChain(body);
    }

    /**
     * LangChain4j's reading of a reply, step by step as {@code OpenAiChatModel} does it, including the exceptions it
     * throws for a body it cannot read or a reply without exactly one choice.
     */
    static ChatResponse readAsLangChain(byte[] body) {
        // Named as in OpenAiChatModel: a body of "null" fails with the NullPointerException LangChain4j throws, whose
        // message names this variable.
        ChatCompletionResponse openAiResponse;
        try {
            openAiResponse =
                    LANGCHAIN_JSON.readValue(new String(body, StandardCharsets.UTF_8), ChatCompletionResponse.class);
        } catch (JsonProcessingException e) {
            throw new RuntimeException(e);
        }
        if (openAiResponse.choices() == null || openAiResponse.choices().isEmpty()) {
            throw new InternalServerException("Chat completion failed: no choices returned in response");
        }
        TokenUsage usage = OpenAiUtils.tokenUsageFrom(openAiResponse.usage());
        var finish = OpenAiUtils.finishReasonFrom(openAiResponse.choices().get(0).finishReason());
        OpenAiUtils.logProbsFrom(openAiResponse.choices().get(0).logprobs());
        return ChatResponse.builder()
                .aiMessage(OpenAiUtils.aiMessageFrom(openAiResponse))
                .metadata(ChatResponseMetadata.builder()
                        .modelName(openAiResponse.model())
                        .tokenUsage(usage)
                        .finishReason(finish)
                        .build())
                .build();
    }

    /** Thrown inside the parser when the reply is not of the plain shape; it is then read by LangChain4j's rules. */
    private static final class NotPlain extends Exception {
        private static final NotPlain INSTANCE = new NotPlain();

        private NotPlain() {
            super(null, null, false, false);
        }
    }

    /** What the plain parser collected. */
    private static final class Parsed {
        String model;
        int choices;
        String content;
        String finishReason;
        List<ToolExecutionRequest> toolCalls = List.of();
        boolean usage;
        Integer promptTokens;
        Integer completionTokens;
        Integer totalTokens;
        Integer cachedTokens;
    }

    /** The reply when it has the plain shape, else null (then LangChain4j's reading decides). */
    static ChatResponse readWellFormed(byte[] body) {
        if (body.length >= 3 && body[0] == (byte) 0xEF && body[1] == (byte) 0xBB && body[2] == (byte) 0xBF) {
            return null; // a byte order mark: Jackson's byte parser skips it, LangChain4j's reading of text does not
        }
        Parsed p = new Parsed();
        try (JsonParser parser = JSON.createParser(body)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw NotPlain.INSTANCE;
            }
            root(parser, p);
        } catch (NotPlain | IOException | RuntimeException e) {
            return null;
        }
        if (p.choices != 1) {
            return null;
        }
        AiMessage message = AiMessage.builder()
                .text(p.content == null || p.content.isEmpty() ? null : p.content)
                .toolExecutionRequests(p.toolCalls)
                .build();
        return ChatResponse.builder()
                .aiMessage(message)
                .metadata(ChatResponseMetadata.builder()
                        .modelName(p.model)
                        .tokenUsage(p.usage ? usage(p) : null)
                        .finishReason(OpenAiUtils.finishReasonFrom(p.finishReason))
                        .build())
                .build();
    }

    private static void root(JsonParser parser, Parsed p) throws IOException, NotPlain {
        int seen = 0;
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            JsonToken value = parser.nextToken();
            switch (name) {
                case "id", "system_fingerprint", "service_tier" -> {
                    seen = once(seen, name.equals("id") ? 1 : name.equals("system_fingerprint") ? 2 : 4);
                    string(parser, value);
                }
                case "model" -> {
                    seen = once(seen, 8);
                    p.model = string(parser, value);
                }
                case "created" -> {
                    seen = once(seen, 16);
                    if (value != JsonToken.VALUE_NULL && !(value == JsonToken.VALUE_NUMBER_INT
                            && parser.getNumberType() != JsonParser.NumberType.BIG_INTEGER)) {
                        throw NotPlain.INSTANCE;
                    }
                }
                case "choices" -> {
                    seen = once(seen, 32);
                    if (value != JsonToken.START_ARRAY) {
                        throw NotPlain.INSTANCE;
                    }
                    while (parser.nextToken() == JsonToken.START_OBJECT) {
                        p.choices++;
                        if (p.choices > 1) {
                            throw NotPlain.INSTANCE;
                        }
                        choice(parser, p);
                    }
                    if (parser.currentToken() != JsonToken.END_ARRAY) {
                        throw NotPlain.INSTANCE;
                    }
                }
                case "usage" -> {
                    seen = once(seen, 64);
                    if (value == JsonToken.START_OBJECT) {
                        p.usage = true;
                        usage(parser, p);
                    } else if (value != JsonToken.VALUE_NULL) {
                        throw NotPlain.INSTANCE;
                    }
                }
                default -> parser.skipChildren(); // unknown to LangChain4j too, which ignores it
            }
        }
        if (parser.currentToken() != JsonToken.END_OBJECT) {
            throw NotPlain.INSTANCE;
        }
    }

    private static void choice(JsonParser parser, Parsed p) throws IOException, NotPlain {
        int seen = 0;
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            JsonToken value = parser.nextToken();
            switch (name) {
                case "index" -> {
                    seen = once(seen, 1);
                    integer(parser, value);
                }
                case "finish_reason" -> {
                    seen = once(seen, 2);
                    p.finishReason = string(parser, value);
                }
                case "message" -> {
                    seen = once(seen, 4);
                    if (value != JsonToken.START_OBJECT) {
                        throw NotPlain.INSTANCE;
                    }
                    message(parser, p);
                }
                case "logprobs", "delta" -> requireNull(value);
                default -> parser.skipChildren();
            }
        }
        if ((seen & 4) == 0) {
            throw NotPlain.INSTANCE; // no message: LangChain4j fails its own way
        }
    }

    private static void message(JsonParser parser, Parsed p) throws IOException, NotPlain {
        int seen = 0;
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            JsonToken value = parser.nextToken();
            switch (name) {
                case "role" -> {
                    seen = once(seen, 1);
                    if (!"assistant".equals(string(parser, value))) {
                        throw NotPlain.INSTANCE;
                    }
                }
                case "content" -> {
                    seen = once(seen, 2);
                    p.content = string(parser, value);
                }
                case "reasoning_content", "name" -> {
                    seen = once(seen, name.equals("name") ? 4 : 8);
                    string(parser, value);
                }
                case "refusal" -> {
                    seen = once(seen, 16);
                    String refusal = string(parser, value);
                    if (refusal != null && !refusal.isBlank()) {
                        throw NotPlain.INSTANCE; // LangChain4j turns it into its content-filter error
                    }
                }
                case "tool_calls" -> {
                    seen = once(seen, 32);
                    if (value == JsonToken.START_ARRAY) {
                        p.toolCalls = toolCalls(parser);
                    } else if (value != JsonToken.VALUE_NULL) {
                        throw NotPlain.INSTANCE;
                    }
                }
                case "function_call", "audio" -> requireNull(value);
                default -> parser.skipChildren();
            }
        }
    }

    private static List<ToolExecutionRequest> toolCalls(JsonParser parser) throws IOException, NotPlain {
        List<ToolExecutionRequest> calls = new ArrayList<>();
        while (parser.nextToken() == JsonToken.START_OBJECT) {
            String id = null;
            String name = null;
            String arguments = null;
            boolean function = false;
            int seen = 0;
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                switch (field) {
                    case "id" -> {
                        seen = once(seen, 1);
                        id = string(parser, value);
                    }
                    case "index" -> {
                        seen = once(seen, 2);
                        integer(parser, value);
                    }
                    case "type" -> {
                        seen = once(seen, 4);
                        if (!"function".equals(string(parser, value))) {
                            throw NotPlain.INSTANCE;
                        }
                    }
                    case "function" -> {
                        seen = once(seen, 8);
                        if (value != JsonToken.START_OBJECT) {
                            throw NotPlain.INSTANCE;
                        }
                        function = true;
                        int inner = 0;
                        while (parser.nextToken() == JsonToken.FIELD_NAME) {
                            String f = parser.currentName();
                            JsonToken v = parser.nextToken();
                            switch (f) {
                                case "name" -> {
                                    inner = once(inner, 1);
                                    name = string(parser, v);
                                }
                                case "arguments" -> {
                                    inner = once(inner, 2);
                                    arguments = string(parser, v);
                                }
                                default -> parser.skipChildren();
                            }
                        }
                    }
                    default -> parser.skipChildren();
                }
            }
            if (!function || (seen & 4) == 0) {
                throw NotPlain.INSTANCE; // no type or no function: LangChain4j drops or fails it
            }
            calls.add(ToolExecutionRequest.builder().id(id).name(name).arguments(arguments).build());
        }
        if (parser.currentToken() != JsonToken.END_ARRAY) {
            throw NotPlain.INSTANCE;
        }
        return calls;
    }

    private static void usage(JsonParser parser, Parsed p) throws IOException, NotPlain {
        int seen = 0;
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            JsonToken value = parser.nextToken();
            switch (name) {
                case "prompt_tokens" -> {
                    seen = once(seen, 1);
                    p.promptTokens = integer(parser, value);
                }
                case "completion_tokens" -> {
                    seen = once(seen, 2);
                    p.completionTokens = integer(parser, value);
                }
                case "total_tokens" -> {
                    seen = once(seen, 4);
                    p.totalTokens = integer(parser, value);
                }
                case "prompt_tokens_details", "completion_tokens_details" -> {
                    seen = once(seen, name.startsWith("prompt") ? 8 : 16);
                    Integer known = details(parser, value,
                            name.startsWith("prompt") ? "cached_tokens" : "reasoning_tokens");
                    if (name.startsWith("prompt")) {
                        p.cachedTokens = known;
                    }
                }
                default -> parser.skipChildren();
            }
        }
    }

    /** The usage as LangChain4j reads it: with the cached prompt tokens when the reply says how many. */
    private static TokenUsage usage(Parsed p) {
        if (p.cachedTokens == null) {
            return new TokenUsage(p.promptTokens, p.completionTokens, p.totalTokens);
        }
        return OpenAiTokenUsage.builder()
                .inputTokenCount(p.promptTokens)
                .outputTokenCount(p.completionTokens)
                .totalTokenCount(p.totalTokens)
                .inputTokensDetails(OpenAiTokenUsage.InputTokensDetails.builder().cachedTokens(p.cachedTokens).build())
                .build();
    }

    /**
     * A details object: its one known count must be an int or null, and is returned; the rest is ignored, as
     * LangChain4j does.
     */
    private static Integer details(JsonParser parser, JsonToken value, String known) throws IOException, NotPlain {
        if (value == JsonToken.VALUE_NULL) {
            return null;
        }
        if (value != JsonToken.START_OBJECT) {
            throw NotPlain.INSTANCE;
        }
        boolean seen = false;
        Integer count = null;
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            JsonToken v = parser.nextToken();
            if (name.equals(known)) {
                if (seen) {
                    throw NotPlain.INSTANCE;
                }
                seen = true;
                count = integer(parser, v);
            } else {
                parser.skipChildren();
            }
        }
        return count;
    }

    private static int once(int seen, int bit) throws NotPlain {
        if ((seen & bit) != 0) {
            throw NotPlain.INSTANCE; // a repeated key: which one counts is LangChain4j's call
        }
        return seen | bit;
    }

    private static String string(JsonParser parser, JsonToken value) throws IOException, NotPlain {
        if (value == JsonToken.VALUE_STRING) {
            return parser.getText();
        }
        if (value == JsonToken.VALUE_NULL) {
            return null;
        }
        throw NotPlain.INSTANCE; // LangChain4j coerces scalars to text and fails on the rest
    }

    private static Integer integer(JsonParser parser, JsonToken value) throws IOException, NotPlain {
        if (value == JsonToken.VALUE_NUMBER_INT && parser.getNumberType() == JsonParser.NumberType.INT) {
            return parser.getIntValue();
        }
        if (value == JsonToken.VALUE_NULL) {
            return null;
        }
        throw NotPlain.INSTANCE;
    }

    private static void requireNull(JsonToken value) throws NotPlain {
        if (value != JsonToken.VALUE_NULL) {
            throw NotPlain.INSTANCE;
        }
    }
}
