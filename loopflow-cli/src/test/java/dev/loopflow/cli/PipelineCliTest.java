package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loopflow.testkit.FakeOpenAiServer;
import dev.loopflow.testkit.FakeServer;
import dev.loopflow.testkit.RecordedRequest;
import dev.loopflow.testkit.Reply;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pipelines through {@code loopflow run --json} in a child process, against a scripted OpenAI-compatible server:
 * restarts through the request_restart tool, long outputs cut in prompts and read whole through shared_memory_read,
 * validation retries and their exhaustion, and the pipeline object and error codes of the result.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PipelineCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String VALID = "{\"inputs\": {}, \"outputs\": {\"n\": %d}, \"evidence\": {\"tool_calls\": []}}";
  private static FakeServer server;

  @TempDir
  Path dir;

  @BeforeAll
  static void startServer() {
    server = FakeOpenAiServer.start();
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @BeforeEach
  void reset() {
    server.reset();
  }

  private record Result(int exit, JsonNode json, String err) {}

  private Result run(String yaml, String... extra) throws Exception {
    Path wf = dir.resolve("pipeline.yaml");
    Files.writeString(wf, yaml);
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> cmd = new ArrayList<>(List.of(java, "-cp", TestJvm.classPathOption(), "dev.loopflow.cli.Main", "run",
        wf.toString(), "--store", "sqlite:" + dir.resolve("runs.db"), "--json"));
    cmd.addAll(List.of(extra));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
    pb.environment().put("OPENAI_BASE_URL", server.baseUrl());
    pb.environment().put("OPENAI_API_KEY", "sk-test-pipeline");
    pb.environment().put("LOOPFLOW_PLAIN_PROGRESS", "1");
    pb.environment().put("LOOPFLOW_HOME", dir.resolve("home").toString());
    pb.environment().remove("LOOPFLOW_STORE");
    Process p = pb.start();
    byte[] out = p.getInputStream().readAllBytes();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    return new Result(p.exitValue(), JSON.readTree(out), err);
  }

  private static String lastUserText(RecordedRequest r) {
    JsonNode messages = r.json().path("messages");
    for (int i = messages.size() - 1; i >= 0; i--) {
      if (messages.get(i).path("role").asText().equals("user")) {
        return messages.get(i).path("content").asText();
      }
    }
    return "";
  }

  private static List<RecordedRequest> chats() {
    return server.requests().stream().filter(r -> r.path().endsWith("/chat/completions")).toList();
  }

  @Test
  void aStageRestartsDiscoveryThroughTheToolAfterReadingTheWholeCutOutput() throws Exception {
    String big = "{\"inputs\": {}, \"outputs\": {\"events\": \"" + "x".repeat(12_000) + "END\"}, \"evidence\": {}}";
    server.enqueue(
        Reply.text(big),
        Reply.toolCalls(Reply.call("shared_memory_read", "{\"namespace\": \"workflow\", \"key\": \"stage-1-output\"}")),
        Reply.toolCalls(Reply.call("request_restart", "{\"target_stage_id\": \"discover\", \"reason\": \"need the "
            + "checkout events\", \"parameters\": {\"filter\": \"checkout%\"}}")),
        Reply.text(VALID.formatted(1)),
        Reply.text(VALID.formatted(2)),
        Reply.text(VALID.formatted(3)));
    Result r = run("""
        defaults: {model: "openai:gpt-4o-mini"}
        workflow_pattern:
          iterative:
            pipeline:
              stages:
                - {agent_id: discover, prompt_template: "Discover events in {{table}} ({{ loop.restart.parameters.filter }})"}
                - {agent_id: build, prompt_template: "Build a query from: {{previous}}"}
            restart_policy: {enabled: true}
        """, "--input", "table=web_events");

    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.json().at("/pipeline/iterations_executed").asInt()).isEqualTo(2);
    JsonNode req = r.json().at("/pipeline/restart_requests/0");
    assertThat(req.get("requester_stage_id").asText()).isEqualTo("build");
    assertThat(req.get("target_stage_id").asText()).isEqualTo("discover");
    assertThat(req.get("reason").asText()).isEqualTo("need the checkout events");
    assertThat(req.get("success").asBoolean()).isTrue();
    assertThat(req.get("error").isNull()).isTrue();

    List<RecordedRequest> chats = chats();
    assertThat(chats).hasSize(6);
    assertThat(lastUserText(chats.get(0))).isEqualTo("Discover events in web_events ()");
    String buildPrompt = lastUserText(chats.get(1));
    assertThat(buildPrompt).contains("[OUTPUT TRUNCATED - Full data stored in SharedMemory. Use shared_memory_read("
        + "namespace=\"workflow\", key=\"stage-1-output\") to fetch complete output]").doesNotContain("END");
    assertThat(chats.get(1).json().path("tools").toString()).contains("shared_memory_read").contains("request_restart");
    // The tool result the model got is the whole output.
    assertThat(chats.get(2).json().path("messages").toString()).contains("END");
    assertThat(lastUserText(chats.get(4))).isEqualTo("Discover events in web_events (checkout%)");
  }

  @Test
  void anOutputThatDoesNotValidateIsRetriedAndExhaustionFailsWithTheLastError() throws Exception {
    String one = """
        defaults: {model: "openai:gpt-4o-mini"}
        workflow_pattern:
          iterative:
            pipeline:
              stages:
                - {agent_id: only, prompt_template: "Answer in JSON"}
            restart_policy: {enabled: true, max_validation_retries: %d}
        """;
    server.enqueue(Reply.text("sure! here it is"), Reply.text(VALID.formatted(1)));
    Result ok = run(one.formatted(2));
    assertThat(ok.exit()).as(ok.err()).isZero();
    assertThat(ok.json().at("/pipeline/validation_retries").asInt()).isEqualTo(1);
    assertThat(lastUserText(chats().get(1))).startsWith("Answer in JSON\n\nYour previous answer was rejected: "
        + "invalid JSON");
    assertThat(ok.err()).contains("output did not validate, retry 1 with a fresh session");

    server.reset();
    server.enqueue(Reply.text("nope"), Reply.text("{\"inputs\": {}}"));
    Result failed = run(one.formatted(1));
    assertThat(failed.exit()).isEqualTo(1);
    assertThat(failed.json().get("status").asText()).isEqualTo("failed");
    assertThat(failed.json().at("/error/code").asText()).isEqualTo("validation_retry_exhausted");
    assertThat(failed.json().at("/error/message").asText()).isEqualTo("stage 'only': validation failed after 1 "
        + "retry: required property 'outputs' not found; required property 'evidence' not found");
    assertThat(failed.json().at("/pipeline/validation_retries").asInt()).isEqualTo(1);
  }

  @Test
  void aRestartBeyondTheBoundFailsTheRunWithMaxIterationsExceeded() throws Exception {
    String restart = "{\"inputs\": {}, \"outputs\": {}, \"evidence\": {}, \"restart\": {\"target_stage_id\": \"a\", "
        + "\"reason\": \"again\"}}";
    server.defaultReply(Reply.text(restart));
    Result r = run("""
        defaults: {model: "openai:gpt-4o-mini"}
        workflow_pattern:
          iterative:
            pipeline:
              stages:
                - {agent_id: a, prompt_template: "a"}
                - {agent_id: b, prompt_template: "b"}
            max_iterations: 2
            restart_policy: {enabled: true}
        """);
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.json().at("/error/code").asText()).isEqualTo("max_iterations_exceeded");
    assertThat(r.json().at("/pipeline/iterations_executed").asInt()).isEqualTo(2);
    // a's own restart requests ask for itself: refused as forward restarts, and the run goes on to b
    List<String> codes = new ArrayList<>();
    r.json().at("/pipeline/restart_requests").forEach(q -> codes.add(q.get("success").asBoolean() ? "accepted"
        : q.at("/error/code").asText()));
    assertThat(codes).containsExactly("restart_validation_failed", "accepted", "restart_validation_failed",
        "max_iterations_exceeded");
  }
}
