package dev.loopflow.llm.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.event.Event;
import dev.loopflow.core.event.Events;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.secrets.Redactor;
import dev.loopflow.core.store.MemoryEntry;
import dev.loopflow.core.store.RunCommand;
import dev.loopflow.core.store.RunStore;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Pipelines whose stages' models (the mock provider playing a hostile model) call request_restart and the shared
 * memory tools with hostile arguments, flood the bus, echo credentials, and restart under a budget.
 */
class PipelineToolsHostileTest {
  private final RunStore store = RunStore.inMemory();
  private static final String KEY = "q7Zp2LmX9vR4tW8nK3cY";

  private static final String PIPELINE = """
      name: tools
      workflow_pattern:
        iterative:
          pipeline:
            stages:
              - {agent_id: a, prompt_template: "a {{ loop.restart.reason }}"}
              - {agent_id: b, prompt_template: "b {{previous}}"}
          max_iterations: MAX
          restart_policy: {enabled: true, max_validation_retries: 0, keep_shared_memory: true}
      agents:
        b: {max_turns: 5, tools: [shared_memory_write]}
      """;

  private static Map<String, Object> call(String name, Object arguments) {
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("name", name);
    c.put("arguments", arguments);
    return c;
  }

  private AgentRuns runs;

  /** Runs the pipeline with b's model replying {@code b}'s script (a answers "A"). */
  private RunResult run(int max, String extra, List<Object> b) {
    runs = new AgentRuns(store).env("MY_API_KEY", KEY);
    runs.option("llm.mock_script", Json.parse(Json.compact(Map.of("a", List.of("A"), "b", b))));
    return runs.run(PIPELINE.replace("MAX", Integer.toString(max)) + extra);
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> requests(RunResult r) {
    return (List<Map<String, Object>>) r.pipeline().get("restart_requests");
  }

  private void everyRequestAnswered(RunResult r) {
    assertThat(store.commands(r.runId())).allSatisfy(c -> assertThat(c.response()).isNotNull());
  }

  static Stream<Arguments> hostileRestartCalls() {
    Map<String, Object> many = new LinkedHashMap<>();
    IntStream.range(0, 10_000).forEach(i -> many.put("p" + i, "v"));
    return Stream.of(
        // refused by the policy: the call itself worked, the engine decides after b
        Arguments.of(Map.of("target_stage_id", "../a", "reason", "r"), "restart_validation_failed"),
        Arguments.of(Map.of("target_stage_id", "a\u0000", "reason", "r"), "restart_validation_failed"),
        Arguments.of(Map.of("target_stage_id", "\u0430", "reason", "r"), "restart_validation_failed"),
        Arguments.of(Map.of("target_stage_id", "\u001b[31ma\n", "reason", "r"), "restart_validation_failed"),
        Arguments.of(Map.of("target_stage_id", "restart", "reason", "r"), "restart_validation_failed"),
        Arguments.of(Map.of("target_stage_id", "b", "reason", "r"), "restart_validation_failed"),
        Arguments.of(Map.of("target_stage_id", "", "reason", ""), "restart_validation_failed"),
        Arguments.of(Map.of("target_stage_id", "x".repeat(100_000), "reason", "r"), "restart_validation_failed"),
        // accepted, bounded
        Arguments.of(Map.of("target_stage_id", "a", "reason", "{{ previous }}".repeat(1000), "parameters", many),
            "accepted"),
        Arguments.of(Map.of("target_stage_id", "a", "reason", "r", "parameters", Map.of("k", "\u0000\ud800")),
            "accepted"),
        // not a valid call: the model is told, nothing is published
        Arguments.of(Map.of("target_stage_id", 5, "reason", "r"), "do not match"),
        Arguments.of(Map.of("target_stage_id", "a"), "do not match"),
        Arguments.of(Map.of("target_stage_id", "a", "reason", "r", "parameters", Map.of("k", Map.of("n", 1))),
            "do not match"),
        Arguments.of(Map.of("target_stage_id", "a", "reason", "r", "parameters", "k=v"), "do not match"),
        Arguments.of(Map.of("target_stage_id", "a", "reason", "r", "requester_stage_id", "a"), "do not match"),
        Arguments.of("{\"target_stage_id\": \"a\", \"reason\": \"r\"} and more", "must be a JSON object"));
  }

  @ParameterizedTest(name = "[{index}] {1}")
  @MethodSource("hostileRestartCalls")
  void aHostileRequestRestartCallIsRefusedBoundedOrTheCallsError(Object arguments, String outcome) {
    RunResult r = run(3, "", List.of(Map.of("tool_calls", List.of(call("request_restart", arguments))), "B"));

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    List<Map<String, Object>> calls = AgentRuns.toolCalls(r, "b");
    switch (outcome) {
      case "accepted" -> {
        assertThat(requests(r)).singleElement().satisfies(q -> assertThat(q).containsEntry("success", true));
        RunCommand c = store.commands(r.runId()).get(0);
        assertThat((Map<?, ?>) c.payload().get("parameters")).hasSizeLessThanOrEqualTo(32);
        assertThat((String) c.payload().get("reason")).hasSizeLessThanOrEqualTo(4096);
      }
      case "restart_validation_failed" -> {
        assertThat(calls).singleElement().satisfies(c -> assertThat(c).containsKey("result"));
        assertThat(requests(r)).singleElement().satisfies(q -> assertThat(q.get("error").toString())
            .contains("restart_validation_failed"));
      }
      default -> {
        assertThat(calls).singleElement().satisfies(c -> assertThat((String) c.get("error")).contains(outcome));
        assertThat(requests(r)).isEmpty();
        assertThat(store.commands(r.runId())).isEmpty();
      }
    }
    everyRequestAnswered(r);
  }

  @Test
  void aReplyWithAThousandRestartCallsGetsEachAnsweredAndOneAccepted() {
    List<Map<String, Object>> flood = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      flood.add(call("request_restart", Map.of("target_stage_id", i % 2 == 0 ? "a" : "nowhere", "reason", "r" + i)));
    }
    RunResult r = run(3, "", List.of(Map.of("tool_calls", flood), "B"));

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(runs.steps()).filteredOn(s -> "tool".equals(s.get("type"))).hasSize(1000)
        .allSatisfy(s -> assertThat(s).containsKey("result"));
    assertThat(requests(r)).hasSize(1000);
    assertThat(requests(r)).filteredOn(q -> Boolean.TRUE.equals(q.get("success"))).hasSize(1);
    assertThat(r.pipeline()).containsEntry("iterations_executed", 2);
    everyRequestAnswered(r);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 7})
  void aPipelineRestartingEveryIterationStopsAtItsLlmCallBudget(int maxCalls) {
    // b asks for a restart in every iteration: every iteration is a (1 call) + b (2 calls)
    List<Object> b = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      b.add(Map.of("tool_calls", List.of(call("request_restart", Map.of("target_stage_id", "a", "reason", "again")))));
      b.add("B");
    }
    RunResult r = run(100, "budget: {max_llm_calls: " + maxCalls + "}\n", b);
    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("budget_exceeded");
    assertThat(runs.llmCalls()).isEqualTo(maxCalls);
    assertThat(r.usage().llmCalls()).isEqualTo(maxCalls);
    assertThat(r.pipeline()).containsEntry("iterations_executed", maxCalls / 3 + 1);
    // A failed run keeps a request whose node did not complete for its resume (which answers it as superseded).
    assertThat(store.commands(r.runId())).allSatisfy(c -> assertThat(c.response() != null
        || r.error().path().equals(c.payload().get("origin"))).isTrue());
  }

  @Test
  void aCredentialAModelEchoesIntoToolArgumentsIsMaskedEverywhereItIsWritten() {
    RunResult r = run(3, "", List.of(
        Map.of("tool_calls", List.of(
            call("shared_memory_write", Map.of("namespace", "global", "key", "k", "value", "the key is " + KEY)),
            call("request_restart", Map.of("target_stage_id", "a", "reason", "use " + KEY, "parameters",
                Map.of("api_key", KEY))))),
        "the key was " + KEY));

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    StringBuilder all = new StringBuilder(Json.compact(r.toJson()));
    runs.events.forEach(e -> all.append(Events.toJson(e)));
    assertThat(runs.events).filteredOn(Event.NodeStep.class::isInstance).isNotEmpty();
    store.events(r.runId()).forEach(e -> all.append(Events.toJson(e)));
    store.nodeExecutions(r.runId()).forEach(all::append);
    store.commands(r.runId()).forEach(c -> all.append(c.payload()).append(c.response()));
    List<MemoryEntry> memory = new ArrayList<>(store.listMemory("", "GLOBAL", ""));
    memory.addAll(store.listMemory(r.runId(), "WORKFLOW", ""));
    assertThat(memory).isNotEmpty();
    memory.forEach(m -> all.append(new String(m.compressed() ? gunzip(m.value()) : m.value(),
        StandardCharsets.UTF_8)).append(m.metadata()));
    assertThat(all.toString()).doesNotContain(KEY).contains(Redactor.MASK);
  }

  private static byte[] gunzip(byte[] b) {
    try (var in = new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(b))) {
      return in.readAllBytes();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
