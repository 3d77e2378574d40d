package dev.loopflow.llm.provider;

import dev.langchain4j.exception.TimeoutException;
import dev.langchain4j.model.chat.response.ChatResponse;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;

/**
 * One attempt of a blocking OpenAI Chat Completions call over the JDK's {@link HttpClient}, without LangChain4j's
 * request and reply objects: the body is written by {@link OpenAiWire#request} once per call, the answer read by
 * {@link OpenAiWire#reply}.
 *
 * <p>What must stay true: an attempt sends what LangChain4j's {@code OpenAiChatModel} sends (URL, headers, body) and
 * fails with the exceptions {@link ProviderHttpClient} throws for the same event (a non-2xx answer as
 * {@link HttpStatusException} with its headers, a timeout, an I/O error, an interrupt), so {@link Failure} classifies
 * and words both paths' failures alike. One difference: the attempt's timeout bounds the whole answer, body included
 * (the JDK's request timeout stops at the headers, so a server trickling its body would otherwise hold the call).
 */
final class OpenAiDirect {

    // What LangChain4j's OpenAI client sends; servers and proxies see the same client either way.
    private static final String USER_AGENT = "langchain4j-openai";

    private final HttpClient http;
    private final URI endpoint;
    private final String authorization;
    private final boolean cleartext;

    OpenAiDirect(HttpClient http, String baseUrl, String apiKey) {
        this.http = http;
        this.endpoint = URI.create(stripTrailingSlash(baseUrl) + "/chat/completions");
        this.authorization = "Bearer " + apiKey;
        // Over cleartext the JDK would attempt an h2c upgrade, which several local model servers mishandle.
        this.cleartext = "http".equalsIgnoreCase(endpoint.getScheme());
    }

    /** Sends {@code body} and reads the reply, within {@code timeout} (null: no limit). */
    ChatResponse send(byte[] body, Duration timeout) {
        HttpRequest.Builder request = HttpRequest.newBuilder(endpoint)
                .header("Content-Type", "application/json")
                .header("Authorization", authorization)
                .header("User-Agent", USER_AGENT)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (cleartext) {
            request.version(HttpClient.Version.HTTP_1_1);
        }
        if (timeout != null) {
            request.timeout(timeout);
        }
        HttpResponse<byte[]> response = exchange(request.build(), timeout);
        int status = response.statusCode();
        if (status < 200 || status >= 300) {
            throw new HttpStatusException(status, response.headers().map(),
                    new String(response.body(), StandardCharsets.UTF_8), endpoint.toString());
        }
        return OpenAiWire.reply(response.body());
    }

    private HttpResponse<byte[]> exchange(HttpRequest request, Duration timeout) {
        CompletableFuture<HttpResponse<byte[]>> sent =
                http.sendAsync(request, ReplyBody.capped(ReplyBody.MAX_BYTES));
        try {
            return timeout == null ? sent.get() : sent.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            sent.cancel(true); // closes the connection of a reply that is still arriving
            throw new TimeoutException(new HttpTimeoutException("request timed out"));
        } catch (InterruptedException e) {
            sent.cancel(true);
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new InterruptedIOException("interrupted while waiting for " + endpoint));
        } catch (ExecutionException e) {
            IOException failure = asSendWould(e.getCause());
            if (failure instanceof HttpTimeoutException) {
                throw new TimeoutException(failure); // as ProviderHttpClient reports it
            }
            throw new UncheckedIOException(failure);
        }
    }

    /**
     * The exception {@link HttpClient#send} throws for an asynchronous exchange that failed with {@code cause}: the
     * same types wrapping the same cause, so a failure reads the same through either path.
     */
    static IOException asSendWould(Throwable cause) {
        if (cause instanceof IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        if (cause instanceof SecurityException e) {
            throw new SecurityException(e.getMessage(), e);
        }
        String message = cause.getMessage();
        IOException wrapped;
        if (cause instanceof HttpConnectTimeoutException) {
            wrapped = new HttpConnectTimeoutException(message);
            wrapped.initCause(cause);
        } else if (cause instanceof HttpTimeoutException) {
            wrapped = new HttpTimeoutException(message);
        } else if (cause instanceof ConnectException) {
            wrapped = new ConnectException(message);
            wrapped.initCause(cause);
        } else if (cause instanceof SSLHandshakeException) {
            wrapped = new SSLHandshakeException(message);
            wrapped.initCause(cause);
        } else if (cause instanceof SSLException) {
            wrapped = new SSLException(message, cause);
        } else {
            wrapped = new IOException(message, cause);
        }
        return wrapped;
    }

    private static String stripTrailingSlash(String url) {
        String result = url;
        while (result.endsWith("/")) {
            result = result.substring(0, result.length() - 1);
        }
        return result;
    }

    @Override
    public String toString() {
        return "OpenAiDirect[" + endpoint + "]"; // never the key
    }
}
