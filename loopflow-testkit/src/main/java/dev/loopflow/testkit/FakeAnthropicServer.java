package dev.loopflow.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A fake Anthropic Messages API server.
 *
 * <p>Answers {@code POST /v1/messages} (and {@code POST /messages}) with a non-streaming {@code message}
 * object: {@code id}, {@code type: message}, {@code role: assistant}, the requested {@code model},
 * {@code content: [{type: text, text}]}, {@code stop_reason: end_turn} and
 * {@code usage.input_tokens/output_tokens}.
 *
 * <p>Clients may obtain structured output through forced tool use. When the request carries a non-empty
 * {@code tools} array and a {@code tool_choice} of type {@code tool} or {@code any}, the scripted text is parsed as
 * JSON and returned as the {@code input} of a {@code tool_use} block (named by a {@code tool_choice} of type
 * {@code tool}, else the first tool) with {@code stop_reason: tool_use}; text that is not a JSON object is wrapped
 * as {@code {"value": ...}}. Without such a {@code tool_choice}, tools are only offered and a text reply is text.
 *
 * <p>A {@link Reply.ToolCalls} reply carries its text (if any) as a {@code text} block followed by one
 * {@code tool_use} block per call ({@code id}, {@code name}, {@code input} object), with {@code stop_reason:
 * tool_use}; the results come back in the next request as {@code tool_result} blocks of a user message (see
 * {@link RecordedRequest#toolResults()}).
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
        String choice = request.json().path("tool_choice").path("type").asText("");
        if (tools.isArray() && !tools.isEmpty() && (choice.equals("tool") || choice.equals("any"))) {
            block.put("type", "tool_use");
            block.put("id", "toolu_fake_" + id);
            block.put("name", toolName(request.json(), tools));
            block.set("input", objectArguments(text.text()));
            root.put("stop_reason", "tool_use");
        } else {
            block.put("type", "text");
            block.put("text", text.text());
            root.put("stop_reason", "end_turn");
        }
        root.putNull("stop_sequence");
        usage(root, text.inputTokens(), text.outputTokens());
        return Json.write(root);
    }

    @Override
    String render(RecordedRequest request, Reply.ToolCalls calls, long id) {
        ObjectNode root = Json.MAPPER.createObjectNode();
        root.put("id", "msg_fake_" + id);
        root.put("type", "message");
        root.put("role", "assistant");
        root.put("model", modelOf(request));
        ArrayNode content = root.putArray("content");
        if (!calls.text().isEmpty()) {
            content.addObject().put("type", "text").put("text", calls.text());
        }
        for (int i = 0; i < calls.calls().size(); i++) {
            Reply.Call call = calls.calls().get(i);
            ObjectNode block = content.addObject();
            block.put("type", "tool_use");
            block.put("id", callId(call, "toolu_fake_", id, i));
            block.put("name", call.name());
            block.set("input", objectArguments(call.arguments()));
        }
        root.put("stop_reason", "tool_use");
        root.putNull("stop_sequence");
        usage(root, calls.inputTokens(), calls.outputTokens());
        return Json.write(root);
    }

    private static void usage(ObjectNode root, long input, long output) {
        ObjectNode usage = root.putObject("usage");
        usage.put("input_tokens", input);
        usage.put("output_tokens", output);
    }

    private static String toolName(JsonNode request, JsonNode tools) {
        JsonNode choice = request.path("tool_choice");
        if ("tool".equals(choice.path("type").asText()) && choice.path("name").isTextual()) {
            return choice.path("name").asText();
        }
        return tools.get(0).path("name").asText("tool");
    }
}
