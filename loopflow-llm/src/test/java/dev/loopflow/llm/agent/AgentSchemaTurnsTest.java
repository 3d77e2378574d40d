package dev.loopflow.llm.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.testkit.FakeOpenAiServer;
import dev.loopflow.testkit.RecordedRequest;
import dev.loopflow.testkit.Reply;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An agent with an {@code output_schema} asks for the schema only when it wants the answer: servers that enforce a
 * schema with a grammar (llama.cpp, Ollama) would otherwise let the model write nothing but JSON, so it could never
 * call a tool.
 */
class AgentSchemaTurnsTest {

  private static final String WORKFLOW = """
      nodes:
        - id: agent
          type: agent
          model: "openai:gpt-4o-mini"
          prompt: "note the answer, then give it"
          tools: [shared_memory_write]
          output_schema: {type: object, properties: {answer: {type: integer}}, required: [answer]}
      """;

  private static AgentRuns runs(FakeOpenAiServer server) {
    return new AgentRuns().env("OPENAI_BASE_URL", server.baseUrl()).env("OPENAI_API_KEY", "sk-test");
  }

  private static boolean asksForSchema(RecordedRequest r) {
    return r.json().path("response_format").path("type").asText().equals("json_schema");
  }

  private static Reply noteIt() {
    return Reply.toolCalls(Reply.call("shared_memory_write", "{\"key\":\"answer\",\"value\":\"42\"}"));
  }

  @Test
  void turnsThatOfferToolsGoWithoutTheSchemaAndAMatchingAnswerEndsTheRun() {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.enqueue(noteIt(), Reply.text("{\"answer\": 42}"));

      RunResult r = runs(server).run(WORKFLOW);

      assertThat(r.status()).as("%s", r.error()).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.output()).isEqualTo(Map.of("answer", 42));
      assertThat(server.requests()).hasSize(2).noneMatch(AgentSchemaTurnsTest::asksForSchema)
          .allMatch(q -> !q.toolNames().isEmpty());
    }
  }

  @Test
  void anAnswerThatDoesNotMatchTheSchemaIsAskedForOnceMoreWithTheSchema() {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.enqueue(noteIt(), Reply.text("The answer is 42."), Reply.text("{\"answer\": 42}"));

      RunResult r = runs(server).run(WORKFLOW);

      assertThat(r.status()).as("%s", r.error()).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.output()).isEqualTo(Map.of("answer", 42));
      assertThat(r.nodes().get("agent").get("turns")).isEqualTo(3);
      List<RecordedRequest> sent = server.requests();
      assertThat(sent).hasSize(3);
      assertThat(sent.subList(0, 2)).noneMatch(AgentSchemaTurnsTest::asksForSchema);
      RecordedRequest last = sent.get(2);
      assertThat(asksForSchema(last)).isTrue();
      var messages = last.json().path("messages");
      assertThat(messages.get(messages.size() - 2).path("content").asText()).isEqualTo("The answer is 42.");
      assertThat(messages.get(messages.size() - 1).path("role").asText()).isEqualTo("user");
      assertThat(messages.get(messages.size() - 1).path("content").asText()).contains("JSON");
      assertThat(r.usage().llmCalls()).isEqualTo(3);
    }
  }

  @Test
  void anAnswerThatStillDoesNotMatchAfterBeingAskedWithTheSchemaIsRejected() {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.enqueue(noteIt(), Reply.text("The answer is 42."), Reply.text("forty-two"));

      RunResult r = runs(server).run(WORKFLOW);

      assertThat(r.status()).isEqualTo(RunStatus.FAILED);
      assertThat(r.error().message()).contains("output_schema");
      assertThat(server.requestCount()).isEqualTo(3);
    }
  }

  @Test
  void everyTurnSendsTheSchemaWithTheToolsAndMakesNoExtraCall() {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.enqueue(noteIt(), Reply.text("The answer is 42."));

      RunResult r = runs(server).run(WORKFLOW.replace("tools: [shared_memory_write]",
          "tools: [shared_memory_write]\n    output_schema_on: every_turn"));

      assertThat(r.status()).isEqualTo(RunStatus.FAILED);
      assertThat(server.requests()).hasSize(2).allMatch(AgentSchemaTurnsTest::asksForSchema);
    }
  }

  @Test
  void aModelThatAnswersOnItsLastTurnWithoutTheSchemaIsNotGivenATurnMore() {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.enqueue(noteIt(), Reply.text("The answer is 42."));

      RunResult r = runs(server).run(WORKFLOW.replace("tools: [shared_memory_write]",
          "tools: [shared_memory_write]\n    max_turns: 2"));

      assertThat(r.status()).isEqualTo(RunStatus.FAILED);
      assertThat(r.error().message()).contains("output_schema");
      assertThat(server.requestCount()).isEqualTo(2);
    }
  }
}
