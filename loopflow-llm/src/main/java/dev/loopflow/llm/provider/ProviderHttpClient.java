package dev.loopflow.llm.provider;

import dev.langchain4j.exception.TimeoutException;
import dev.langchain4j.http.client.HttpClient;
import dev.langchain4j.http.client.HttpClientBuilder;
import dev.langchain4j.http.client.HttpRequest;
import dev.langchain4j.http.client.SuccessfulHttpResponse;
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

/**
 * LangChain4j's HTTP client SPI over {@link java.net.http.HttpClient}.
 *
 * <p>It exists for two reasons: failures must carry status and headers ({@link HttpStatusException}) so that
 * retries can honour {@code Retry-After}, and each request's timeout must follow the current
 * {@link ChatCall} ({@link CallTimeout}) rather than a value fixed when the model was built.
 */
final class ProviderHttpClient implements HttpClient {

    private final java.net.http.HttpClient delegate;
    private final Duration readTimeout;

    private ProviderHttpClient(Builder builder) {
        java.net.http.HttpClient.Builder jdk = java.net.http.HttpClient.newBuilder();
        if (builder.connectTimeout != null) {
            jdk.connectTimeout(builder.connectTimeout);
        }
        this.delegate = jdk.build();
        this.readTimeout = builder.readTimeout;
    }

    static Builder builder() {
        return new Builder();
    }

    @Override
    public SuccessfulHttpResponse execute(HttpRequest request) {
        try {
            HttpResponse<byte[]> response = delegate.send(toJdk(request), HttpResponse.BodyHandlers.ofByteArray());
            if (!isSuccessful(response.statusCode())) {
                throw new HttpStatusException(
                        response.statusCode(),
                        response.headers().map(),
                        new String(response.body(), StandardCharsets.UTF_8));
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
        delegate.sendAsync(toJdk(request), HttpResponse.BodyHandlers.ofInputStream())
                .thenAccept(response -> stream(response, parser, listener))
                .exceptionally(failure -> {
                    Throwable cause = failure.getCause() == null ? failure : failure.getCause();
                    quietly(() -> listener.onError(
                            cause instanceof HttpTimeoutException ? new TimeoutException(cause) : cause));
                    return null;
                });
    }

    private static void stream(
            HttpResponse<InputStream> response, ServerSentEventParser parser, ServerSentEventListener listener) {
        try (InputStream body = response.body()) {
            if (!isSuccessful(response.statusCode())) {
                String text = new String(body.readAllBytes(), StandardCharsets.UTF_8);
                quietly(() -> listener.onError(
                        new HttpStatusException(response.statusCode(), response.headers().map(), text)));
                return;
            }
            SuccessfulHttpResponse opened = SuccessfulHttpResponse.builder()
                    .statusCode(response.statusCode())
                    .headers(response.headers().map())
                    .build();
            quietly(() -> listener.onOpen(opened));
            parser.parse(body, listener);
            quietly(listener::onClose);
        } catch (IOException e) {
            quietly(() -> listener.onError(e));
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

    /** LangChain4j sets the timeouts; this builder only carries them to the client. */
    static final class Builder implements HttpClientBuilder {

        private Duration connectTimeout;
        private Duration readTimeout;

        private Builder() {}

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
