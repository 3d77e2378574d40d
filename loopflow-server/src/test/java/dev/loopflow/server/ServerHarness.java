package dev.loopflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.store.jdbc.JdbcStores;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A server on a free port over a SQLite store in a temporary directory, and an HTTP client for it. Tests make one
 * per class or per test and close it.
 */
final class ServerHarness implements AutoCloseable {
  static final String TOKEN = "test-token-3f9a1c";
  static final ObjectMapper JSON = new ObjectMapper();

  final Path home;
  final Path workflows;
  final Path dbFile;
  final RunStore store;
  final LoopflowServer server;
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  final List<String> log = new CopyOnWriteArrayList<>();

  ServerHarness(Path home) {
    this(home, b -> {});
  }

  ServerHarness(Path home, java.util.function.Consumer<LoopflowServer.Builder> configure) {
    this.home = home;
    this.workflows = home.resolve("workflows");
    this.dbFile = home.resolve("loopflow.db");
    this.store = JdbcStores.open("sqlite:" + dbFile);
    LoopflowServer.Builder b = LoopflowServer.builder().store(store).workflowsDir(workflows).token(TOKEN).port(0)
        .heartbeat(Duration.ofMillis(300)).log(log::add);
    configure.accept(b);
    this.server = b.build().start();
  }

  /** A second store on the same SQLite file: what another process on the same store sees and does. */
  RunStore otherStore() {
    return JdbcStores.open("sqlite:" + dbFile);
  }

  URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.port() + path);
  }

  HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(60)).header("Authorization",
        "Bearer " + TOKEN);
  }

  Response get(String path) {
    return send(request(path).GET().build());
  }

  Response post(String path, Object body) {
    return send(request(path).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json(body))).build());
  }

  Response put(String path, Object body) {
    return send(request(path).header("Content-Type", "application/json")
        .PUT(HttpRequest.BodyPublishers.ofString(json(body))).build());
  }

  Response send(HttpRequest r) {
    try {
      return new Response(http.send(r, HttpResponse.BodyHandlers.ofString()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static String json(Object body) {
    if (body instanceof String s) {
      return s;
    }
    try {
      return JSON.writeValueAsString(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  Path workflow(String name, String yaml) {
    try {
      Files.createDirectories(workflows);
      return Files.writeString(workflows.resolve(name + ".yaml"), yaml);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Waits until the run's status is {@code status}, up to 30 s. */
  JsonNode awaitStatus(String runId, String status) {
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    JsonNode last = null;
    while (System.nanoTime() < until) {
      Response r = get("/api/runs/" + runId);
      if (r.status() == 200) {
        last = r.json();
        if (status.equals(last.path("status").asText())) {
          return last;
        }
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    throw new AssertionError("run " + runId + " did not reach " + status + "; last seen: " + last);
  }

  @Override
  public void close() {
    server.close();
    store.close();
  }

  /** A response: status, headers, body, and the body as JSON. */
  record Response(HttpResponse<String> raw) {
    int status() {
      return raw.statusCode();
    }

    String body() {
      return raw.body();
    }

    String header(String name) {
      return raw.headers().firstValue(name).orElse(null);
    }

    JsonNode json() {
      try {
        return JSON.readTree(raw.body());
      } catch (IOException e) {
        throw new AssertionError("not JSON (" + raw.statusCode() + "): " + raw.body(), e);
      }
    }

    /** The error code of an error body. */
    String code() {
      return json().path("error").path("code").asText(null);
    }

    @Override
    public String toString() {
      return raw.statusCode() + " " + raw.body();
    }
  }

  static Map<String, Object> map(Object... kv) {
    Map<String, Object> m = new java.util.LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }
}
