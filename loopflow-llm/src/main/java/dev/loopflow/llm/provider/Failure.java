package dev.loopflow.llm.provider;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.exception.InternalServerException;
import dev.langchain4j.exception.TimeoutException;
import dev.langchain4j.exception.UnresolvedModelServerException;
import dev.langchain4j.exception.UnsupportedFeatureException;
import dev.langchain4j.model.anthropic.internal.api.AnthropicStreamingException;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One failed attempt, classified.
 *
 * <p>LangChain4j wraps transport errors in its own exception hierarchy, differently per provider, so the
 * classification looks through the whole cause chain for the evidence that matters (our
 * {@link HttpStatusException}, a timeout, an I/O error) instead of trusting the outermost type.
 */
record Failure(ProviderException.Kind kind, Integer status, String detail, Optional<Duration> retryAfter, Throwable cause) {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final int EXCERPT_LENGTH = 300;

    static Failure of(Throwable error, Clock clock) {
        Optional<HttpStatusException> http = find(error, HttpStatusException.class);
        if (http.isPresent()) {
            HttpStatusException e = http.get();
            String detail = excerpt(e.body());
            if (e.statusCode() == 404 && e.url() != null) {
                // Name what was asked: a 404 that is not about a model is nearly always a wrong base URL, such as one
                // without /v1 (servers answer it with a page, or with a JSON "File Not Found").
                detail += " (POST " + e.url() + (aboutModel(detail) ? ")" : "; is the base URL right?"
                        + (e.url().contains("/v1/") ? "" : " OpenAI- and Anthropic-compatible servers usually serve "
                                + "under /v1") + ")");
            }
            return new Failure(kindOf(e.statusCode()), e.statusCode(), detail, RetryAfter.from(e.headers(), clock),
                    error);
        }
        Optional<AnthropicStreamingException> inStream = find(error, AnthropicStreamingException.class);
        if (inStream.isPresent()) {
            // An error event inside a streamed reply (its HTTP status was 200): the same kinds as the statuses.
            return failure(switch (String.valueOf(inStream.get().type())) {
                case "overloaded_error", "api_error" -> ProviderException.Kind.SERVER_ERROR;
                case "rate_limit_error" -> ProviderException.Kind.RATE_LIMITED;
                case "authentication_error", "permission_error" -> ProviderException.Kind.AUTH;
                default -> ProviderException.Kind.CLIENT_ERROR;
            }, error);
        }
        if (Thread.currentThread().isInterrupted()
                || has(error, t -> t instanceof InterruptedException
                        || t instanceof InterruptedIOException && !(t instanceof SocketTimeoutException)
                        || t instanceof ClosedByInterruptException)) {
            return failure(ProviderException.Kind.CANCELLED, error);
        }
        Optional<ProviderHttpClient.StreamCut> cut = find(error, ProviderHttpClient.StreamCut.class);
        if (cut.isPresent()) {
            return new Failure(ProviderException.Kind.CUT_OFF, null, cut.get().what(), Optional.empty(), error);
        }
        if (has(error, t -> t instanceof HttpTimeoutException
                || t instanceof TimeoutException
                || t instanceof SocketTimeoutException)) {
            return failure(ProviderException.Kind.TIMEOUT, error);
        }
        if (has(error, t -> t instanceof JsonProcessingException || t instanceof ReplyBody.TooLarge)) {
            return failure(ProviderException.Kind.INVALID_RESPONSE, error);
        }
        if (has(error, t -> t instanceof IOException
                || t instanceof UnresolvedAddressException
                || t instanceof UnresolvedModelServerException)) {
            return failure(ProviderException.Kind.NETWORK, error);
        }
        if (has(error, t -> t instanceof UnsupportedFeatureException || t instanceof IllegalArgumentException)) {
            return failure(ProviderException.Kind.CLIENT_ERROR, error);
        }
        if (error instanceof InternalServerException) {
            // Raised by LangChain4j itself (not from an HTTP status) when a 2xx body lacks the expected parts.
            return failure(ProviderException.Kind.INVALID_RESPONSE, error);
        }
        return failure(ProviderException.Kind.UNKNOWN, error);
    }

