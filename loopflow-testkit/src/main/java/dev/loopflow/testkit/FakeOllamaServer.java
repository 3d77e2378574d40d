package dev.loopflow.testkit;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A fake Ollama server.
 *
 * <p>Answers {@code POST /api/chat} with a final chat object: the requested {@code model},
 * {@code message: {role: assistant, content}}, {@code done: true}, {@code done_reason: stop},
 * {@code prompt_eval_count} and {@code eval_count}. A {@link Reply.ToolCalls} reply adds {@code message.tool_calls}
 * ({@code function.name}, {@code function.arguments} as an object; an {@code id} only when the script gives one)
 * with {@code done_reason: stop}, as Ollama does; the results come back as messages of role {@code tool}. A request with {@code "stream": true} receives that same
 * object as a one-line NDJSON stream. {@code GET /api/tags} lists one model, {@code fake-model:latest}, and
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
        String body = Json.write(root);
        // A streaming client reads newline-delimited objects; one final object with done=true is a valid stream.
        return request.json().path("stream").asBoolean(false) ? body + "\n" : body;
    }
}
