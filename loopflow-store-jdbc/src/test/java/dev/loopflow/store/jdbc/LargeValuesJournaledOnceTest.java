package dev.loopflow.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A large http response is journaled once: it is the node's output and body, the run's output, the node's report,
 * a state key and a downstream node's rendered input, and the journal holds it about once, not five times. Reading
 * the run back gives the same objects as the run returned.
 */
class LargeValuesJournaledOnceTest {
  private static final int SIZE = 5 * 1024 * 1024;
  private static HttpServer server;
  private static String text;
  private static String json;

  @TempDir
  Path dir;

  @BeforeAll
  static void start() throws IOException {
    StringBuilder t = new StringBuilder(SIZE);
    for (int i = 0; t.length() < SIZE; i++) {
      t.append("line ").append(i).append(" of a large page\n");
    }
    text = t.substring(0, SIZE);
    StringBuilder j = new StringBuilder("[");
    for (int i = 0; j.length() < SIZE; i++) {
      j.append(i == 0 ? "" : ",").append("{\"id\":").append(i).append(",\"text\":\"").append("t".repeat(1000))
          .append("\"}");
    }
    json = j.append("]").toString();
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", ex -> {
      boolean isJson = ex.getRequestURI().getPath().equals("/json");
      byte[] body = (isJson ? json : text).getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", isJson ? "application/json" : "text/plain; charset=utf-8");
      ex.sendResponseHeaders(200, body.length);
      ex.getResponseBody().write(body);
      ex.close();
    });
    server.start();
  }

  @AfterAll
  static void stop() {
    server.stop(0);
  }

  @ParameterizedTest
  @ValueSource(strings = {"/text", "/json"})
  void aFiveMegabyteBodyIsJournaledOnce_bugHttpBodyJournaledTwice(String path) {
    String url = "http://127.0.0.1:" + server.getAddress().getPort() + path;
    try (RunStore store = JdbcStores.open("sqlite:" + dir.resolve("runs.db"))) {
      Loopflow engine = Loopflow.builder().store(store).build();
      RunResult r = engine.run(engine.parse("""
          name: big
          nodes:
            - id: h
              type: http
              url: "%s"
              output: page
            - id: echo
              type: transform
              template: "{{ h.body }}"
          """.formatted(url), "big.yaml"), Map.of());
      assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
      long bodyBytes = path.equals("/json") ? json.length() : text.length();

      long journal = ((JdbcRunStore) store).journalBytes(r.runId());

      assertThat(journal).as("journal bytes for a %d-byte body", bodyBytes)
          .isGreaterThan(bodyBytes).isLessThan(bodyBytes + bodyBytes / 5);
      RunRecord rec = store.findRun(r.runId()).orElseThrow();
      assertThat(rec.output()).isEqualTo(r.output());
      assertThat(rec.state()).isEqualTo(r.state());
      assertThat(rec.nodes()).isEqualTo(r.nodes());
      List<NodeExecution> rows = store.nodeExecutions(r.runId());
      assertThat(rows.get(0).result()).containsEntry("body", r.nodes().get("h").get("body"))
          .containsEntry("output", r.nodes().get("h").get("body")).containsEntry("status", 200);
      assertThat(rows.get(1).result()).containsEntry("output", r.output());
    }
  }
}
