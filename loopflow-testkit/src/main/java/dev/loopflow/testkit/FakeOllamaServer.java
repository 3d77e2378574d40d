package dev.loopflow.testkit;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A fake Ollama server.
 *
 * <p>Answers {@code POST /api/chat} with a final chat object: the requested {@code model},
 * {@code message: {role: assistant, content}}, {@code done: true}, {@code done_reason: stop},
 * {@code prompt_eval_count} and {@code eval_count}. A {@link Reply.ToolCalls} reply adds {@code message.tool_calls}
 * ({@code function.name}, {@code function.arguments} as an object; an {@code id} only when the script gives one)
 * with {@code done_reason: stop}, as Ollama does; the results come back as messages of role {@code tool}. A request with {@code "stream": true} receives the reply as
 * an NDJSON stream (see {@link #renderStream}). {@code GET /api/tags} lists one model, {@code fake-model:latest}, and
 * {@code GET /api/version} answers a version, so health checks pass.
 *
 * <p>{@link #baseUrl()} is {@code http://127.0.0.1:PORT}, the shape of {@code OLLAMA_BASE_URL}.
 */
public final class FakeOllamaServer extends FakeServerBase {

    private FakeOllamaServer() {}

    /** Starts a server on a free port of 127.0.0.1. */
    public static FakeOllamaServer start() {
        return new FakeOllamaServer();
    }

    @Override
    public String baseUrl() {
        return rootUri().toString();
    }

    @Override
    boolean isCompletion(RecordedRequest request) {
        return request.method().equals("POST") && request.path().equals("/api/chat");
    }

    @Override
    Reply.Http answerOther(RecordedRequest request) {
        if (request.method().equals("GET") && request.path().equals("/api/tags")) {
            ObjectNode root = Json.MAPPER.createObjectNode();
            ObjectNode model = root.putArray("models").addObject();
            model.put("name", "fake-model:latest");
            model.put("model", "fake-model:latest");
            model.put("modified_at", Instant.EPOCH.toString());
            model.put("size", 0);
            model.put("digest", "0".repeat(64));
            return new Reply.Http(200, Json.write(root), Map.of("Content-Type", "application/json"));
        }
        if (request.method().equals("GET") && request.path().equals("/api/version")) {
            return new Reply.Http(200, "{\"version\":\"0.0.0-fake\"}", Map.of("Content-Type", "application/json"));
        }
        return super.answerOther(request);
    }

    @Override
    String render(RecordedRequest request, Reply.Text text, long id) {
        return render(request, text.text(), null, text.inputTokens(), text.outputTokens(), id);
    }

    @Override
    String render(RecordedRequest request, Reply.ToolCalls calls, long id) {
        return render(request, calls.text(), calls.calls(), calls.inputTokens(), calls.outputTokens(), id);
    }

    @Override
    String streamContentType() {
        return "application/x-ndjson";
    }

    /**
     * Newline-delimited objects: the text in pieces ({@code done: false}), then one object carrying every tool call
     * ({@code function.index}, {@code name}, {@code arguments} as an object; Ollama does not split calls), then the
     * last object with {@code done: true}, {@code done_reason} and the counts.
     */
    @Override
    List<String> renderStream(RecordedRequest request, Reply reply, long id, int chunkChars) {
        String text = reply instanceof Reply.Text t ? t.text() : ((Reply.ToolCalls) reply).text();
        List<Reply.Call> calls = reply instanceof Reply.ToolCalls c ? c.calls() : List.of();
        long input = reply instanceof Reply.Text t ? t.inputTokens() : ((Reply.ToolCalls) reply).inputTokens();
        long output = reply instanceof Reply.Text t ? t.outputTokens() : ((Reply.ToolCalls) reply).outputTokens();
        List<String> lines = new ArrayList<>();
        for (String piece : text.isEmpty() ? List.<String>of() : pieces(text, chunkChars)) {
            ObjectNode o = line(request);
            o.putObject("message").put("role", "assistant").put("content", piece);
            o.put("done", false);
            lines.add(Json.write(o) + "\n");
        }
        if (!calls.isEmpty()) {
            ObjectNode o = line(request);
            ObjectNode message = o.putObject("message").put("role", "assistant").put("content", "");
            ArrayNode toolCalls = message.putArray("tool_calls");
            for (int i = 0; i < calls.size(); i++) {
                Reply.Call call = calls.get(i);
                ObjectNode c = toolCalls.addObject();
                if (call.id() != null) {
                    c.put("id", call.id());
                }
                ObjectNode function = c.putObject("function");
                function.put("index", i);
                function.put("name", call.name());
                function.set("arguments", objectArguments(call.arguments()));
            }
            o.put("done", false);
            lines.add(Json.write(o) + "\n");
        }
        ObjectNode last = line(request);
        last.putObject("message").put("role", "assistant").put("content", "");
        last.put("done", true);
        last.put("done_reason", "stop");
        last.put("total_duration", 0);
        last.put("prompt_eval_count", input);
        last.put("eval_count", output);
        lines.add(Json.write(last) + "\n");
        return lines;
    }

    private static ObjectNode line(RecordedRequest request) {
        ObjectNode o = Json.MAPPER.createObjectNode();
        o.put("model", modelOf(request));
        o.put("created_at", Instant.now().toString());
        return o;
    }

    private static String render(RecordedRequest request, String text, List<Reply.Call> calls, long input,
            long output, long id) {
        ObjectNode root = Json.MAPPER.createObjectNode();
        root.put("model", modelOf(request));
        root.put("created_at", Instant.now().toString());
        ObjectNode message = root.putObject("message");
        message.put("role", "assistant");
        message.put("content", text);
        if (calls != null) {
            ArrayNode toolCalls = message.putArray("tool_calls");
            for (Reply.Call call : calls) {
                ObjectNode c = toolCalls.addObject();
                if (call.id() != null) {
                    c.put("id", call.id());
                }
                ObjectNode function = c.putObject("function");
                function.put("name", call.name());
                function.set("arguments", objectArguments(call.arguments())); // an object, as Ollama sends it
            }
        }
        root.put("done", true);
        root.put("done_reason", "stop");
        root.put("total_duration", 0);
        root.put("prompt_eval_count", input);
        root.put("eval_count", output);
        return Json.write(root);
    }
}
