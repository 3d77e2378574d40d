package dev.loopflow.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A fake Anthropic Messages API server.
 *
 * <p>Answers {@code POST /v1/messages} (and {@code POST /messages}) with a non-streaming {@code message}
 * object: {@code id}, {@code type: message}, {@code role: assistant}, the requested {@code model},
 * {@code content: [{type: text, text}]}, {@code stop_reason: end_turn} and
 * {@code usage.input_tokens/output_tokens}.
 *
 * <p>Clients may obtain structured output through tool use. When the request carries a non-empty
 * {@code tools} array, the scripted text is parsed as JSON and returned as the {@code input} of a
 * {@code tool_use} block (named by a {@code tool_choice} of type {@code tool}, else the first tool) with
 * {@code stop_reason: tool_use}; text that is not a JSON object is wrapped as {@code {"value": ...}}.
 *
 * <p>{@link #baseUrl()} is {@code http://127.0.0.1:PORT/v1/}, matching the LangChain4j convention
 * ({@code https://api.anthropic.com/v1/}, to which {@code messages} is appended). Anthropic's own SDKs
 * take {@code ANTHROPIC_BASE_URL} without {@code /v1}; use {@link #rootUri()} for that form.
 */
public final class FakeAnthropicServer extends FakeServerBase {

    private FakeAnthropicServer() {}

    /** Starts a server on a free port of 127.0.0.1. */
    public static FakeAnthropicServer start() {
        return new FakeAnthropicServer();
    }

    @Override
    public String baseUrl() {
        return rootUri() + "/v1/";
    }

    @Override
    boolean isCompletion(RecordedRequest request) {
        return request.method().equals("POST")
                && (request.path().equals("/v1/messages") || request.path().equals("/messages"));
    }

    @Override
    String render(RecordedRequest request, Reply.Text text, long id) {
        ObjectNode root = Json.MAPPER.createObjectNode();
        root.put("id", "msg_fake_" + id);
        root.put("type", "message");
        root.put("role", "assistant");
        root.put("model", modelOf(request));
        JsonNode tools = request.json().path("tools");
        ObjectNode block = root.putArray("content").addObject();
        if (tools.isArray() && !tools.isEmpty()) {
            block.put("type", "tool_use");
            block.put("id", "toolu_fake_" + id);
            block.put("name", toolName(request.json(), tools));
            block.set("input", toolInput(text.text()));
            root.put("stop_reason", "tool_use");
        } else {
            block.put("type", "text");
            block.put("text", text.text());
            root.put("stop_reason", "end_turn");
        }
        root.putNull("stop_sequence");
        ObjectNode usage = root.putObject("usage");
        usage.put("input_tokens", text.inputTokens());
        usage.put("output_tokens", text.outputTokens());
        return Json.write(root);
    }

    private static String toolName(JsonNode request, JsonNode tools) {
        JsonNode choice = request.path("tool_choice");
        if ("tool".equals(choice.path("type").asText()) && choice.path("name").isTextual()) {
            return choice.path("name").asText();
        }
        return tools.get(0).path("name").asText("tool");
    }

    private static JsonNode toolInput(String text) {
        JsonNode parsed = Json.parseOrMissing(text);
        if (parsed.isObject()) {
            return parsed;
        }
        ObjectNode wrapped = Json.MAPPER.createObjectNode();
        if (parsed.isMissingNode()) {
            wrapped.put("value", text);
        } else {
            wrapped.set("value", parsed);
        }
        return wrapped;
    }
}
