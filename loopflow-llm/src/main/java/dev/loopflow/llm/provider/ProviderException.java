package dev.loopflow.llm.provider;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * A chat call that failed for good: the error was permanent, or every attempt allowed by the
 * {@link RetryPolicy} failed.
 *
 * <p>{@link #code()} and {@link #kind()} are stable and meant for programmatic handling (routing to a fallback model,
 * failing a workflow step with a specific status): the code is {@link ErrorCode#TIMEOUT} when no answer came in
 * time, {@link ErrorCode#CANCELLED} when the calling thread was interrupted, and {@link ErrorCode#NODE_FAILED} for
 * every other kind; the kind tells those apart. The message is for humans and reads like
 * {@code openai returned HTTP 500 after 3 attempts: The server had an error}.
 */
public final class ProviderException extends LoopflowException {

    /** Why a call failed; {@link #retryable()} tells which kinds the client retries. */
    public enum Kind {
        /** HTTP 429. */
        RATE_LIMITED(true),
        /** HTTP 5xx, including Anthropic's 529 "overloaded". */
        SERVER_ERROR(true),
        /** No answer within the timeout, or HTTP 408. */
        TIMEOUT(true),
        /** Connection refused or reset, unknown host, and other transport failures. */
        NETWORK(true),
        /** HTTP 401 or 403: the API key is missing, wrong, or lacks access. */
        AUTH(false),
        /** Other HTTP 4xx (unknown model, invalid request), or a request refused before it was sent. */
        CLIENT_ERROR(false),
        /** The provider answered successfully but the body could not be understood. */
        INVALID_RESPONSE(false),
        /**
         * A streamed reply that began and then ended before it was complete (the server closed it early or the
         * connection broke). Not retried: the server had started to generate the reply and may bill it, so sending
         * the request again could pay for it twice; a node's own {@code retry:} still can.
         */
        CUT_OFF(false),
        /** The calling thread was interrupted while calling or waiting to retry. */
        CANCELLED(false),
        /** Anything else; the cause has the details. */
        UNKNOWN(false);

        private final boolean retryable;

        Kind(boolean retryable) {
            this.retryable = retryable;
        }

        public boolean retryable() {
            return retryable;
        }
    }

    private final Kind kind;
    private final String provider;
    private final Integer httpStatus;
    private final int attempts;

    /**
     * @param httpStatus the provider's HTTP status, {@code null} when no response was received
     */
    public ProviderException(
            Kind kind, String provider, Integer httpStatus, int attempts, String message, Throwable cause) {
        super(codeOf(Objects.requireNonNull(kind, "kind must not be null")), message, null, cause);
        this.kind = kind;
        this.provider = Objects.requireNonNull(provider, "provider must not be null");
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be >= 1 but was " + attempts);
        }
        this.httpStatus = httpStatus;
        this.attempts = attempts;
    }

    public Kind kind() {
        return kind;
    }

    /** The error code of a failure of this kind (see the class comment). */
    static ErrorCode codeOf(Kind kind) {
        return switch (kind) {
            case TIMEOUT -> ErrorCode.TIMEOUT;
            case CANCELLED -> ErrorCode.CANCELLED;
            default -> ErrorCode.NODE_FAILED;
        };
    }

    /** The provider id, e.g. {@code anthropic}. */
    public String provider() {
        return provider;
    }

    /** The HTTP status of the last attempt, empty when no response was received (timeout, network). */
    public OptionalInt httpStatus() {
        return httpStatus == null ? OptionalInt.empty() : OptionalInt.of(httpStatus);
    }

    /** How many attempts were made before giving up. */
    public int attempts() {
        return attempts;
    }

    public boolean retryable() {
        return kind.retryable();
    }
}
