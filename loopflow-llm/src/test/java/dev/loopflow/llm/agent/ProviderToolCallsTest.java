package dev.loopflow.llm.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.testkit.FakeAnthropicServer;
import dev.loopflow.testkit.FakeOllamaServer;
import dev.loopflow.testkit.FakeOpenAiServer;
import dev.loopflow.testkit.FakeServer;
import dev.loopflow.testkit.RecordedRequest;
import dev.loopflow.testkit.Reply;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The agent loop on each provider's own tool-call wire format (OpenAI, Anthropic, Ollama fakes): the tools offered
 * in every request, several calls in one reply, results sent back in order and matched to their calls, bad calls
 * answered as errors, the conversation carried from turn to turn.
 */
class ProviderToolCallsTest {
  record Provider(String name, Supplier<FakeServer> start, String model, boolean hasIds) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Arguments> providers() {
    return Stream.of(
        Arguments.of(new Provider("openai", FakeOpenAiServer::start, "openai:gpt-4o-mini", true)),
        Arguments.of(new Provider("anthropic", FakeAnthropicServer::start, "anthropic:claude-sonnet-4-5", true)),
        Arguments.of(new Provider("ollama", FakeOllamaServer::start, "ollama:fake-model", false)));
  }

  private static AgentRuns runs(Provider p, FakeServer server) {
    AgentRuns runs = new AgentRuns();
    switch (p.name()) {
      case "openai" -> runs.env("OPENAI_BASE_URL", server.baseUrl()).env("OPENAI_API_KEY", "sk-test");
      case "anthropic" -> runs.env("ANTHROPIC_BASE_URL", server.rootUri().toString()).env("ANTHROPIC_API_KEY", "k");
      default -> runs.env("OLLAMA_BASE_URL", server.baseUrl());
    }
    return runs;
  }

  private static final String WORKFLOW = """
      nodes:
        - id: agent
          type: agent
          model: "%s"
          system: "You keep notes."
          prompt: "note two things, then answer"
          tools: [shared_memory_write, shared_memory_read]
      """;

  @ParameterizedTest(name = "{0}")
  @MethodSource("providers")
  void theModelCallsToolsInParallelSeesTheResultsInOrderAndAnswers(Provider p) {
    try (FakeServer server = p.start().get()) {
      server.enqueue(
          new Reply.ToolCalls(List.of(
              new Reply.Call(p.hasIds() ? "first" : null, "shared_memory_write", "{\"key\":\"k1\",\"value\":\"one\"}"),
              new Reply.Call(p.hasIds() ? "second" : null, "shared_memory_write", "{\"key\":\"k2\",\"value\":\"two\"}")),
              "I will note both.", 30, 12),
          Reply.toolCalls(Reply.call("shared_memory_read", "{\"key\":\"k2\"}")),
          Reply.text("noted one and two", 50, 6));

      RunResult r = runs(p, server).run(WORKFLOW.formatted(p.model()));

      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.output()).isEqualTo("noted one and two");
      List<RecordedRequest> requests = server.requests().stream().filter(q -> q.method().equals("POST")).toList();
      assertThat(requests).hasSize(3);
      for (RecordedRequest q : requests) {
        assertThat(q.toolNames()).containsExactly("shared_memory_write", "shared_memory_read");
      }
      assertThat(requests.get(0).toolParameters("shared_memory_write").path("required").toString())
          .contains("key", "value");
      assertThat(requests.get(0).toolResults()).isEmpty();

      List<RecordedRequest.ToolResult> second = requests.get(1).toolResults();
      assertThat(second).extracting(RecordedRequest.ToolResult::content)
          .containsExactly("stored k1 in workflow (3 bytes)", "stored k2 in workflow (3 bytes)");
      if (p.hasIds()) {
        assertThat(second).extracting(RecordedRequest.ToolResult::callId).containsExactly("first", "second");
      }
      assertThat(requests.get(1).body()).contains("I will note both.");
      List<RecordedRequest.ToolResult> third = requests.get(2).toolResults();
      assertThat(third).hasSize(3);
      assertThat(third.get(2).content()).isEqualTo("two");

      List<Map<String, Object>> calls = AgentRuns.toolCalls(r, "agent");
      assertThat(calls).extracting(c -> c.get("turn")).containsExactly(1, 1, 2);
      assertThat(r.nodes().get("agent")).containsEntry("provider", p.name()).containsEntry("turns", 3);
      assertThat(r.usage().llmCalls()).isEqualTo(3);
      assertThat(r.usage().inputTokens()).isEqualTo(30 + 10 + 50);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("providers")
  void badCallsGoBackAsErrorResultsInTheProvidersFormat(Provider p) {
    try (FakeServer server = p.start().get()) {
      server.enqueue(
          new Reply.ToolCalls(List.of(
              new Reply.Call(null, "rm_rf", "{}"),
              new Reply.Call(null, "shared_memory_write", "key is k"),
              new Reply.Call(null, "shared_memory_write", "{\"key\": 42, \"value\": \"v\"}")), "", 10, 10),
          Reply.text("sorry", 10, 1));

      RunResult r = runs(p, server).run(WORKFLOW.formatted(p.model()));

      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      List<RecordedRequest.ToolResult> results = server.requests().stream()
          .filter(q -> q.method().equals("POST")).toList().get(1).toolResults();
      assertThat(results).hasSize(3);
      assertThat(results.get(0).content()).startsWith("error: there is no tool named 'rm_rf'");
      // OpenAI passes broken JSON through; Anthropic and Ollama carry arguments as objects, so the fake wraps the
      // text as {"value": ...}, which then fails the tool's schema
      assertThat(results.get(1).content()).startsWith("error: the arguments ");
      assertThat(results.get(2).content()).startsWith("error: the arguments do not match");
      if (p.name().equals("anthropic")) {
        assertThat(results).allMatch(RecordedRequest.ToolResult::error);
      }
      if (p.hasIds()) {
        assertThat(results).extracting(RecordedRequest.ToolResult::callId).doesNotHaveDuplicates().doesNotContainNull();
      }
      assertThat(AgentRuns.toolCalls(r, "agent")).allMatch(c -> c.containsKey("error"));
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("providers")
  void withOutputSchemaOnEveryTurnToolsAndTheSchemaGoTogetherAndTheAnswerIsChecked(Provider p) {
    try (FakeServer server = p.start().get()) {
      server.enqueue(Reply.toolCalls(Reply.call("shared_memory_read", "{\"key\":\"missing\"}")),
          Reply.text("{\"found\": false}", 10, 4));

      RunResult r = runs(p, server).run(WORKFLOW.formatted(p.model())
          + "    output_schema: {type: object, required: [found], properties: {found: {type: boolean}}}\n"
          + "    output_schema_on: every_turn\n");

      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.nodes().get("agent").get("output")).isEqualTo(Map.of("found", false));
      RecordedRequest first = server.requests().stream().filter(q -> q.method().equals("POST")).findFirst()
          .orElseThrow();
      assertThat(first.toolNames()).isNotEmpty();
      assertThat(first.body()).contains("found");
    }
  }
}
