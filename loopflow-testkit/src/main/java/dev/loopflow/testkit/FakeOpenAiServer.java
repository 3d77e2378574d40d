package dev.loopflow.testkit;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/**
 * A fake OpenAI Chat Completions server.
 *
 * <p>Answers {@code POST /v1/chat/completions} (and {@code POST /chat/completions}, for clients configured
 * without {@code /v1}) with a non-streaming {@code chat.completion} object carrying
 * {@code choices[0].message.content}, {@code finish_reason} and {@code usage.prompt_tokens/completion_tokens/
 * total_tokens}. The response echoes the requested {@code model}. A {@link Reply.ToolCalls} reply carries
 * {@code message.tool_calls} ({@code id}, {@code type: function}, {@code function.name}, {@code function.arguments}
 * as a JSON string) with {@code finish_reason: tool_calls}; the tool results come back in the next request as
 * messages of role {@code tool} with their {@code tool_call_id} (see {@link RecordedRequest#toolResults()}).
 *
 * <p>{@link #baseUrl()} is {@code http://127.0.0.1:PORT/v1}, the shape {@code OPENAI_BASE_URL} usually has
 * and that OpenAI clients append {@code chat/completions} to.
 */
public final class FakeOpenAiServer extends FakeServerBase {

    private FakeOpenAiServer() {}

    /** Starts a server on a free port of 127.0.0.1. */
    public static FakeOpenAiServer start() {
        return new FakeOpenAiServer();
    }

    @Override
    public String baseUrl() {
        return rootUri() + "/v1";
    }

    @Override
    boolean isCompletion(RecordedRequest request) {
        return request.method().equals("POST")
                && (request.path().equals("/v1/chat/completions") || request.path().equals("/chat/completions"));
    }

    @Override
    String render(RecordedRequest request, Reply.Text text, long id) {
        ObjectNode root = Json.MAPPER.createObjectNode();
        root.put("id", "chatcmpl-fake-" + id);
        root.put("object", "chat.completion");
        root.put("created", Instant.now().getEpochSecond());
        root.put("model", modelOf(request));
        ObjectNode choice = root.putArray("choices").addObject();
        choice.put("index", 0);
        ObjectNode message = choice.putObject("message");
        message.put("role", "assistant");
        message.put("content", text.text());
        choice.putNull("logprobs");
        choice.put("finish_reason", "stop");
        usage(root, text.inputTokens(), text.outputTokens());
        return Json.write(root);
    }

    @Override
    String render(RecordedRequest request, Reply.ToolCalls calls, long id) {
        ObjectNode root = Json.MAPPER.createObjectNode();
        root.put("id", "chatcmpl-fake-" + id);
        root.put("object", "chat.completion");
        root.put("created", Instant.now().getEpochSecond());
        root.put("model", modelOf(request));
        ObjectNode choice = root.putArray("choices").addObject();
        choice.put("index", 0);
        ObjectNode message = choice.putObject("message");
        message.put("role", "assistant");
        if (calls.text().isEmpty()) {
            message.putNull("content");
        } else {
            message.put("content", calls.text());
        }
        ArrayNode toolCalls = message.putArray("tool_calls");
        for (int i = 0; i < calls.calls().size(); i++) {
            Reply.Call call = calls.calls().get(i);
            ObjectNode c = toolCalls.addObject();
            c.put("id", callId(call, "call_fake_", id, i));
            c.put("type", "function");
            ObjectNode function = c.putObject("function");
            function.put("name", call.name());
            function.put("arguments", call.arguments()); // a JSON string, as OpenAI sends it
        }
        choice.putNull("logprobs");
        choice.put("finish_reason", "tool_calls");
        usage(root, calls.inputTokens(), calls.outputTokens());
        return Json.write(root);
    }

    private static void usage(ObjectNode root, long input, long output) {
        ObjectNode usage = root.putObject("usage");
        usage.put("prompt_tokens", input);
        usage.put("completion_tokens", output);
        usage.put("total_tokens", input + output);
    }
}
