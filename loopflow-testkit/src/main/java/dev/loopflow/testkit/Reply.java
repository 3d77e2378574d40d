package dev.loopflow.testkit;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a fake server answers to one request.
 *
 * <p>{@link Text} is rendered in the provider's own success shape; {@link ToolCalls} is a completion in which
 * the model asks for tools, in the provider's own tool-call shape; {@link Http} is sent verbatim (use it for
 * errors such as 429 or 500, or for deliberately malformed bodies); {@link Delayed} waits before answering;
 * {@link Streamed} says how a text or tool-call reply is streamed; {@link Recorded} replays the bytes a real server
 * sent.
 *
 * <p>A request that asks for a stream ({@code "stream": true}) gets a {@link Text} or {@link ToolCalls} reply in
 * the provider's streaming wire format: OpenAI server-sent events of {@code chat.completion.chunk} objects ending
 * with {@code data: [DONE]} (after a usage chunk when {@code stream_options.include_usage} is set), Anthropic's
 * {@code message_start} ... {@code message_stop} events, Ollama newline-delimited objects ending with one whose
 * {@code done} is true. Text and arguments go in pieces of {@value #STREAM_CHUNK_CHARS} characters unless a
 * {@link Streamed} reply says otherwise.
 */
public sealed interface Reply
        permits Reply.Text, Reply.ToolCalls, Reply.Http, Reply.Delayed, Reply.Streamed, Reply.Recorded {

    /** The characters of text or arguments in one streamed piece, unless a {@link Streamed} reply sets them. */
    int STREAM_CHUNK_CHARS = 8;

    /**
     * A successful completion whose assistant text is {@code text}.
     *
     * <p>When an Anthropic request forces tool use ({@code tool_choice} of type {@code tool} or {@code any}, the
     * way structured output can be asked for), the text is treated as the JSON arguments of the tool call instead.
     */
    record Text(String text, long inputTokens, long outputTokens) implements Reply {
        public Text {
            Objects.requireNonNull(text, "text must not be null");
            if (inputTokens < 0) {
                throw new IllegalArgumentException("inputTokens must be >= 0 but was " + inputTokens);
            }
            if (outputTokens < 0) {
                throw new IllegalArgumentException("outputTokens must be >= 0 but was " + outputTokens);
            }
        }
    }

    /**
     * A successful completion in which the model asks for {@code calls} (in that order), with {@code text} besides
     * them ({@code ""} for none). OpenAI gets {@code message.tool_calls} with each call's arguments as a JSON string
     * and {@code finish_reason: tool_calls}; Anthropic {@code tool_use} content blocks with {@code stop_reason:
     * tool_use}; Ollama {@code message.tool_calls} with the arguments as an object.
     */
    record ToolCalls(List<Call> calls, String text, long inputTokens, long outputTokens) implements Reply {
        public ToolCalls {
            calls = List.copyOf(calls);
            if (calls.isEmpty()) {
                throw new IllegalArgumentException("a tool-call reply needs at least one call");
            }
            text = text == null ? "" : text;
            if (inputTokens < 0 || outputTokens < 0) {
                throw new IllegalArgumentException("token counts must be >= 0 but were " + inputTokens + " and "
                        + outputTokens);
            }
        }

        /** These calls with this text besides them. */
        public ToolCalls withText(String besides) {
            return new ToolCalls(calls, besides, inputTokens, outputTokens);
        }
    }

    /**
     * One tool call in a {@link ToolCalls} reply.
     *
     * @param id        the call's id; null lets the fake make one up (OpenAI {@code call_fake_N}, Anthropic
     *                  {@code toolu_fake_N}; Ollama then sends none, as Ollama does)
     * @param name      the tool's name, sent as written (it may name no tool)
     * @param arguments the arguments as JSON text. OpenAI gets it verbatim, so it may be malformed on purpose;
     *                  Anthropic and Ollama send an object, so text that is not a JSON object is wrapped as
     *                  {@code {"value": ...}}
     */
    record Call(String id, String name, String arguments) {
        public Call {
            Objects.requireNonNull(name, "name must not be null");
            Objects.requireNonNull(arguments, "arguments must not be null");
        }
    }

    /** A call of tool {@code name} with {@code arguments} (JSON text). */
    static Call call(String name, String arguments) {
        return new Call(null, name, arguments);
    }

    /** A reply asking for {@code calls}, with 10 input tokens and 5 output tokens per call. */
    static ToolCalls toolCalls(Call... calls) {
        return new ToolCalls(List.of(calls), "", 10, 5L * calls.length);
    }

    /**
     * A reply recorded from real server software (llama.cpp's {@code llama-server}, nginx, ...), replayed as it was
     * received: its status, its headers but those of the connection ({@code Content-Length},
     * {@code Transfer-Encoding}, {@code Connection}, {@code Keep-Alive}, {@code Date}), and its body byte for byte. A
     * streamed body ({@code text/event-stream} or {@code application/x-ndjson}) goes out chunked, one event (or line)
     * per write, and ends where the recording ends, with or without the provider's end marker.
     *
     * @param name where it was loaded from, e.g. {@code llama-server/openai-plain-stream}
     */
    record Recorded(String name, int status, Map<String, List<String>> headers, byte[] body) implements Reply {
        public Recorded {
            Objects.requireNonNull(name, "name must not be null");
            if (status < 100 || status > 599) {
                throw new IllegalArgumentException("status must be an HTTP status (100..599) but was " + status);
            }
            headers = Map.copyOf(headers);
            body = body.clone();
        }

        @Override
        public byte[] body() {
            return body.clone();
        }

        /** The body as UTF-8 text. */
        public String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        /** This recording with only its first {@code n} events (or lines) of body: the same reply cut off. */
        public Recorded firstEvents(int n) {
            List<byte[]> events = RecordedReplies.events(body);
            if (n < 0 || n > events.size()) {
                throw new IllegalArgumentException("n must be in 0.." + events.size() + " but was " + n);
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            events.subList(0, n).forEach(out::writeBytes);
            return new Recorded(name + " (first " + n + " events)", status, headers, out.toByteArray());
        }

        /** How many events (or lines) the body has. */
        public int eventCount() {
            return RecordedReplies.events(body).size();
        }

        /** Whether the body is a stream, sent event by event. */
        public boolean streamed() {
            List<String> type = headers.getOrDefault("content-type", List.of());
            return type.stream().anyMatch(t -> t.startsWith("text/event-stream") || t.contains("ndjson"));
        }

        @Override
        public String toString() {
            return "Recorded[" + name + ", " + status + ", " + body.length + " bytes]";
        }
    }

    /**
     * The recorded reply {@code name}: the file {@code dev/loopflow/testkit/wire/NAME.http} on the class path, as
     * {@code curl -i} writes a reply (the status line, the headers, an empty line, the body). The fixtures and how
     * they were recorded are described in {@code bench/providers/README.md}.
     *
     * @throws IllegalArgumentException when there is no such recording or it is not a reply
     */
    static Recorded recorded(String name) {
        return RecordedReplies.load(name);
    }

    /** A verbatim HTTP response: status, body and extra headers. */
    record Http(int status, String body, Map<String, String> headers) implements Reply {
        public Http {
            if (status < 100 || status > 599) {
                throw new IllegalArgumentException("status must be an HTTP status (100..599) but was " + status);
            }
            body = body == null ? "" : body;
            headers = headers == null ? Map.of() : Map.copyOf(headers);
        }
    }

    /** Waits {@code delay} and then answers with {@code then}; a client with a shorter timeout sees a timeout. */
    record Delayed(Duration delay, Reply then) implements Reply {
        public Delayed {
            Objects.requireNonNull(delay, "delay must not be null");
            Objects.requireNonNull(then, "then must not be null");
            if (delay.isNegative()) {
                throw new IllegalArgumentException("delay must not be negative but was " + delay);
            }
        }
    }

    /**
     * How {@code reply} (a {@link Text} or {@link ToolCalls}) is streamed to a request that asks for a stream; a
     * request that does not gets {@code reply} whole.
     *
     * @param chunkChars characters of text (or of a call's arguments) per streamed piece, at least 1
     * @param pause      the wait before each wire event after the first (an SSE event, or an Ollama line)
     * @param cutAfter   when positive, the stream ends after that many wire events, before its last one, and the
     *                   connection is closed: a stream that breaks off. 0 sends the whole stream.
     */
    record Streamed(Reply reply, int chunkChars, Duration pause, int cutAfter) implements Reply {
        public Streamed {
            if (!(reply instanceof Text || reply instanceof ToolCalls)) {
                throw new IllegalArgumentException("only a text or tool-call reply streams, not " + reply);
            }
            if (chunkChars < 1) {
                throw new IllegalArgumentException("chunkChars must be >= 1 but was " + chunkChars);
            }
            Objects.requireNonNull(pause, "pause must not be null");
            if (pause.isNegative() || cutAfter < 0) {
                throw new IllegalArgumentException("pause and cutAfter must not be negative but were " + pause
                        + " and " + cutAfter);
            }
        }

        /** This stream with {@code chars} characters per piece. */
        public Streamed inChunksOf(int chars) {
            return new Streamed(reply, chars, pause, cutAfter);
        }

        /** This stream waiting {@code wait} before each wire event after the first. */
        public Streamed pausing(Duration wait) {
            return new Streamed(reply, chunkChars, wait, cutAfter);
        }

        /** This stream broken off (connection closed) after {@code events} wire events. */
        public Streamed cutAfter(int events) {
            return new Streamed(reply, chunkChars, pause, events);
        }
    }

    /** {@code reply} streamed in pieces of {@value #STREAM_CHUNK_CHARS} characters, with no pause. */
    static Streamed streamed(Reply reply) {
        return new Streamed(reply, STREAM_CHUNK_CHARS, Duration.ZERO, 0);
    }

    /**
     * A text reply with token counts derived from the text, so usage is non-zero without scripting it:
     * 10 input tokens and one output token per four characters (at least one).
     */
    static Text text(String text) {
        return new Text(text, 10, Math.max(1, text.length() / 4));
    }

    static Text text(String text, long inputTokens, long outputTokens) {
        return new Text(text, inputTokens, outputTokens);
    }

    /** An error in the provider-neutral shape {@code {"error":{"message":...}}}, which all three clients parse. */
    static Http error(int status, String message) {
        return new Http(status, errorBody(status, message), Map.of("Content-Type", "application/json"));
    }

    static Http error(int status, String body, Map<String, String> headers) {
        return new Http(status, body, headers);
    }

    /** HTTP 429 with {@code Retry-After} in whole seconds, as OpenAI and Anthropic send it. */
    static Http rateLimited(Duration retryAfter) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put("Retry-After", Long.toString(retryAfter.toSeconds()));
        return new Http(429, errorBody(429, "Rate limit reached"), headers);
    }

    static Http serverError() {
        return error(500, "The server had an error while processing your request");
    }

    /** A successful response with a verbatim body, e.g. to feed a client malformed JSON. */
    static Http raw(int status, String body) {
        return new Http(status, body, Map.of("Content-Type", "application/json"));
    }

    static Delayed delayed(Duration delay, Reply then) {
        return new Delayed(delay, then);
    }

    /** This reply, answered only after {@code delay}. */
    default Delayed after(Duration delay) {
        return new Delayed(delay, this);
    }

    private static String errorBody(int status, String message) {
        return "{\"type\":\"error\",\"error\":{\"type\":\"" + errorType(status) + "\",\"message\":"
                + Json.quote(message) + "}}";
    }

    private static String errorType(int status) {
        return switch (status) {
            case 400 -> "invalid_request_error";
            case 401 -> "authentication_error";
            case 403 -> "permission_error";
            case 404 -> "not_found_error";
            case 429 -> "rate_limit_error";
            case 529 -> "overloaded_error";
            default -> status >= 500 ? "api_error" : "invalid_request_error";
        };
    }
}
