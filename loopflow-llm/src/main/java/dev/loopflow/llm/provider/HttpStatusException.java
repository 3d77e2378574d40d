package dev.loopflow.llm.provider;

import dev.langchain4j.exception.HttpException;
import java.util.List;
import java.util.Map;

/**
 * A non-2xx answer, keeping the response headers that LangChain4j's own exception drops.
 *
 * <p>It extends {@link HttpException} so LangChain4j still maps it as usual (it looks for an
 * {@code HttpException} at the root of the cause chain); the retry loop then finds it in the chain to read
 * {@code Retry-After}. The message is the body, as LangChain4j expects.
 */
final class HttpStatusException extends HttpException {

    private static final long serialVersionUID = 1L;

    private final transient Map<String, List<String>> headers;
    private final String url;

    /**
     * @param url the URL the request was sent to (named in messages: a wrong base URL is the usual cause of a 404),
     *            null when unknown
     */
    HttpStatusException(int statusCode, Map<String, List<String>> headers, String body, String url) {
        super(statusCode, body);
        this.headers = Map.copyOf(headers);
        this.url = url;
    }

    /** The URL the request was sent to, or null. */
    String url() {
        return url;
    }

    Map<String, List<String>> headers() {
        return headers;
    }

    String body() {
        return getMessage();
    }
}
