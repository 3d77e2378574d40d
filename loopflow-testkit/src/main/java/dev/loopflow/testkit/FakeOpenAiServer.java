package dev.loopflow.testkit;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

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
 * <p>A request with {@code "stream": true} gets server-sent {@code chat.completion.chunk} events instead: the text
 * in {@code delta.content} pieces, each tool call's id and name and then its arguments in pieces, the finish reason,
 * a usage chunk when {@code stream_options.include_usage} is set, and {@code data: [DONE]} (see
 * {@link Reply.Streamed} for pauses and broken-off streams).
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

    /**
     * {@code chat.completion.chunk} events: the role, the text in pieces, each call's id and name and then its
     * arguments in pieces (as {@code delta.tool_calls[{index, ...}]}), the finish reason, the usage when the request
     * set {@code stream_options.include_usage}, and {@code [DONE]}.
     */
    @Override
    List<String> renderStream(RecordedRequest request, Reply reply, long id, int chunkChars) {
        String text = reply instanceof Reply.Text t ? t.text() : ((Reply.ToolCalls) reply).text();
        List<Reply.Call> calls = reply instanceof Reply.ToolCalls c ? c.calls() : List.of();
        long input = reply instanceof Reply.Text t ? t.inputTokens() : ((Reply.ToolCalls) reply).inputTokens();
        long output = reply instanceof Reply.Text t ? t.outputTokens() : ((Reply.ToolCalls) reply).outputTokens();
        long created = Instant.now().getEpochSecond();
        List<String> events = new ArrayList<>();
        ObjectNode first = chunk(request, id, created);
        first.withArray("choices").addObject().put("index", 0).put("finish_reason", (String) null)
                .putObject("delta").put("role", "assistant").put("content", "");
        events.add(FakeServerBase.sse(null, first));
        if (!text.isEmpty()) {
            for (String piece : pieces(text, chunkChars)) {
                ObjectNode c = chunk(request, id, created);
                c.withArray("choices").addObject().put("index", 0).put("finish_reason", (String) null)
                        .putObject("delta").put("content", piece);
                events.add(FakeServerBase.sse(null, c));
            }
        }
        for (int i = 0; i < calls.size(); i++) {
            Reply.Call call = calls.get(i);
            ObjectNode head = chunk(request, id, created);
            ObjectNode call0 = head.withArray("choices").addObject().put("index", 0).put("finish_reason", (String) null)
                    .putObject("delta").putArray("tool_calls").addObject();
            call0.put("index", i).put("id", callId(call, "call_fake_", id, i)).put("type", "function");
            call0.putObject("function").put("name", call.name()).put("arguments", "");
            events.add(FakeServerBase.sse(null, head));
            for (String piece : pieces(call.arguments(), chunkChars)) {
                ObjectNode c = chunk(request, id, created);
                ObjectNode part = c.withArray("choices").addObject().put("index", 0).put("finish_reason", (String) null)
                        .putObject("delta").putArray("tool_calls").addObject();
                part.put("index", i).putObject("function").put("arguments", piece);
                events.add(FakeServerBase.sse(null, c));
            }
        }
        ObjectNode last = chunk(request, id, created);
        last.withArray("choices").addObject().put("index", 0).put("finish_reason", calls.isEmpty() ? "stop" : "tool_calls")
                .putObject("delta");
        events.add(FakeServerBase.sse(null, last));
        if (request.json().path("stream_options").path("include_usage").asBoolean(false)) {
            ObjectNode u = chunk(request, id, created);
            u.putArray("choices");
            usage(u, input, output);
            events.add(FakeServerBase.sse(null, u));
        }
        events.add("data: [DONE]\n\n");
        return events;
    }

    private static ObjectNode chunk(RecordedRequest request, long id, long created) {
        ObjectNode c = Json.MAPPER.createObjectNode();
        c.put("id", "chatcmpl-fake-" + id);
        c.put("object", "chat.completion.chunk");
        c.put("created", created);
        c.put("model", modelOf(request));
        return c;
    }

    private static void usage(ObjectNode root, long input, long output) {
        ObjectNode usage = root.putObject("usage");
        usage.put("prompt_tokens", input);
        usage.put("completion_tokens", output);
        usage.put("total_tokens", input + output);
    }
}
