package dev.loopflow.bench.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** The JSON calls of the server's API the benchmark makes (runs are started and read; events use SseConnection). */
final class Api {
  /** A response: its status and its JSON object body (empty when the body is not one). */
  record Response(int status, Map<String, Object> body, String text) {}

  private static final ObjectMapper JSON = new ObjectMapper();
  private final URI base;
  private final String token;
  private final HttpClient http;

  Api(URI base, String token) {
    this.base = base;
    this.token = token;
    this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(10)).build();
  }

  URI base() {
    return base;
  }

  String token() {
    return token;
  }

  /** POST /api/runs with the workflow's YAML and its inputs. */
  Response startRun(String yaml, Map<String, Object> inputs) throws IOException, InterruptedException {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("source", yaml);
    body.put("inputs", inputs);
    return send(HttpRequest.newBuilder(base.resolve("/api/runs"))
        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
        .header("Content-Type", "application/json"));
  }

  /** GET /api/runs/{id}. */
  Response run(String runId) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(base.resolve("/api/runs/" + runId)).GET());
  }

  /** Polls GET /api/runs/{id} every 100 ms until the run is no longer running; the last response. */
  Response awaitEnd(String runId, Duration timeout) throws IOException, InterruptedException {
    return awaitEnd(runId, timeout, Duration.ofMillis(100));
  }

  /**
   * Polls GET /api/runs/{id} every {@code every} until its status is no longer running (or pending); the last
   * response. The server builds the whole result for each call (every node execution of the run), so polling a long
   * run often costs it real work.
   */
  Response awaitEnd(String runId, Duration timeout, Duration every) throws IOException, InterruptedException {
    long until = System.nanoTime() + timeout.toNanos();
    while (true) {
      Response r = run(runId);
      Object status = r.body().get("status");
      if (r.status() != 200 || !("running".equals(status) || "pending".equals(status))
          || System.nanoTime() > until) {
        return r;
      }
      Thread.sleep(every);
    }
  }

  private Response send(HttpRequest.Builder b) throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(b.header("Authorization", "Bearer " + token)
        .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    return new Response(r.statusCode(), object(r.body()), r.body());
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> object(String text) {
    try {
      Object o = JSON.readValue(text, Object.class);
      return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    } catch (JsonProcessingException e) {
      return Map.of();
    }
  }
}
