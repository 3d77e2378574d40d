package dev.loopflow.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A paused step's form over HTTP: the run's {@code waiting} carries the schema, {@code values} answers it, and a
 * wrong answer is 422 answer_invalid with the run still paused.
 */
class FormAnswersApiTest {
  static final String FORM = """
      name: release
      nodes:
        - id: ask
          approval: "Release?"
          schema:
            type: object
            required: [version]
            properties:
              version: {type: string, title: "Version <b>x</b>", minLength: 1}
              replicas: {type: integer, minimum: 1}
        - id: after
          depends_on: [ask]
          type: transform
          template: "{{ ask.values.version }} x{{ ask.values.replicas }}"
      """;

  @TempDir static Path tmp;
  static ServerHarness h;

  @BeforeAll
  static void start() {
    h = new ServerHarness(tmp.resolve("home"));
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @Test
  void theFormIsShownAndAnsweredOverHttp() {
    ServerHarness.Response started = h.post("/api/runs", ServerHarness.map("source", FORM));
    assertThat(started.status()).as(started.toString()).isEqualTo(201);
    String id = started.json().path("run_id").asText();
    JsonNode paused = h.awaitStatus(id, "paused");
    JsonNode schema = paused.path("waiting").path("schema");
    assertThat(schema.path("properties").path("version").path("title").asText()).isEqualTo("Version <b>x</b>");
    assertThat(schema.path("required").toString()).isEqualTo("[\"version\"]");

    for (Object wrong : List.of(ServerHarness.map("approve", true),
        ServerHarness.map("values", Map.of()),
        ServerHarness.map("values", ServerHarness.map("version", "1", "replicas", "three")),
        ServerHarness.map("values", ServerHarness.map("version", "1", "nope", 1)),
        ServerHarness.map("approve", true, "values", ServerHarness.map("version", 7)))) {
      ServerHarness.Response r = h.post("/api/runs/" + id + "/resume", wrong);
      assertThat(r.status()).as(r.toString()).isEqualTo(422);
      assertThat(r.code()).isEqualTo("answer_invalid");
      assertThat(r.json().path("error").path("reason").asText()).isEqualTo("invalid_values");
      assertThat(r.json().path("error").path("message").asText()).contains("ask").doesNotContain("\n");
      assertThat(r.json().path("error").path("waiting").path("schema").isObject()).isTrue();
      assertThat(h.get("/api/runs/" + id).json().path("status").asText()).isEqualTo("paused");
    }
    ServerHarness.Response notObject = h.post("/api/runs/" + id + "/resume", ServerHarness.map("values", "x"));
    assertThat(notObject.status()).isEqualTo(400);

    ServerHarness.Response ok = h.post("/api/runs/" + id + "/resume", ServerHarness.map("values",
        ServerHarness.map("version", "2.0", "replicas", 4)));
    assertThat(ok.status()).as(ok.toString()).isEqualTo(200);
    JsonNode done = h.awaitStatus(id, "completed");
    assertThat(done.path("output").asText()).isEqualTo("2.0 x4");
    assertThat(done.path("nodes").path("ask").path("values").path("replicas").asInt()).isEqualTo(4);
  }
}
