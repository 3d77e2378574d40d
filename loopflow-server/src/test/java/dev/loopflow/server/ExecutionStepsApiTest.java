package dev.loopflow.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code GET /api/runs/{id}/steps?path=}: an LLM call's messages and an agent's turns, as a transcript reads them. */
class ExecutionStepsApiTest {
  @TempDir static Path tmp;
  static ServerHarness h;
  static String run;

  @BeforeAll
  static void start() {
    h = new ServerHarness(tmp.resolve("home"));
    ServerHarness.Response r = h.post("/api/runs", ServerHarness.map("source", """
        name: transcript
        nodes:
          - id: write
            model: mock:writer
            system: "Be brief. <script>x</script>"
            messages:
              - {role: user, content: "Earlier question"}
              - {role: assistant, content: "Earlier answer"}
            prompt: "Now {{ 'this' }}"
            mock: ["**done**"]
          - id: analyst
            depends_on: [write]
            type: agent
            model: mock:analyst
            max_turns: 3
            system: "Use tools."
            prompt: "Store and answer."
            tools: [shared_memory_write]
            mock:
              - tool_calls:
                  - {name: shared_memory_write, arguments: {key: k, value: v}}
              - "Stored."
        """));
    assertThat(r.status()).as(r.toString()).isEqualTo(201);
    run = r.json().path("run_id").asText();
    h.awaitStatus(run, "completed");
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  private static List<String> types(JsonNode steps) {
    List<String> out = new ArrayList<>();
    steps.forEach(s -> out.add(s.path("type").asText()));
    return out;
  }

  @Test
  void anLlmExecutionsRequestHoldsItsSystemPromptAndMessagesWithTheirRoles() {
    ServerHarness.Response r = h.get("/api/runs/" + run + "/steps?path=write");
    assertThat(r.status()).as(r.toString()).isEqualTo(200);
    JsonNode steps = r.json().path("steps");
    assertThat(types(steps)).containsExactly("request");
    JsonNode req = steps.get(0);
    assertThat(req.path("system").asText()).isEqualTo("Be brief. <script>x</script>");
    List<String> said = new ArrayList<>();
    req.path("messages").forEach(m -> said.add(m.path("role").asText() + ": " + m.path("content").asText()));
    assertThat(said).containsExactly("user: Earlier question", "assistant: Earlier answer", "user: Now this");
  }

  @Test
  void anAgentsTranscriptHasItsRequestTurnsAndToolCallsInOrder() {
    JsonNode steps = h.get("/api/runs/" + run + "/steps?path=analyst").json().path("steps");
    assertThat(types(steps)).containsExactly("request", "model", "tool", "model");
    assertThat(steps.get(0).path("messages").get(0).path("content").asText()).isEqualTo("Store and answer.");
    assertThat(steps.get(2).path("name").asText()).isEqualTo("shared_memory_write");
  }

  @Test
  void aPositionWithoutStepsHasNoneAndAMissingPathIsABadRequest() {
    assertThat(h.get("/api/runs/" + run + "/steps?path=nowhere").json().path("steps").size()).isZero();
    ServerHarness.Response bad = h.get("/api/runs/" + run + "/steps");
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.json().path("error").path("code").asText()).isEqualTo("bad_request");
    assertThat(h.get("/api/runs/run_missing/steps?path=write").status()).isEqualTo(404);
  }
}
