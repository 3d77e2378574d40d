package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loopflow.testkit.FakeOpenAiServer;
import dev.loopflow.testkit.FakeServer;
import dev.loopflow.testkit.Reply;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failure paths of pipelines and LLM calls through {@code loopflow run} and {@code loopflow resume} in child
 * processes, against a scripted OpenAI-compatible server: a resume after exhausted validation retries asks the model
 * again and completes, with {@code usage.llm_calls} equal to the requests the server received; a stage's
 * output_schema mismatch is retried; a call in flight when the process is killed counts against the budget after
 * the resume.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class PipelineResumeCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String VALID = "{\"inputs\": {}, \"outputs\": {\"n\": 1}, \"evidence\": {}}";

  @TempDir
  Path dir;

  private record Result(int exit, JsonNode json, String err) {}

  private ProcessBuilder cli(FakeServer server, String... args) {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> cmd = new ArrayList<>(List.of(java, "-cp", TestJvm.classPathOption(), "dev.loopflow.cli.Main"));
    cmd.addAll(List.of(args));
    cmd.addAll(List.of("--store", "sqlite:" + dir.resolve("runs.db"), "--json"));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
    pb.environment().put("OPENAI_BASE_URL", server.baseUrl());
    pb.environment().put("OPENAI_API_KEY", "sk-test-pipeline-resume");
    pb.environment().put("LOOPFLOW_PLAIN_PROGRESS", "1");
    pb.environment().put("LOOPFLOW_HOME", dir.resolve("home").toString());
    pb.environment().remove("LOOPFLOW_STORE");
    return pb;
  }

  private Result exec(FakeServer server, String... args) throws Exception {
    Process p = cli(server, args).start();
    byte[] out = p.getInputStream().readAllBytes();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    return new Result(p.exitValue(), JSON.readTree(out), err);
  }

  private Path workflow(String yaml) throws Exception {
    Path wf = dir.resolve("flow.yaml");
    Files.writeString(wf, yaml);
    return wf;
  }

  private static long chats(FakeServer server) {
    return server.requests().stream().filter(r -> r.path().endsWith("/chat/completions")).count();
  }

  @Test
  void aResumeAfterExhaustedValidationRetriesCompletesAndCountsEachRequestOnce_bugItReplayedTheRejectedAnswers()
      throws Exception {
    try (FakeServer server = FakeOpenAiServer.start()) {
      Path wf = workflow("""
          defaults: {model: "openai:gpt-4o-mini"}
          workflow_pattern:
            iterative:
              pipeline:
                stages:
                  - {agent_id: only, prompt_template: "Answer in JSON"}
              restart_policy: {enabled: true, max_validation_retries: 2}
          """);
      server.enqueue(Reply.text("nope"), Reply.text("nope"), Reply.text("nope"));
      Result failed = exec(server, "run", wf.toString());
      assertThat(failed.exit()).as(failed.err()).isEqualTo(1);
      assertThat(failed.json().at("/error/code").asText()).isEqualTo("validation_retry_exhausted");
      String runId = failed.json().get("run_id").asText();
      assertThat(failed.json().at("/usage/llm_calls").asInt()).isEqualTo(3);

      server.enqueue(Reply.text("nope"), Reply.text(VALID));
      Result done = exec(server, "resume", runId);

      assertThat(done.exit()).as(done.err()).isZero();
      assertThat(done.json().get("status").asText()).isEqualTo("completed");
      assertThat(chats(server)).isEqualTo(5);
      assertThat(done.json().at("/usage/llm_calls").asInt()).as("the calls the provider received").isEqualTo(5);
    }
  }

  @Test
  void aStageOutputSchemaMismatchIsRetried_bugTheFirstMismatchFailedTheStage() throws Exception {
    try (FakeServer server = FakeOpenAiServer.start()) {
      Path wf = workflow("""
          defaults: {model: "openai:gpt-4o-mini"}
          workflow_pattern:
            iterative:
              pipeline:
                stages:
                  - agent_id: only
                    prompt_template: "Answer in JSON"
                    output_schema: {type: object, required: [answer]}
              restart_policy: {enabled: true}
          """);
      // The stage offers tools, so its free answer is asked for once more with the schema before the stage's
      // validation retry takes over.
      server.enqueue(Reply.text("{\"guess\": 1}"), Reply.text("{\"guess\": 2}"), Reply.text("{\"answer\": 42}"));
      Result r = exec(server, "run", wf.toString());

      assertThat(r.exit()).as(r.err()).isZero();
      assertThat(r.json().at("/pipeline/validation_retries").asInt()).isEqualTo(1);
      assertThat(r.json().at("/output/answer").asInt()).isEqualTo(42);
      assertThat(r.err()).contains("output did not validate, retry 1 with a fresh session");
    }
  }

  @Test
  @DisabledOnOs(OS.WINDOWS)
  void aCallInFlightWhenTheProcessIsKilledCountsAfterTheResume_bugTheResumedRunSentItAgainPastMaxLlmCalls()
      throws Exception {
    try (FakeServer server = FakeOpenAiServer.start()) {
      Path wf = workflow("""
          budget: {max_llm_calls: 1}
          nodes:
            - {id: a, type: llm, model: "openai:gpt-4o-mini", prompt: "hello"}
          """);
      // The reply comes long after the kill: the call is in flight when the process dies.
      server.enqueue(Reply.text("late").after(Duration.ofSeconds(30)));
      Process p = cli(server, "run", wf.toString(), "--run-id", "killed-mid-call").start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120); // a hang guard only
      while (chats(server) == 0 && p.isAlive() && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertThat(chats(server)).as("the request reached the provider").isEqualTo(1);
      p.destroyForcibly(); // SIGKILL
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();

      server.defaultReply(Reply.text("a second call must not be sent"));
      Result resumed = exec(server, "resume", "killed-mid-call");

      assertThat(chats(server)).as("requests the provider received").isEqualTo(1);
      assertThat(resumed.exit()).as(resumed.err()).isEqualTo(1);
      assertThat(resumed.json().at("/error/code").asText()).isEqualTo("budget_exceeded");
      assertThat(resumed.json().at("/usage/llm_calls").asInt()).isEqualTo(1);
    }
  }
}