    static ProviderException.Kind kindOf(int status) {
        if (status == 429) {
            return ProviderException.Kind.RATE_LIMITED;
        }
        if (status == 408) {
            return ProviderException.Kind.TIMEOUT;
        }
        if (status == 401 || status == 403) {
            return ProviderException.Kind.AUTH;
        }
        if (status >= 500) {
            return ProviderException.Kind.SERVER_ERROR;
        }
        return ProviderException.Kind.CLIENT_ERROR;
    }

    /** The exception a caller sees once no attempt is left. */
    ProviderException toException(ProviderSettings settings, int attempts, Duration timeout) {
        String provider = settings.provider().id();
        String tries = attempts + (attempts == 1 ? " attempt" : " attempts");
        String message = switch (kind) {
            case TIMEOUT -> status != null
                    ? provider + " returned HTTP " + status + " after " + tries + ": " + detail
                    : provider + " did not answer within " + human(timeout) + " (" + tries + ")";
            case NETWORK -> provider + " could not be reached at " + settings.baseUrl() + " after " + tries + ": "
                    + detail;
            case CANCELLED -> provider + " call was interrupted after " + tries;
            case INVALID_RESPONSE -> provider + " returned a response that could not be read after " + tries + ": "
                    + detail;
            case CUT_OFF -> provider + "'s streamed reply from " + settings.baseUrl() + " " + detail
                    + "; the request was not sent again, since the server may already have generated and billed it";
            case UNKNOWN -> provider + " call failed after " + tries + ": " + detail;
            default -> status != null
                    ? provider + " returned HTTP " + status + " after " + tries + ": " + detail
                    : provider + " rejected the request: " + detail;
        };
        return new ProviderException(kind, provider, status, attempts, message, cause);
    }

    private static Failure failure(ProviderException.Kind kind, Throwable error) {
        return new Failure(kind, null, describe(error), Optional.empty(), error);
    }

    /**
     * The most specific message in the chain: wrappers tend to repeat or hide the useful one. Transport failures the
     * JDK reports by type alone (a refused connection is a {@code ConnectException} with no message, a dropped one a
     * {@code ClosedChannelException}) are said in words; no class name reaches the user.
     */
    private static String describe(Throwable error) {
        String words = transportWords(error);
        if (words != null) {
            return words;
        }
        Throwable deepest = error;
        String message = null;
        Set<Throwable> seen = new HashSet<>();
        for (Throwable t = error; t != null && seen.add(t); t = t.getCause()) {
            deepest = t;
            if (t.getMessage() != null && !t.getMessage().isBlank() && !isClassName(t.getMessage())) {
                message = t.getMessage();
            }
        }
        String text = message == null ? words(deepest) : message;
        return excerpt(text);
    }

    /** Words for a refused, dropped or unresolvable connection anywhere in the chain; null for anything else. */
    private static String transportWords(Throwable error) {
        if (has(error, t -> t instanceof ConnectException)) {
            return "connection refused (is the server running, and is the base URL's host and port right?)";
        }
        if (has(error, t -> t instanceof UnresolvedAddressException || t instanceof UnknownHostException)) {
            return "unknown host (check the base URL)";
        }
        if (has(error, t -> t instanceof ClosedChannelException)
                && !has(error, t -> t instanceof ProviderHttpClient.StreamCut)) {
            return "the server closed the connection before it answered";
        }
        return null;
    }

    private static final Pattern CLASS_NAME =
            Pattern.compile("(?:[a-z][a-z0-9_]*\\.)+[A-Z][A-Za-z0-9_$]*");

    /** A message that is only a class name, as some wrappers make of a cause without one. */
    private static boolean isClassName(String message) {
        return CLASS_NAME.matcher(message).matches();
    }

