package dev.loopflow.llm.provider;

import dev.langchain4j.http.client.HttpRequest;
import dev.langchain4j.http.client.sse.ServerSentEvent;

/**
 * When an OpenAI-compatible stream is complete. OpenAI ends one with {@code data: [DONE]}, but servers that follow
 * the format less closely (Hugging Face {@code transformers serve}) send the chunk that carries {@code finish_reason},
 * then the usage chunk, and close the body. So a stream is complete when {@code [DONE]} came, or when a chunk with a
 * {@code finish_reason} came and, if the request asked for usage ({@code stream_options.include_usage}), a chunk with
 * {@code usage} too. A body that ends short of that was cut off: its reply and its usage are unknown.
 *
 * <p>The chunks are not parsed here (LangChain4j parses them): a JSON text cannot hold {@code "finish_reason":"} or
 * {@code "usage":{} inside a string value, since quotes in strings are escaped, so finding them is enough.
 */
final class OpenAiStreamEnd implements ProviderHttpClient.StreamEnd {

    private final boolean usageAsked;
    private boolean done;
    private boolean finished;
    private boolean usage;

    OpenAiStreamEnd(HttpRequest request) {
        String body = request.body();
        this.usageAsked = body != null && asksForUsage(body);
    }

    static boolean asksForUsage(String body) {
        int at = body.indexOf("\"include_usage\"");
        return at >= 0 && valueStartsWith(body, at + "\"include_usage\"".length(), 't');
    }

    @Override
    public void see(ServerSentEvent event) {
        String data = event.data();
        if (data == null) {
            return;
        }
        if (data.strip().equals("[DONE]")) {
            done = true;
            return;
        }
        if (!finished) {
            int at = data.indexOf("\"finish_reason\"");
            finished = at >= 0 && valueStartsWith(data, at + "\"finish_reason\"".length(), '"');
        }
        if (!usage) {
            int at = data.indexOf("\"usage\"");
            usage = at >= 0 && valueStartsWith(data, at + "\"usage\"".length(), '{');
        }
    }

    @Override
    public boolean complete() {
        return done || finished && (usage || !usageAsked);
    }

    @Override
    public String missing() {
        if (!finished) {
            return "a chunk with a finish_reason or data: [DONE]";
        }
        return "the usage chunk it asked for (stream_options.include_usage) or data: [DONE]";
    }

    /** Whether the JSON value after the member name ending at {@code from} begins with {@code first}. */
    private static boolean valueStartsWith(String json, int from, char first) {
        int i = from;
        while (i < json.length() && Character.isWhitespace(json.charAt(i))) {
            i++;
        }
        if (i >= json.length() || json.charAt(i) != ':') {
            return false;
        }
        i++;
        while (i < json.length() && Character.isWhitespace(json.charAt(i))) {
            i++;
        }
        return i < json.length() && json.charAt(i) == first;
    }
}
