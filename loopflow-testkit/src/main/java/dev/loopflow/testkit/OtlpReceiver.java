package dev.loopflow.testkit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A local OpenTelemetry collector for tests: accepts OTLP over HTTP ({@code POST /v1/traces}, protobuf or JSON) on
 * 127.0.0.1 and keeps every request's content type and body. It does not decode the protobuf; a test finds span
 * names and attribute values in {@link #text()}, where protobuf keeps strings as their UTF-8 bytes.
 *
 * <pre>{@code
 * try (OtlpReceiver otlp = OtlpReceiver.start()) {
 *   env.put("OTEL_EXPORTER_OTLP_ENDPOINT", otlp.endpoint());
 *   ...
 *   assertThat(otlp.text()).contains("workflow.stage.execute");
 * }
 * }</pre>
 */
public final class OtlpReceiver implements AutoCloseable {
  /** One request the receiver got. */
  public record Request(String method, String path, String contentType, byte[] body) {}

  private final HttpServer server;
  private final List<Request> requests = new ArrayList<>();
  private volatile int status = 200;

  private OtlpReceiver() {
    server = LoopbackHttpServer.create(0, "the OTLP receiver");
    server.setExecutor(Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "otlp-receiver");
      t.setDaemon(true);
      return t;
    }));
    server.createContext("/", this::handle);
    server.start();
  }

  /** Starts a receiver on a free port of 127.0.0.1. */
  public static OtlpReceiver start() {
    return new OtlpReceiver();
  }

  /** The base address exporters take as {@code OTEL_EXPORTER_OTLP_ENDPOINT}, e.g. {@code http://127.0.0.1:4318}. */
  public String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Answers every later request with {@code code} (e.g. 503 to play a collector that refuses). */
  public void respondWith(int code) {
    this.status = code;
  }

  /** The requests so far, in arrival order. */
  public synchronized List<Request> requests() {
    return List.copyOf(requests);
  }

  /** Every body received so far, as one string (ISO-8859-1, so every byte stays one character). */
  public synchronized String text() {
    StringBuilder sb = new StringBuilder();
    for (Request r : requests) {
      sb.append(new String(r.body(), StandardCharsets.ISO_8859_1)).append('\n');
    }
    return sb.toString();
  }

  /** Every body received so far, read as UTF-8 (span names and attribute values appear in it as written). */
  public synchronized String utf8() {
    StringBuilder sb = new StringBuilder();
    for (Request r : requests) {
      sb.append(new String(r.body(), StandardCharsets.UTF_8)).append('\n');
    }
    return sb.toString();
  }

  private void handle(HttpExchange ex) throws IOException {
    byte[] body;
    try (InputStream in = ex.getRequestBody()) {
      body = in.readAllBytes();
    }
    synchronized (this) {
      requests.add(new Request(ex.getRequestMethod(), ex.getRequestURI().getPath(),
          ex.getRequestHeaders().getFirst("Content-Type"), body));
    }
    String type = ex.getRequestHeaders().getFirst("Content-Type");
    ex.getResponseHeaders().set("Content-Type", type == null ? "application/x-protobuf" : type);
    boolean json = type != null && type.contains("json");
    byte[] reply = json ? "{}".getBytes(StandardCharsets.UTF_8) : new byte[0]; // an empty ExportTraceServiceResponse
    int code = status;
    ex.sendResponseHeaders(code, reply.length == 0 ? -1 : reply.length);
    if (reply.length > 0) {
      ex.getResponseBody().write(reply);
    }
    ex.close();
  }

  @Override
  public void close() {
    server.stop(0);
    ((ExecutorService) server.getExecutor()).shutdownNow();
  }
}
