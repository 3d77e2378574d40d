package dev.loopflow.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * One request as a fake server received it.
 *
 * @param method  HTTP method, upper case
 * @param path    request path without the query string, e.g. {@code /v1/chat/completions}
 * @param query   raw query string, or {@code null}
 * @param headers header values by lower-cased name (HTTP names are case-insensitive)
 * @param body    the body as text
 * @param json    the body parsed as JSON; a missing node when the body is empty or not JSON
 */
public record RecordedRequest(
        String method, String path, String query, Map<String, List<String>> headers, String body, JsonNode json) {

    public RecordedRequest {
        Objects.requireNonNull(method, "method must not be null");
        Objects.requireNonNull(path, "path must not be null");
        Objects.requireNonNull(body, "body must not be null");
        Objects.requireNonNull(json, "json must not be null");
        TreeMap<String, List<String>> normalised = new TreeMap<>();
        if (headers != null) {
            headers.forEach((name, values) -> normalised.merge(
                    name.toLowerCase(Locale.ROOT), List.copyOf(values), (a, b) -> concat(a, b)));
        }
        headers = Collections.unmodifiableMap(normalised);
    }

    /** The first value of header {@code name} (any case), or {@code null} when absent. */
    public String header(String name) {
        List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    /** The {@code model} field of a JSON body, or {@code null}. */
    public String model() {
        JsonNode model = json.path("model");
        return model.isTextual() ? model.asText() : null;
    }

    /**
     * The names of the tools the request offers, in order, in any of the three wire formats (OpenAI and Ollama
     * {@code tools[].function.name}, Anthropic {@code tools[].name}); empty when it offers none.
     */
    public List<String> toolNames() {
        List<String> names = new ArrayList<>();
        for (JsonNode tool : json.path("tools")) {
            JsonNode name = tool.has("function") ? tool.path("function").path("name") : tool.path("name");
            names.add(name.asText());
        }
        return names;
    }

    /** The JSON Schema of tool {@code name}'s parameters as the request sends it, or a missing node. */
    public JsonNode toolParameters(String name) {
        for (JsonNode tool : json.path("tools")) {
            if (tool.has("function") && tool.path("function").path("name").asText().equals(name)) {
                return tool.path("function").path("parameters");
            }
            if (tool.path("name").asText().equals(name)) {
                return tool.path("input_schema");
            }
        }
        return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
    }

    /**
     * One tool result a request carries back to the model.
     *
     * @param callId  the id of the call it answers (OpenAI {@code tool_call_id}, Anthropic {@code tool_use_id});
     *                null in Ollama's format, which has none
     * @param content the result as text
     * @param error   whether it is marked as an error (Anthropic {@code is_error}; the others have no such mark)
     */
    public record ToolResult(String callId, String content, boolean error) {}

    /**
     * The tool results the request's conversation carries, in order, in any of the three wire formats: OpenAI and
     * Ollama messages of role {@code tool}, Anthropic {@code tool_result} blocks in user messages.
     */
    public List<ToolResult> toolResults() {
        List<ToolResult> results = new ArrayList<>();
        for (JsonNode message : json.path("messages")) {
            if (message.path("role").asText().equals("tool")) {
                JsonNode id = message.path("tool_call_id");
                results.add(new ToolResult(id.isTextual() ? id.asText() : null, text(message.path("content")),
                        false));
            }
            for (JsonNode block : message.path("content")) {
                if (block.path("type").asText().equals("tool_result")) {
                    results.add(new ToolResult(block.path("tool_use_id").asText(null), text(block.path("content")),
                            block.path("is_error").asBoolean(false)));
                }
            }
        }
        return results;
    }

    /** A content value as text: a string, or the text blocks of a block list joined. */
    private static String text(JsonNode content) {
        if (content.isTextual()) {
            return content.asText();
        }
        StringBuilder sb = new StringBuilder();
        for (JsonNode block : content) {
            sb.append(block.path("text").asText(""));
        }
        return sb.toString();
    }

    private static List<String> concat(List<String> a, List<String> b) {
        return Stream.concat(a.stream(), b.stream()).toList();
    }
}
