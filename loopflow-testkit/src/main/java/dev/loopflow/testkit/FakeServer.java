package dev.loopflow.testkit;

import java.net.URI;
import java.util.List;
import java.util.function.Function;

/**
 * The scripting and inspection API shared by every fake provider server.
 *
 * <p>Each completion request is answered by, in order of precedence: the next {@linkplain #enqueue queued}
 * reply, else the {@linkplain #respondWith responder} (when set and it returns non-null), else the
 * {@linkplain #defaultReply default reply} (initially {@code Reply.text("ok")}). Requests to paths the fake
 * does not know are answered with 404 but still recorded. All methods are thread-safe.
 */
public interface FakeServer extends AutoCloseable {

    /**
     * The URL to configure a client with. Whether it ends in {@code /v1} follows each provider's convention;
     * see the implementing class.
     */
    String baseUrl();

    /** {@code http://127.0.0.1:PORT}, with no path. */
    URI rootUri();

    int port();

    /** Queues replies, answered in order by the next completion requests. */
    FakeServer enqueue(Reply... replies);

    /** The reply used once the queue is empty and no responder answers. */
    FakeServer defaultReply(Reply reply);

    /**
     * Computes replies from the request once the queue is empty, e.g. to echo the prompt or to fail
     * every third call; returning {@code null} falls through to the default reply. {@code null} removes it.
     */
    FakeServer respondWith(Function<RecordedRequest, Reply> responder);

    /** A snapshot of every request received so far, in arrival order. */
    List<RecordedRequest> requests();

    /** The most recent request. */
    RecordedRequest lastRequest();

    int requestCount();

    /** How many streamed replies this server has started to send. */
    int streamsSent();

    /** How many streamed replies the client closed the connection of before the stream's end (seen on a write). */
    int streamsAbandoned();

    /** Forgets recorded requests and queued replies, and restores the initial default reply and responder. */
    FakeServer reset();

    /** Stops the server and abandons replies still being delayed; idempotent. */
    @Override
    void close();
}
