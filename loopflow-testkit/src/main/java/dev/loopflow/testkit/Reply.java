package dev.loopflow.testkit;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What a fake server answers to one request.
 *
 * <p>{@link Text} is rendered in the provider's own success shape; {@link Http} is sent verbatim (use it for
 * errors such as 429 or 500, or for deliberately malformed bodies); {@link Delayed} waits before answering.
 */
public sealed interface Reply permits Reply.Text, Reply.Http, Reply.Delayed {

    /**
     * A successful completion whose assistant text is {@code text}.
     *
     * <p>When the request asks for tool use (Anthropic {@code tools}), the text is treated as the JSON
     * arguments of the tool call instead.
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
