package dev.loopflow.testkit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The HTTP plumbing and scripting shared by the fake servers; subclasses only know their wire format.
 *
 * <p>Built on the JDK's {@link HttpServer} with one virtual thread per exchange: delayed replies then block
 * only a virtual thread, so a benchmark can keep hundreds of slow calls in flight without a thread pool limit.
 */
abstract class FakeServerBase implements FakeServer {

    private static final Reply INITIAL_DEFAULT = Reply.text("ok");
    // The listen backlog must absorb a burst of simultaneous connects from a concurrent benchmark.
    private static final int BACKLOG = 1024;

    private final HttpServer server;
    private final ExecutorService executor;
    private final Queue<Reply> queue = new ConcurrentLinkedQueue<>();
    private final List<RecordedRequest> recorded = new ArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicLong ids = new AtomicLong();
    private final AtomicInteger abandoned = new AtomicInteger();
    private final AtomicInteger streamed = new AtomicInteger();
    private volatile Reply defaultReply = INITIAL_DEFAULT;
    private volatile Function<RecordedRequest, Reply> responder;

    FakeServerBase() {
        // Keeps every keep-alive connection open for the client to reuse (see LoopbackHttpServer).
        server = LoopbackHttpServer.create(BACKLOG, "a fake server");
        executor = Executors.newVirtualThreadPerTaskExecutor();
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    /** Whether the request is a chat completion, answered from the script. */
    abstract boolean isCompletion(RecordedRequest request);

    /** Renders a scripted text reply in the provider's success shape. */
    abstract String render(RecordedRequest request, Reply.Text text, long id);

    /** Renders a scripted tool-call reply in the provider's tool-call shape. */
    abstract String render(RecordedRequest request, Reply.ToolCalls calls, long id);

    /**
     * The wire events of a streamed reply ({@code reply} is a {@link Reply.Text} or {@link Reply.ToolCalls}), each
     * complete (an SSE event with its blank line, or an NDJSON line), the provider's end marker last.
     */
    abstract List<String> renderStream(RecordedRequest request, Reply reply, long id, int chunkChars);

    /** The Content-Type of a streamed reply. */
    String streamContentType() {
        return "text/event-stream";
    }

    /** Whether the request asks for a streamed reply. */
    boolean streams(RecordedRequest request) {
        return request.json().path("stream").asBoolean(false);
    }

    /** {@code text} in pieces of {@code size} characters (at least one piece, which may be empty). */
    static List<String> pieces(String text, int size) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < text.length(); i += size) {
            out.add(text.substring(i, Math.min(text.length(), i + size)));
        }
        return out;
    }

    /** One server-sent event. */
    static String sse(String event, com.fasterxml.jackson.databind.JsonNode data) {
        return (event == null ? "" : "event: " + event + "\n") + "data: " + Json.write(data) + "\n\n";
    }

    /** Answers a request that is not a completion; 404 unless the provider has more endpoints. */
    Reply.Http answerOther(RecordedRequest request) {
        return Reply.error(404, "no fake endpoint for " + request.method() + " " + request.path());
    }

    /** The id of the {@code index}-th call of reply {@code id}: the scripted one, else {@code prefix_id_index}. */
    static String callId(Reply.Call call, String prefix, long id, int index) {
        return call.id() != null ? call.id() : prefix + id + "_" + index;
    }

    /** The arguments as a JSON object: the scripted text when it is one, else that text as {"value": ...}. */
    static com.fasterxml.jackson.databind.JsonNode objectArguments(String text) {
        com.fasterxml.jackson.databind.JsonNode parsed = Json.parseOrMissing(text);
        if (parsed.isObject()) {
            return parsed;
        }
        com.fasterxml.jackson.databind.node.ObjectNode wrapped = Json.MAPPER.createObjectNode();
        if (parsed.isMissingNode()) {
            wrapped.put("value", text);
        } else {
            wrapped.set("value", parsed);
        }
        return wrapped;
    }

    /** The model to echo back: the requested one, so clients see what they asked for. */
    static String modelOf(RecordedRequest request) {
        String model = request.model();
        return model == null ? "fake-model" : model;
    }

    @Override
    public URI rootUri() {
        return URI.create("http://127.0.0.1:" + port());
    }

    @Override
    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public FakeServer enqueue(Reply... replies) {
        for (Reply reply : replies) {
            queue.add(Objects.requireNonNull(reply, "reply must not be null"));
        }
        return this;
    }

    @Override
    public FakeServer defaultReply(Reply reply) {
        this.defaultReply = Objects.requireNonNull(reply, "reply must not be null");
        return this;
    }

    @Override
    public FakeServer respondWith(Function<RecordedRequest, Reply> responder) {
        this.responder = responder;
        return this;
    }

    @Override
    public List<RecordedRequest> requests() {
        synchronized (recorded) {
            return List.copyOf(recorded);
        }
    }

    @Override
    public RecordedRequest lastRequest() {
        synchronized (recorded) {
            if (recorded.isEmpty()) {
                throw new NoSuchElementException("the fake server at " + rootUri() + " has received no request");
            }
            return recorded.get(recorded.size() - 1);
        }
    }

    @Override
    public int requestCount() {
        synchronized (recorded) {
            return recorded.size();
        }
    }

    @Override
    public int streamsSent() {
        return streamed.get();
    }

    @Override
    public int streamsAbandoned() {
        return abandoned.get();
    }

    @Override
    public FakeServer reset() {
        queue.clear();
        synchronized (recorded) {
            recorded.clear();
        }
        defaultReply = INITIAL_DEFAULT;
        responder = null;
        streamed.set(0);
        abandoned.set(0);
        return this;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            server.stop(0);
            // Interrupts exchanges still sleeping in a delayed reply so that closing never waits for them.
            executor.shutdownNow();
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + baseUrl() + "]";
    }

    private void handle(HttpExchange exchange) {
        try (exchange) {
            RecordedRequest request = read(exchange);
            synchronized (recorded) {
                recorded.add(request);
            }
            Reply reply;
            try {
                reply = isCompletion(request) ? next(request) : answerOther(request);
            } catch (RuntimeException e) {
                // A broken responder is a bug in the test; say so on the wire rather than dropping the connection.
                reply = Reply.error(500, "fake server responder failed: " + e);
            }
            send(exchange, request, reply);
        } catch (IOException e) {
            // The client gave up (typically its timeout fired during a delayed reply); nothing to answer.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static RecordedRequest read(HttpExchange exchange) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        URI uri = exchange.getRequestURI();
        return new RecordedRequest(
                exchange.getRequestMethod().toUpperCase(Locale.ROOT),
                uri.getPath(),
                uri.getRawQuery(),
                exchange.getRequestHeaders(),
                body,
                Json.parseOrMissing(body));
    }

    private Reply next(RecordedRequest request) {
        Reply queued = queue.poll();
        if (queued != null) {
            return queued;
        }
        Function<RecordedRequest, Reply> current = responder;
        if (current != null) {
            Reply computed = current.apply(request);
            if (computed != null) {
                return computed;
            }
        }
        return defaultReply;
    }

    private void send(HttpExchange exchange, RecordedRequest request, Reply reply)
            throws IOException, InterruptedException {
        switch (reply) {
            case Reply.Delayed delayed -> {
                Thread.sleep(delayed.delay());
                send(exchange, request, delayed.then());
            }
            case Reply.Http http -> write(exchange, http.status(), http.headers(), http.body());
            case Reply.Recorded recorded -> replay(exchange, recorded);
            case Reply.Streamed s when streams(request) -> stream(exchange, request, s);
            case Reply.Streamed s -> send(exchange, request, s.reply());
            case Reply.Text text when streams(request) -> stream(exchange, request, Reply.streamed(text));
            case Reply.ToolCalls calls when streams(request) -> stream(exchange, request, Reply.streamed(calls));
            case Reply.Text text -> write(
                    exchange,
                    200,
                    Map.of("Content-Type", "application/json"),
                    render(request, text, ids.incrementAndGet()));
            case Reply.ToolCalls calls -> write(
                    exchange,
                    200,
                    Map.of("Content-Type", "application/json"),
                    render(request, calls, ids.incrementAndGet()));
        }
    }

    /** Sends a streamed reply event by event; a client that closes the connection first is counted. */
    private void stream(HttpExchange exchange, RecordedRequest request, Reply.Streamed s)
            throws IOException, InterruptedException {
        List<String> events = renderStream(request, s.reply(), ids.incrementAndGet(), s.chunkChars());
        int n = s.cutAfter() > 0 ? Math.min(s.cutAfter(), events.size() - 1) : events.size();
        exchange.getResponseHeaders().add("Content-Type", streamContentType());
        if (n < events.size()) {
            exchange.getResponseHeaders().add("Connection", "close");
        }
        exchange.sendResponseHeaders(200, 0); // chunked
        streamed.incrementAndGet();
        OutputStream out = exchange.getResponseBody();
        try {
            for (int i = 0; i < n; i++) {
                if (i > 0 && !s.pause().isZero()) {
                    Thread.sleep(s.pause());
                }
                out.write(events.get(i).getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
            out.close();
        } catch (IOException e) {
            abandoned.incrementAndGet(); // the client closed the connection before the stream's end
            throw e;
        }
    }

    /** Sends a recorded reply as it was received; a streamed one event by event, then the body ends. */
    private void replay(HttpExchange exchange, Reply.Recorded recorded) throws IOException {
        recorded.headers().forEach((name, values) -> values.forEach(v -> exchange.getResponseHeaders().add(name, v)));
        byte[] body = recorded.body();
        if (!recorded.streamed()) {
            exchange.sendResponseHeaders(recorded.status(), body.length == 0 ? -1 : body.length);
            if (body.length > 0) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
            return;
        }
        exchange.sendResponseHeaders(recorded.status(), 0); // chunked
        streamed.incrementAndGet();
        OutputStream out = exchange.getResponseBody();
        try {
            for (byte[] event : RecordedReplies.events(body)) {
                out.write(event);
                out.flush();
            }
            out.close();
        } catch (IOException e) {
            abandoned.incrementAndGet();
            throw e;
        }
    }

    private static void write(HttpExchange exchange, int status, Map<String, String> headers, String body)
            throws IOException {
        headers.forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        // -1 tells HttpServer "no body" (Content-Length: 0); 0 would mean chunked.
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }
}
