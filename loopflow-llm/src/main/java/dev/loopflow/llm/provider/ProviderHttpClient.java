package dev.loopflow.llm.provider;

import dev.langchain4j.exception.TimeoutException;
import dev.langchain4j.http.client.HttpClient;
import dev.langchain4j.http.client.HttpClientBuilder;
import dev.langchain4j.http.client.HttpRequest;
import dev.langchain4j.http.client.SuccessfulHttpResponse;
import dev.langchain4j.http.client.sse.ServerSentEvent;
import dev.langchain4j.http.client.sse.ServerSentEventContext;
import dev.langchain4j.http.client.sse.ServerSentEventListener;
import dev.langchain4j.http.client.sse.ServerSentEventParser;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * LangChain4j's HTTP client SPI over {@link java.net.http.HttpClient}.
 *
 * <p>It exists for three reasons: failures must carry status and headers ({@link HttpStatusException}) so that
 * retries can honour {@code Retry-After}; each request's timeout must follow the current {@link ChatCall}
 * ({@link CallTimeout}) rather than a value fixed when the model was built; and a streamed reply must be cancellable
 * (closing its connection) and must not pass for complete when its connection ends early. LangChain4j completes an
 * OpenAI stream whenever the body ends, and never ends an Anthropic or Ollama stream whose body ends before its last
 * event, so a body that ends before the provider's signs of a complete reply ({@link Builder#streamEnd}) is reported
 * here as a {@link StreamCut}.
 */
final class ProviderHttpClient implements HttpClient {

    private final java.net.http.HttpClient delegate;
    private final Duration readTimeout;
    private final Function<HttpRequest, StreamEnd> streamEnd;

    private ProviderHttpClient(Builder builder) {
        this.delegate = builder.jdk();
        this.readTimeout = builder.readTimeout;
        this.streamEnd = builder.streamEnd;
    }

    static Builder builder() {
        return new Builder();
    }

