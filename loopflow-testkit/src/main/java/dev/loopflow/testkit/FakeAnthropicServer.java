package dev.loopflow.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

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
 * <p>A request with {@code "stream": true} gets the Messages streaming events instead: {@code message_start},
 * {@code content_block_start}/{@code content_block_delta} ({@code text_delta}, or {@code input_json_delta} for a
 * {@code tool_use} block)/{@code content_block_stop}, {@code message_delta} with the stop reason and output tokens,
 * and {@code message_stop} (see {@link Reply.Streamed} for pauses and broken-off streams).
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

    /**
     * {@code message_start} (with the input tokens), a {@code text} block whose text comes in {@code text_delta}
     * pieces, one {@code tool_use} block per call whose input comes in {@code input_json_delta} pieces (for forced
     * tool use, the scripted text is that input), a {@code ping}, {@code message_delta} with the stop reason and the
     * output tokens, and {@code message_stop}.
     */
    @Override
    List<String> renderStream(RecordedRequest request, Reply reply, long id, int chunkChars) {
        String text;
        List<Reply.Call> calls;
        long input;
        long output;
        if (reply instanceof Reply.Text t) {
            input = t.inputTokens();
            output = t.outputTokens();
            JsonNode tools = request.json().path("tools");
            String choice = request.json().path("tool_choice").path("type").asText("");
            if (tools.isArray() && !tools.isEmpty() && (choice.equals("tool") || choice.equals("any"))) {
                text = "";
                calls = List.of(new Reply.Call("toolu_fake_" + id, toolName(request.json(), tools),
                        Json.write(objectArguments(t.text()))));
            } else {
                text = t.text();
                calls = List.of();
            }
        } else {
            Reply.ToolCalls c = (Reply.ToolCalls) reply;
            text = c.text();
            calls = c.calls();
            input = c.inputTokens();
            output = c.outputTokens();
        }
        List<String> events = new ArrayList<>();
        ObjectNode start = Json.MAPPER.createObjectNode().put("type", "message_start");
        ObjectNode message = start.putObject("message");
        message.put("id", "msg_fake_" + id).put("type", "message").put("role", "assistant").put("model", modelOf(request));
        message.putArray("content");
        message.putNull("stop_reason");
        message.putNull("stop_sequence");
        message.putObject("usage").put("input_tokens", input).put("output_tokens", 1);
        events.add(sse("message_start", start));
        int index = 0;
        if (!text.isEmpty() || calls.isEmpty()) {
            ObjectNode open = Json.MAPPER.createObjectNode().put("type", "content_block_start").put("index", index);
            open.putObject("content_block").put("type", "text").put("text", "");
            events.add(sse("content_block_start", open));
            events.add(sse("ping", Json.MAPPER.createObjectNode().put("type", "ping")));
            for (String piece : pieces(text, chunkChars)) {
                ObjectNode d = Json.MAPPER.createObjectNode().put("type", "content_block_delta").put("index", index);
                d.putObject("delta").put("type", "text_delta").put("text", piece);
                events.add(sse("content_block_delta", d));
            }
            events.add(sse("content_block_stop",
                    Json.MAPPER.createObjectNode().put("type", "content_block_stop").put("index", index)));
            index++;
        }
        for (int i = 0; i < calls.size(); i++, index++) {
            Reply.Call call = calls.get(i);
            ObjectNode open = Json.MAPPER.createObjectNode().put("type", "content_block_start").put("index", index);
            ObjectNode block = open.putObject("content_block");
            block.put("type", "tool_use").put("id", callId(call, "toolu_fake_", id, i)).put("name", call.name());
            block.putObject("input");
            events.add(sse("content_block_start", open));
            for (String piece : pieces(Json.write(objectArguments(call.arguments())), chunkChars)) {
                ObjectNode d = Json.MAPPER.createObjectNode().put("type", "content_block_delta").put("index", index);
                d.putObject("delta").put("type", "input_json_delta").put("partial_json", piece);
                events.add(sse("content_block_delta", d));
            }
            events.add(sse("content_block_stop",
                    Json.MAPPER.createObjectNode().put("type", "content_block_stop").put("index", index)));
        }
        ObjectNode delta = Json.MAPPER.createObjectNode().put("type", "message_delta");
        delta.putObject("delta").put("stop_reason", calls.isEmpty() ? "end_turn" : "tool_use").putNull("stop_sequence");
        delta.putObject("usage").put("output_tokens", output);
        events.add(sse("message_delta", delta));
        events.add(sse("message_stop", Json.MAPPER.createObjectNode().put("type", "message_stop")));
        return events;
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
