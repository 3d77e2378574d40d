package dev.loopflow.llm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.testkit.FakeOpenAiServer;
import dev.loopflow.testkit.Reply;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LlmNodeTest {
  final Loopflow engine = Loopflow.create();

  private RunResult run(FakeOpenAiServer server, String yaml) {
    Workflow wf = engine.parse(yaml, "t.yaml");
    return engine.run(wf, RunOptions.builder()
        .environment(Map.of("OPENAI_BASE_URL", server.baseUrl(), "OPENAI_API_KEY", "sk-test", "PATH",
            System.getenv("PATH")))
        .build());
  }

  @Test
  void llmNodeCallsAnOpenAiCompatibleServerThroughOpenAiBaseUrl() {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.enqueue(Reply.text("{\"passed\": false, \"feedback\": \"add tests\"}", 100, 20));
      RunResult r = run(server, """
          nodes:
            - id: reviewer
              model: "openai:gpt-4o-mini"
              prompt: "Review: {{ input.code }}"
          """.replace("{{ input.code }}", "x = 1"));
      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      Map<String, Object> node = r.nodes().get("reviewer");
      assertThat(node.get("structuredOutput")).isEqualTo(Map.of("passed", false, "feedback", "add tests"));
      assertThat(r.usage().inputTokens()).isEqualTo(100);
      assertThat(r.usage().outputTokens()).isEqualTo(20);
      assertThat(r.usage().costUsd()).isNotNull().isPositive();
      assertThat(server.lastRequest().json().get("model").asText()).isEqualTo("gpt-4o-mini");
      assertThat(server.lastRequest().header("authorization")).isEqualTo("Bearer sk-test");
    }
  }

  @Test
  void budgetStopsTheRunBeforeTheCallThatWouldExceedIt() {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      RunResult r = run(server, """
          budget: {max_llm_calls: 1}
          defaults: {model: "openai:gpt-4o-mini"}
          nodes:
            - id: one
              prompt: "first"
            - id: two
              prompt: "second"
          """);
      assertThat(r.status()).isEqualTo(RunStatus.FAILED);
      assertThat(r.error().code()).isEqualTo("budget_exceeded");
      assertThat(r.error().node()).isEqualTo("two");
      assertThat(server.requestCount()).isEqualTo(1);
    }
  }

  @Test
  void unknownModelCostsNullNotZero() {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      RunResult r = run(server, """
          nodes:
            - id: a
              model: "openai:some-local-model"
              prompt: "hi"
          """);
      assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.usage().costUsd()).isNull();
    }
  }

  @Test
  void sessionKeepsTheConversationAcrossCalls() {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.enqueue(Reply.text("first answer"), Reply.text("second answer"));
      RunResult r = run(server, """
          defaults: {model: "openai:gpt-4o-mini"}
          nodes:
            - id: a
              prompt: "question one"
              session: chat
            - id: b
              prompt: "question two"
              session: chat
          """);
      assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
      String body = server.lastRequest().body();
      assertThat(body).contains("question one").contains("first answer").contains("question two");
    }
  }

  @Test
  void structuredOutputIsValidatedAgainstTheSchema() {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.enqueue(Reply.text("{\"score\": \"high\"}"));
      RunResult r = run(server, """
          nodes:
            - id: judge
              model: "openai:gpt-4o-mini"
              prompt: "score it"
              output_schema: {type: object, required: [score], properties: {score: {type: number}}}
          """);
      assertThat(r.status()).isEqualTo(RunStatus.FAILED);
      assertThat(r.error().message()).contains("does not match output_schema");
      assertThat(server.lastRequest().body()).contains("json_schema");
    }
  }

  @Test
  void mockProviderIsLabelledAndReplaysTheScript() {
    Workflow wf = engine.parse("""
        nodes:
          - id: a
            model: "mock:demo"
            prompt: "hi"
            mock: ["one", "two"]
        """, "m.yaml");
    RunResult r = engine.run(wf, Map.of());
    assertThat(r.nodes().get("a")).containsEntry("text", "one").containsEntry("mock", true)
        .containsEntry("provider", "mock");
  }
}