    @Override
    public SuccessfulHttpResponse execute(HttpRequest request) {
        try {
            HttpResponse<byte[]> response = delegate.send(toJdk(request), ReplyBody.capped(ReplyBody.MAX_BYTES));
            if (!isSuccessful(response.statusCode())) {
                throw new HttpStatusException(
                        response.statusCode(),
                        response.headers().map(),
                        new String(response.body(), StandardCharsets.UTF_8),
                        request.url());
            }
            return SuccessfulHttpResponse.builder()
                    .statusCode(response.statusCode())
                    .headers(response.headers().map())
                    .body(response.body())
                    .build();
        } catch (HttpTimeoutException e) {
            throw new TimeoutException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new InterruptedIOException("interrupted while waiting for " + request.url()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void execute(HttpRequest request, ServerSentEventParser parser, ServerSentEventListener listener) {
        // The streamed call this request belongs to, when one is in progress on this thread (see ChatStream).
        ChatStream.Transport transport = ChatStream.transport();
        CompletableFuture<HttpResponse<InputStream>> sent =
                delegate.sendAsync(toJdk(request), HttpResponse.BodyHandlers.ofInputStream());
        if (transport != null) {
            transport.onCancel(() -> sent.cancel(true));
        }
        sent.thenAccept(response -> stream(request, response, parser, listener, transport))
                .exceptionally(failure -> {
                    Throwable cause = failure.getCause() == null ? failure : failure.getCause();
                    Throwable error = cause instanceof HttpTimeoutException ? new TimeoutException(cause) : cause;
                    quietly(() -> listener.onError(error));
                    if (transport != null) {
                        transport.failed(error);
                    }
                    return null;
                });
    }

    private void stream(HttpRequest request, HttpResponse<InputStream> response, ServerSentEventParser parser,
            ServerSentEventListener listener, ChatStream.Transport transport) {
        try (InputStream body = response.body()) {
            if (transport != null) {
                transport.onCancel(() -> closeQuietly(body));
            }
            if (!isSuccessful(response.statusCode())) {
                String text = new String(body.readAllBytes(), StandardCharsets.UTF_8);
                HttpStatusException error =
                        new HttpStatusException(response.statusCode(), response.headers().map(), text, request.url());
                quietly(() -> listener.onError(error));
                if (transport != null) {
                    transport.failed(error);
                }
                return;
            }
            SuccessfulHttpResponse opened = SuccessfulHttpResponse.builder()
                    .statusCode(response.statusCode())
                    .headers(response.headers().map())
                    .build();
            quietly(() -> listener.onOpen(opened));
            EndWatch watched = new EndWatch(listener, streamEnd == null ? null : streamEnd.apply(request));
            parser.parse(body, watched);
            if (transport != null && transport.cancelled()) {
                return; // the caller stopped waiting; nothing it could still receive matters
            }
            if (watched.end != null && watched.end.complete()) {
                quietly(listener::onClose); // complete, even if the connection then broke before its last bytes
            } else if (watched.broken != null || watched.end != null) {
                // Broken before any event: nothing was answered, a transport failure like any other. After one: cut.
                IOException error = watched.broken != null && watched.events == 0 ? watched.broken
                        : new StreamCut(watched.events, watched.end == null ? "its end" : watched.end.missing(),
                                watched.broken);
                quietly(() -> listener.onError(error));
                if (transport != null) {
                    transport.failed(error);
                }
            } else {
                quietly(listener::onClose);
            }
        } catch (IOException | RuntimeException e) {
            quietly(() -> listener.onError(e));
            if (transport != null) {
                transport.failed(e);
            }
        }
    }

    private static void closeQuietly(InputStream body) {
        try {
            body.close();
        } catch (IOException ignored) {
            // closing is all that was asked; the connection is dropped either way
        }
    }

    /**
     * How one stream's events show that its reply is complete. One instance watches one stream, on the thread that
     * reads it.
     */
    interface StreamEnd {
        /** Notes one event of the stream. */
        void see(ServerSentEvent event);

        /** Whether the events seen so far make a complete reply. */
        boolean complete();

        /** What a stream that is not complete still lacked, e.g. {@code a message_stop event}. */
        String missing();
    }

    /**
     * A streamed reply whose body ended (the server closed it cleanly or the connection broke) before the reply was
     * complete. The server had started to answer, so it may have generated, and billed, the reply: the client does not
     * send the request again.
     */
    static final class StreamCut extends IOException {
        private final int events;

        StreamCut(int events, String missing, IOException cause) {
            super("the streamed reply " + what(events, missing, cause), cause);
            this.events = events;
        }

        private static String what(int events, String missing, IOException cause) {
            return "was cut off after " + events + (events == 1 ? " event" : " events") + ", before " + missing
                    + (cause == null ? " (the server closed the connection)" : " (the connection broke"
                            + (cause.getMessage() == null || cause.getMessage().isBlank() ? ""
                                    : ": " + cause.getMessage()) + ")");
        }

        /** What happened, as the end of a sentence whose subject is the reply. */
        String what() {
            return getMessage().substring("the streamed reply ".length());
        }

        /** How many events of the reply arrived before it was cut off. */
        int events() {
            return events;
        }
    }

    /** Passes events on, noting what they tell of the reply's completeness. */
    private static final class EndWatch implements ServerSentEventListener {
        private final ServerSentEventListener delegate;
        final StreamEnd end;
        int events;
        // The read error that ended the body, held back so that the caller hears one error: the cut, or this one.
        IOException broken;

        EndWatch(ServerSentEventListener delegate, StreamEnd end) {
            this.delegate = delegate;
            this.end = end;
        }

        private void note(ServerSentEvent event) {
            events++;
            if (end != null) {
                end.see(event);
            }
        }

        @Override
        public void onOpen(SuccessfulHttpResponse response) {
            delegate.onOpen(response);
        }

        @Override
        public void onEvent(ServerSentEvent event, ServerSentEventContext context) {
            note(event);
            delegate.onEvent(event, context);
        }

        @Override
        public void onEvent(ServerSentEvent event) {
            note(event);
            delegate.onEvent(event);
        }

        @Override
        public void onError(Throwable error) {
            if (error instanceof IOException e && broken == null) {
                broken = e; // the parser's read failed; told once parsing has returned
                return;
            }
            delegate.onError(error);
        }

        @Override
        public void onClose() {
            delegate.onClose();
        }
    }

    private java.net.http.HttpRequest toJdk(HttpRequest request) {
        if (!request.formDataFields().isEmpty() || !request.formDataFiles().isEmpty()) {
            throw new IllegalArgumentException("multipart requests are not supported, but one was made to "
                    + request.url());
        }
        URI uri = URI.create(request.url());
        java.net.http.HttpRequest.Builder builder = java.net.http.HttpRequest.newBuilder(uri);
        request.headers().forEach((name, values) -> {
            if (values != null) {
                values.forEach(value -> builder.header(name, value));
            }
        });
        builder.method(
                request.method().name(),
                request.body() == null
                        ? java.net.http.HttpRequest.BodyPublishers.noBody()
                        : java.net.http.HttpRequest.BodyPublishers.ofString(request.body()));
        // Over cleartext the JDK would attempt an h2c upgrade, which several local model servers mishandle.
        if ("http".equalsIgnoreCase(uri.getScheme())) {
            builder.version(java.net.http.HttpClient.Version.HTTP_1_1);
        }
        Duration timeout = CallTimeout.current() != null ? CallTimeout.current() : readTimeout;
        if (timeout != null) {
            builder.timeout(timeout);
        }
        return builder.build();
    }

    private static boolean isSuccessful(int status) {
        return status >= 200 && status < 300;
    }

    /** A misbehaving listener must not take down the HTTP client's threads. */
    private static void quietly(Runnable action) {
        try {
            action.run();
        } catch (RuntimeException ignored) {
            // the listener owns its errors
        }
    }

    /**
     * LangChain4j sets the timeouts; this builder carries them to the client. The clients one builder builds share
     * one JDK client (a provider's blocking and streaming models use one connection pool).
     */
    static final class Builder implements HttpClientBuilder {

        private Duration connectTimeout;
        private Duration readTimeout;
        private Function<HttpRequest, StreamEnd> streamEnd;
        private java.net.http.HttpClient jdk;

        private Builder() {}

        /**
         * How a request's stream shows that its reply is complete (a new watcher per stream); a body that ends
         * before that is a {@link StreamCut}.
         */
        Builder streamEnd(Function<HttpRequest, StreamEnd> end) {
            this.streamEnd = end;
            return this;
        }

        /** The JDK client (one connection pool) of every client this builder builds. */
        synchronized java.net.http.HttpClient jdk() {
            if (jdk == null) {
                java.net.http.HttpClient.Builder b = java.net.http.HttpClient.newBuilder();
                if (connectTimeout != null) {
                    b.connectTimeout(connectTimeout);
                }
                jdk = b.build();
            }
            return jdk;
        }

        @Override
        public Duration connectTimeout() {
            return connectTimeout;
        }

        @Override
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
            return this;
        }

        @Override
        public Duration readTimeout() {
            return readTimeout;
        }

        @Override
        public Builder readTimeout(Duration readTimeout) {
            this.readTimeout = readTimeout;
            return this;
        }

        @Override
        public ProviderHttpClient build() {
            return new ProviderHttpClient(this);
        }
    }
}
