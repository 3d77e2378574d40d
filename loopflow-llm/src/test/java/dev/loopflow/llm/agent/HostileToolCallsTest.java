package dev.loopflow.llm.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.expr.Json;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Tool calls a model invents or garbles: each goes back to the model as the call's error, the run goes on to the
 * model's answer, and nothing runs (no shared memory written, no file created, no process started).
 */
class HostileToolCallsTest {
  @TempDir
  Path dir;

  static Stream<Arguments> calls() {
    String marker = "touch pwned";
    return Stream.of(
        // names that name no tool
        Arguments.of("unknown name", "delete_everything", "{}", "there is no tool named"),
        Arguments.of("path characters", "../../../bin/sh", "{\"command\":\"" + marker + "\"}", "there is no tool named"),
        Arguments.of("shell metacharacters", "shared_memory_write; " + marker, "{}", "there is no tool named"),
        Arguments.of("command substitution", "$(" + marker + ")", "{}", "there is no tool named"),
        Arguments.of("backticks", "`" + marker + "`", "{}", "there is no tool named"),
        Arguments.of("a tool not offered", "shell", "{\"command\":\"" + marker + "\"}", "there is no tool named"),
        Arguments.of("case differs", "Shared_Memory_Write", "{\"key\":\"k\",\"value\":\"v\"}", "there is no tool named"),
        Arguments.of("empty name", "", "{}", "there is no tool named"),
        Arguments.of("NUL and newline", "shared_memory_write\u0000\n", "{\"key\":\"k\",\"value\":\"v\"}",
            "there is no tool named"),
        Arguments.of("huge name", "x".repeat(20_000), "{}", "there is no tool named"),
        Arguments.of("unicode lookalike", "shared_memory_wr\u0456te", "{\"key\":\"k\",\"value\":\"v\"}",
            "there is no tool named"),
        // arguments that are not a JSON object
        Arguments.of("not JSON", "shared_memory_write", "key=k value=v", "must be a JSON object"),
        Arguments.of("truncated JSON", "shared_memory_write", "{\"key\": \"k\", \"value\": ", "must be a JSON object"),
        Arguments.of("a JSON array", "shared_memory_write", "[\"k\", \"v\"]", "must be a JSON object"),
        Arguments.of("a JSON string", "shared_memory_write", "\"{\\\"key\\\":\\\"k\\\"}\"", "must be a JSON object"),
        Arguments.of("JSON null", "shared_memory_write", "null", "must be a JSON object"),
        Arguments.of("deep nesting", "shared_memory_write", "[".repeat(5000) + "]".repeat(5000), "must be a JSON object"),
        Arguments.of("huge arguments", "shared_memory_write", "{\"key\":\"k\",\"value\":\"" + "v".repeat(300_000) + "\"}",
            "the limit is"),
        // objects that do not match the tool's parameters
        Arguments.of("wrong type", "shared_memory_write", "{\"key\": 5, \"value\": \"v\"}", "do not match"),
        Arguments.of("missing required", "shared_memory_write", "{\"value\": \"v\"}", "do not match"),
        Arguments.of("unknown argument", "shared_memory_write", "{\"key\":\"k\",\"value\":\"v\",\"command\":\""
            + marker + "\"}", "do not match"),
        Arguments.of("namespace not allowed", "shared_memory_write",
            "{\"namespace\":\"../../etc\",\"key\":\"k\",\"value\":\"v\"}", "do not match"),
        Arguments.of("template in a value is data", "shared_memory_read", "{\"key\":\"{{ input }}$(" + marker + ")\"}",
            "shared_memory_key_not_found"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("calls")
  void aBadCallIsTheCallsErrorAndRunsNothing(String label, String name, String arguments, String error)
      throws Exception {
    AgentRuns runs = new AgentRuns().in(dir);
    Map<String, Object> call = new LinkedHashMap<>();
    call.put("name", name);
    call.put("arguments", arguments);
    String script = Json.compact(Map.of("a", List.of(Map.of("tool_calls", List.of(call)), "recovered")));
    runs.option("llm.mock_script", Json.parse(script));

    RunResult r = runs.run("""
        nodes:
          - id: a
            type: agent
            model: "mock:m"
            prompt: "do something"
            tools: [shared_memory_write, shared_memory_read]
        """);

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.output()).isEqualTo("recovered");
    List<Map<String, Object>> calls = AgentRuns.toolCalls(r, "a");
    assertThat(calls).singleElement().satisfies(c -> {
      assertThat((String) c.get("error")).contains(error);
      assertThat(c).doesNotContainKey("result");
    });
    assertThat(runs.engine.store().listMemory(r.runId(), "WORKFLOW", "")).isEmpty();
    assertThat(Files.exists(dir.resolve("pwned"))).isFalse();
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files).isEmpty();
    }
  }
}
