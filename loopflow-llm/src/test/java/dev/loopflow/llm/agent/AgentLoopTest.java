package dev.loopflow.llm.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The agent loop on the mock provider: turns, tool results fed back, max_turns, budgets, the built-in tools. */
class AgentLoopTest {
  private final AgentRuns runs = new AgentRuns();

  @Test
  void theModelWritesToSharedMemoryReadsItBackAndAnswers() {
    RunResult r = runs.run("""
        nodes:
          - id: scribe
            type: agent
            model: "mock:m"
            prompt: "remember the colour"
            tools: [shared_memory_write, shared_memory_read]
            mock:
              - tool_calls: [{name: shared_memory_write, arguments: {key: colour, value: teal}}]
              - tool_calls: [{name: shared_memory_read, arguments: {key: colour}}]
              - "the colour is teal"
        """);

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.output()).isEqualTo("the colour is teal");
    List<Map<String, Object>> calls = AgentRuns.toolCalls(r, "scribe");
    assertThat(calls).extracting(c -> c.get("name")).containsExactly("shared_memory_write", "shared_memory_read");
    assertThat(calls.get(1)).containsEntry("result", "teal").containsEntry("turn", 2);
    assertThat(calls.get(0).get("arguments")).isEqualTo(Map.of("key", "colour", "value", "teal"));
    assertThat(r.nodes().get("scribe")).containsEntry("turns", 3).containsEntry("mock", true);
    assertThat(runs.llmCalls()).isEqualTo(3);
    assertThat(r.usage().llmCalls()).isEqualTo(3);
  }

  @Test
  void aValueWrittenByOneAgentIsReadByTheNext() {
    RunResult r = runs.run("""
        defaults: {model: "mock:m"}
        nodes:
          - id: writer
            type: agent
            prompt: "store it"
            tools: [shared_memory_write]
            mock:
              - tool_calls: [{name: shared_memory_write, arguments: {namespace: workflow, key: plan, value: {steps: 3}}}]
              - "stored"
          - id: reader
            type: agent
            prompt: "read it"
            tools: [shared_memory_read]
            mock:
              - tool_calls: [{name: shared_memory_read, arguments: {key: plan}}]
              - "read"
        """);

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(AgentRuns.toolCalls(r, "reader").get(0)).containsEntry("result", "{\"steps\":3}");
  }

  @Test
  void aMissingKeyIsReportedToTheModelWithItsErrorCode() {
    RunResult r = runs.run("""
        nodes:
          - id: a
            type: agent
            model: "mock:m"
            prompt: "read"
            tools: [shared_memory_read]
            mock:
              - tool_calls: [{name: shared_memory_read, arguments: {key: nothing-here}}]
              - "there was nothing"
        """);

    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat((String) AgentRuns.toolCalls(r, "a").get(0).get("error")).startsWith("shared_memory_key_not_found: ");
  }

  @Test
  void theSessionNamespaceNeedsASessionAndTheAgentNamespaceIsTheNodes() {
    RunResult r = runs.run("""
        nodes:
          - id: a
            type: agent
            model: "mock:m"
            prompt: "go"
            tools: [shared_memory_write, shared_memory_read]
            mock:
              - tool_calls:
                  - {name: shared_memory_write, arguments: {namespace: session, key: k, value: v}}
                  - {name: shared_memory_write, arguments: {namespace: agent, key: k, value: mine}}
              - tool_calls: [{name: shared_memory_read, arguments: {namespace: agent, key: k}}]
              - done
        """);

    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    List<Map<String, Object>> calls = AgentRuns.toolCalls(r, "a");
    assertThat((String) calls.get(0).get("error")).contains("session");
    assertThat(calls.get(1)).containsKey("result");
    assertThat(calls.get(2)).containsEntry("result", "mine");
  }

  @Test
  void aModelStillAskingForToolsAfterMaxTurnsFailsTheNodeNamingMaxTurns() {
    RunResult r = runs.run("""
        nodes:
          - id: looper
            type: agent
            model: "mock:m"
            prompt: "never stop"
            max_turns: 3
            tools: [shared_memory_read]
            mock:
              - tool_calls: [{name: shared_memory_read, arguments: {key: x}}]
        """);

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("node_failed");
    assertThat(r.error().node()).isEqualTo("looper");
    assertThat(r.error().message()).contains("max_turns (3)").contains("shared_memory_read");
    assertThat(runs.llmCalls()).isEqualTo(3);
    // the tools of the last turn did not run: two turns' calls were made
    assertThat(runs.steps()).filteredOn(s -> "tool".equals(s.get("type"))).hasSize(2);
    assertThat(r.nodes().get("looper")).containsEntry("turns", 3);
  }

  @Test
  void maxTurnsOfOneAllowsAnAnswerWithoutTools() {
    RunResult r = runs.run("""
        nodes:
          - id: a
            type: agent
            model: "mock:m"
            prompt: "just answer"
            max_turns: 1
            tools: [http]
            mock: ["an answer"]
        """);

    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.output()).isEqualTo("an answer");
    assertThat(AgentRuns.toolCalls(r, "a")).isEmpty();
  }

  @Test
  void anAgentLoopUnderMaxLlmCallsTwoNeverMakesAThirdCall() {
    RunResult r = runs.run("""
        budget: {max_llm_calls: 2}
        nodes:
          - id: a
            type: agent
            model: "mock:m"
            prompt: "go"
            tools: [shared_memory_read]
            mock:
              - tool_calls: [{name: shared_memory_read, arguments: {key: x}}]
        """);

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("budget_exceeded");
    assertThat(runs.llmCalls()).isEqualTo(2);
    assertThat(r.usage().llmCalls()).isEqualTo(2);
  }

  @Test
  void theFinalAnswerIsCheckedAgainstOutputSchema() {
    RunResult r = runs.run("""
        nodes:
          - id: a
            type: agent
            model: "mock:m"
            prompt: "go"
            tools: [shared_memory_read]
            output_schema: {type: object, required: [n], properties: {n: {type: integer}}}
            mock:
              - tool_calls: [{name: shared_memory_read, arguments: {key: x}}]
              - '{"n": 7}'
          - id: after
            type: transform
            template: "{{ a.json.n }} via {{ a.tool_calls | length }} call"
        """);

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.nodes().get("a").get("output")).isEqualTo(Map.of("n", 7));
    assertThat(r.output()).isEqualTo("7 via 1 call");
  }

  @Test
  void withoutAScriptTheMockAnswersAtOnceWithoutTools() {
    RunResult r = runs.run("""
        nodes:
          - id: a
            type: agent
            model: "mock:m"
            prompt: "hello there"
            tools: [http, shared_memory_read]
        """);

    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat((String) r.output()).startsWith("[mock] hello there");
    assertThat(r.nodes().get("a")).containsEntry("turns", 1);
  }

  @Test
  void theSessionKeepsThePromptAndTheFinalAnswerForTheNextNode() {
    RunResult r = runs.run("""
        defaults: {model: "mock:m"}
        nodes:
          - id: a
            type: agent
            prompt: "first question"
            session: chat
            tools: [shared_memory_read]
            mock:
              - tool_calls: [{name: shared_memory_read, arguments: {key: x}}]
              - "first answer"
          - id: b
            prompt: "second question"
            session: chat
            mock: ["second answer"]
        """);

    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.nodes().get("b")).containsEntry("text", "second answer");
  }
}