    /** What an exception without a message stands for. */
    private static String words(Throwable t) {
        return switch (t) {
            case EOFException e -> "the connection ended before the reply did";
            case SocketException e -> "the connection failed";
            case IOException e -> "the connection failed (" + t.getClass().getSimpleName() + ")";
            default -> t.getClass().getSimpleName();
        };
    }

    /**
     * The error message from a provider error body ({@code {"error":{"message":...}}} for OpenAI and
     * Anthropic, {@code {"error":"..."}} for Ollama, {@code {"detail":"..."}} for servers built on FastAPI), else
     * the body itself, shortened for a one-line message.
     */
    static String excerpt(String body) {
        if (body == null || body.isBlank()) {
            return "(empty body)";
        }
        String text = body;
        String title = htmlTitle(body);
        if (title != null) {
            // A proxy's error page (nginx, a load balancer): its title says it all; the markup is noise.
            return excerpt(title);
        }
        try {
            JsonNode json = MAPPER.readTree(body);
            JsonNode error = json == null ? null : json.path("error");
            if (error != null && error.path("message").isTextual()) {
                text = error.path("message").asText();
            } else if (error != null && error.isTextual()) {
                text = error.asText();
            } else if (json != null && json.path("message").isTextual()) {
                text = json.path("message").asText();
            } else if (json != null && json.path("detail").isTextual()) {
                text = json.path("detail").asText(); // FastAPI's errors (transformers serve, vLLM's validation)
            }
        } catch (JsonProcessingException notJson) {
            // an HTML error page or plain text: show it as it is
        }
        String collapsed = text.strip().replaceAll("\\s+", " ");
        return collapsed.length() <= EXCERPT_LENGTH ? collapsed : collapsed.substring(0, EXCERPT_LENGTH) + "…";
    }

    /** Whether a provider's error message is about the model (an unknown one), not about the URL. */
    private static boolean aboutModel(String message) {
        return message.toLowerCase(Locale.ROOT).contains("model");
    }

    private static final Pattern TITLE =
            Pattern.compile("(?is)<title[^>]*>(.*?)</title>");
    private static final Pattern TAG = Pattern.compile("(?s)<[^>]*>");

    /**
     * The title of an HTML page (else its text without tags, when it has no title), or null when {@code body} is not
     * HTML.
     */
    static String htmlTitle(String body) {
        String head = body.stripLeading();
        String lower = head.substring(0, Math.min(head.length(), 512)).toLowerCase(Locale.ROOT);
        if (!(lower.startsWith("<!doctype html") || lower.startsWith("<html") || lower.startsWith("<head")
                || lower.startsWith("<body") || lower.startsWith("<title") || lower.startsWith("<center"))) {
            return null;
        }
        String limited = body.length() > 65_536 ? body.substring(0, 65_536) : body;
        Matcher m = TITLE.matcher(limited);
        String text = m.find() ? m.group(1) : TAG.matcher(limited).replaceAll(" ");
        text = text.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"")
                .replace("&#39;", "'").strip().replaceAll("\\s+", " ");
        return text.isEmpty() ? "(an HTML page with no text)" : text;
    }

    private static String human(Duration duration) {
        if (duration.toMillis() < 1000) {
            return duration.toMillis() + "ms";
        }
        if (duration.toMillis() % 1000 == 0) {
            return duration.toSeconds() + "s";
        }
        return duration.toMillis() / 1000.0 + "s";
    }

    private static <T extends Throwable> Optional<T> find(Throwable error, Class<T> type) {
        Set<Throwable> seen = new HashSet<>();
        for (Throwable t = error; t != null && seen.add(t); t = t.getCause()) {
            if (type.isInstance(t)) {
                return Optional.of(type.cast(t));
            }
        }
        return Optional.empty();
    }

    private static boolean has(Throwable error, Predicate<Throwable> test) {
        Set<Throwable> seen = new HashSet<>();
        for (Throwable t = error; t != null && seen.add(t); t = t.getCause()) {
            if (test.test(t)) {
                return true;
            }
        }
        return false;
    }
}
