package dev.loopflow.llm.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.testkit.FakeOpenAiServer;
import dev.loopflow.testkit.Reply;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The workflow tool's limits: child runs per reply and per tree of runs are capped (the calls past a cap are refused
 * to the model, never run), and a child's LLM calls count in its caller's budget before they are made, so the run
 * reports every call its tree made. Regression: one reply started 300 child runs, and a parent with
 * {@code max_llm_calls: 2} let its children make hundreds of provider calls while it reported 2.
 */
class WorkflowToolLimitsTest {
  @TempDir
  Path dir;

  private static String calls(String tool, int n) {
    List<Object> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(Map.of("name", tool, "arguments", Map.of("word", "w" + i)));
    }
    return Json.compact(out);
  }

  private void child(String file, String body) throws Exception {
    Files.writeString(dir.resolve(file), body);
  }

  /** Every LLM call the run and its children made, counted from each run's own journal. */
  private static long callsMade(AgentRuns runs) {
    long n = 0;
    for (RunRecord run : runs.engine.store().listRuns()) {
      n += runs.engine.store().events(run.runId()).stream().filter(Event.LlmCalled.class::isInstance).count();
    }
    return n;
  }

  private static long childRuns(AgentRuns runs) {
    return runs.engine.store().listRuns().size() - 1;
  }

  @ParameterizedTest(name = "{0} calls in one reply, cap {1}")
  @CsvSource({
      "1, ''", "8, ''", "9, ''", "300, ''",
      "3, 1", "3, 2", "40, 5", "12, 12", "13, 12"})
  void oneReplyStartsAtMostItsCapOfChildRuns(int asked, String cap) throws Exception {
    child("echo.yaml", """
        input: {word: string}
        nodes: [{id: t, type: transform, template: "{{ input.word }}"}]
        """);
    int limit = cap.isEmpty() ? 8 : Integer.parseInt(cap);
    String entry = cap.isEmpty() ? "{workflow: echo.yaml}" : "{workflow: echo.yaml, max_runs_per_reply: " + cap
        + ", max_runs_per_run: 1000}";
    AgentRuns runs = new AgentRuns().in(dir);
    RunResult r = runs.run("""
        nodes:
          - id: a
            type: agent
            model: "mock:m"
            prompt: "work"
            tools: [%s]
            mock:
              - {tool_calls: %s}
              - "done"
        """.formatted(entry, calls("echo", asked)));

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    List<Map<String, Object>> results = AgentRuns.toolCalls(r, "a");
    assertThat(results).hasSize(asked);
    int ran = Math.min(asked, limit);
    for (int i = 0; i < asked; i++) {
      if (i < ran) {
        assertThat(results.get(i)).as("call %d", i).containsEntry("result", "w" + i);
      } else {
        assertThat((String) results.get(i).get("error")).as("call %d", i).contains("max_runs_per_reply");
      }
    }
    assertThat(childRuns(runs)).isEqualTo(ran);
  }

  @ParameterizedTest(name = "{0} replies of {1} calls, run cap {2}")
  @CsvSource({"3, 3, 5", "4, 2, 1", "2, 5, 10", "5, 1, 3"})
  void aRunStartsAtMostItsCapOfChildRunsOverAllReplies(int replies, int perReply, int cap) throws Exception {
    child("echo.yaml", """
        input: {word: string}
        nodes: [{id: t, type: transform, template: "{{ input.word }}"}]
        """);
    StringBuilder mock = new StringBuilder();
    for (int i = 0; i < replies; i++) {
      mock.append("      - {tool_calls: ").append(calls("echo", perReply)).append("}\n");
    }
    AgentRuns runs = new AgentRuns().in(dir);
    RunResult r = runs.run("""
        nodes:
          - id: a
            type: agent
            model: "mock:m"
            prompt: "work"
            max_turns: 50
            tools: [{workflow: echo.yaml, max_runs_per_run: %d}]
            mock:
        %s      - "done"
        """.formatted(cap, mock));

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    List<Map<String, Object>> results = AgentRuns.toolCalls(r, "a");
    long ok = results.stream().filter(e -> e.containsKey("result")).count();
    long refused = results.stream().filter(e -> String.valueOf(e.get("error")).contains("budget_exceeded")
        && String.valueOf(e.get("error")).contains("per run")).count();
    assertThat(ok).isEqualTo(Math.min(cap, replies * perReply));
    assertThat(ok + refused).isEqualTo(replies * perReply);
    assertThat(childRuns(runs)).isEqualTo(ok);
  }

  @ParameterizedTest(name = "max_llm_calls {0}, {1} children in one reply")
  @CsvSource({"2, 5", "1, 3", "3, 10", "6, 4", "4, 30"})
  void childrensCallsCountInTheParentsBudgetBeforeTheyAreMade(int maxCalls, int children) throws Exception {
    child("ask.yaml", """
        input: {word: string}
        nodes:
          - {id: q, type: llm, model: "mock:m", prompt: "{{ input.word }}", mock: ["answer"]}
        """);
    AgentRuns runs = new AgentRuns().in(dir);
    RunResult r = runs.run("""
        budget: {max_llm_calls: %d}
        nodes:
          - id: a
            type: agent
            model: "mock:m"
            prompt: "work"
            tools: [{workflow: ask.yaml, max_runs_per_reply: 100}]
            mock:
              - {tool_calls: %s}
              - "done"
        """.formatted(maxCalls, calls("ask", children)));

    long made = callsMade(runs);
    assertThat(made).as("calls made by the run and its children").isLessThanOrEqualTo(maxCalls);
    assertThat(r.usage().llmCalls()).as("the run reports every call of its tree").isEqualTo(made);
    if (1 + children + 1 > maxCalls) {
      assertThat(r.status()).isEqualTo(RunStatus.FAILED);
      assertThat(r.error().code()).isEqualTo(ErrorCode.BUDGET_EXCEEDED.code());
    } else {
      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      assertThat(made).isEqualTo(1 + children + 1);
    }
  }

  /** The tokens every LLM call of the run and its children used, from each run's own journal. */
  private static long tokensUsed(AgentRuns runs) {
    long n = 0;
    for (RunRecord run : runs.engine.store().listRuns()) {
      for (Event e : runs.engine.store().events(run.runId())) {
        if (e instanceof Event.LlmCalled c) {
          n += c.inputTokens() + c.outputTokens();
        }
      }
    }
    return n;
  }

  @ParameterizedTest(name = "max_tokens {0}")
  @CsvSource({"50", "200", "1000", "5000", "20000"})
  void childrensTokensCountInTheParentsTokenBudget(long maxTokens) throws Exception {
    child("ask.yaml", """
        input: {word: string}
        nodes:
          - {id: q, type: llm, model: "mock:m", prompt: "{{ input.word }}", max_tokens: 40,
             mock: [{text: "answer", input_tokens: 30, output_tokens: 40}]}
        """);
    AgentRuns runs = new AgentRuns().in(dir);
    RunResult r = runs.run("""
        budget: {max_tokens: %d}
        nodes:
          - id: a
            type: agent
            model: "mock:m"
            prompt: "work"
            max_tokens: 50
            tools: [{workflow: ask.yaml, max_runs_per_reply: 100}]
            mock:
              - {tool_calls: %s, input_tokens: 20, output_tokens: 10}
              - {text: "done", input_tokens: 20, output_tokens: 10}
        """.formatted(maxTokens, calls("ask", 12)));

    long used = tokensUsed(runs);
    assertThat(used).as("tokens of the run and its children").isLessThanOrEqualTo(maxTokens);
    assertThat(r.usage().totalTokens()).as("the run reports its tree's tokens").isEqualTo(used);
  }

  @Test
  void aChildThatCallsTheWorkflowToolItselfCountsInTheTopRunsBudgetAndCap() throws Exception {
    child("leaf.yaml", """
        input: {word: string}
        nodes:
          - {id: q, type: llm, model: "mock:m", prompt: "{{ input.word }}", mock: ["leaf"]}
        """);
    child("mid.yaml", """
        input: {word: string}
        nodes:
          - id: m
            type: agent
            model: "mock:m"
            prompt: "{{ input.word }}"
            tools: [{workflow: leaf.yaml, max_runs_per_reply: 100, max_runs_per_run: 1000}]
            mock:
              - {tool_calls: %s}
              - "mid done"
        """.formatted(calls("leaf", 6)));
    for (int budget : new int[] {1, 2, 3, 5, 9, 20}) {
      AgentRuns runs = new AgentRuns().in(dir);
      RunResult r = runs.run("""
          budget: {max_llm_calls: %d}
          nodes:
            - id: a
              type: agent
              model: "mock:m"
              prompt: "work"
              tools: [{workflow: mid.yaml, max_runs_per_reply: 100, max_runs_per_run: 1000}]
              mock:
                - {tool_calls: %s}
                - "done"
          """.formatted(budget, calls("mid", 4)));

      long made = callsMade(runs);
      assertThat(made).as("budget %d", budget).isLessThanOrEqualTo(budget);
      assertThat(r.usage().llmCalls()).as("budget %d", budget).isEqualTo(made);
    }
  }

  @Test
  void theRunCapCountsGrandchildrenStartedByChildren() throws Exception {
    child("leaf.yaml", """
        input: {word: string}
        nodes: [{id: t, type: transform, template: "{{ input.word }}"}]
        """);
    child("mid.yaml", """
        input: {word: string}
        nodes:
          - id: m
            type: agent
            model: "mock:m"
            prompt: "{{ input.word }}"
            tools: [{workflow: leaf.yaml, max_runs_per_reply: 100, max_runs_per_run: 7}]
            mock:
              - {tool_calls: %s}
              - "mid done"
        """.formatted(calls("leaf", 5)));
    AgentRuns runs = new AgentRuns().in(dir);
    RunResult r = runs.run("""
        nodes:
          - id: a
            type: agent
            model: "mock:m"
            prompt: "work"
            tools: [{workflow: mid.yaml, max_runs_per_reply: 100, max_runs_per_run: 7}]
            mock:
              - {tool_calls: %s}
              - "done"
        """.formatted(calls("mid", 5)));

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(childRuns(runs)).as("children and grandchildren together").isEqualTo(7);
  }

  @Test
  void providerCallsOfChildrenNeverPassTheParentsBudget() throws Exception {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      for (int i = 0; i < 400; i++) {
        server.enqueue(Reply.text("child answer"));
      }
      child("ask.yaml", """
          input: {word: string}
          nodes:
            - {id: q, type: llm, model: "openai:gpt-4o-mini", prompt: "{{ input.word }}"}
          """);
      AgentRuns runs = new AgentRuns().in(dir).env("OPENAI_BASE_URL", server.baseUrl()).env("OPENAI_API_KEY", "k");
      RunResult r = runs.run("""
          budget: {max_llm_calls: 2}
          prices: {openai: {"gpt-4o-mini": {input: 0.15, output: 0.6}}}
          nodes:
            - id: a
              type: agent
              model: "mock:m"
              prompt: "work"
              tools: [{workflow: ask.yaml, max_runs_per_reply: 300, max_runs_per_run: 300}]
              mock:
                - {tool_calls: %s}
                - "done"
          """.formatted(calls("ask", 300)));

      int provider = server.requests().size();
      assertThat(provider).as("provider calls").isLessThanOrEqualTo(1);
      assertThat(r.usage().llmCalls()).isEqualTo(1 + provider);
      assertThat(r.status()).isEqualTo(RunStatus.FAILED);
      assertThat(r.error().code()).isEqualTo(ErrorCode.BUDGET_EXCEEDED.code());
    }
  }
}
