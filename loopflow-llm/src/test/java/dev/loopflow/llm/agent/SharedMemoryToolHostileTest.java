package dev.loopflow.llm.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.expr.Json;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.MemoryEntry;
import dev.loopflow.core.store.RunStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * shared_memory_read and shared_memory_write called by a hostile model: keys and namespaces that look like paths,
 * patterns, control characters or are too long, values at the limits, namespaces without an owner, and reads of
 * another run's or another workflow's values. Each call either works in its own scope or is the call's error; the
 * run never fails and nothing lands outside the scope.
 */
class SharedMemoryToolHostileTest {
  private final RunStore store = RunStore.inMemory();

  private static Map<String, Object> call(String name, Map<String, Object> arguments) {
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("name", name);
    c.put("arguments", arguments);
    return c;
  }

  private static Map<String, Object> args(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  /**
   * Runs agent {@code node} of workflow {@code name} that makes each call in a turn of its own (calls of one turn
   * run at the same time), then answers "done".
   */
  private RunResult run(String name, String node, String session, List<Map<String, Object>> calls) {
    AgentRuns runs = new AgentRuns(store);
    List<Object> script = new ArrayList<>();
    calls.forEach(c -> script.add(Map.of("tool_calls", List.of(c))));
    script.add("done");
    runs.option("llm.mock_script", Json.parse(Json.compact(Map.of(node, script))));
    RunResult r = runs.run("""
        name: %s
        nodes:
          - id: %s
            type: agent
            model: "mock:m"
            prompt: "remember things"
            %s
            max_turns: 20
            tools: [shared_memory_write, shared_memory_read]
        """.formatted(name, node, session == null ? "" : "session: " + session));
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.output()).isEqualTo("done");
    return r;
  }

  static Stream<Arguments> keys() {
    return Stream.of(
        // keys that work as plain text in their own scope
        Arguments.of("../../etc/passwd", true),
        Arguments.of("..\\..\\x", true),
        Arguments.of("/abs", true),
        Arguments.of("%", true),
        Arguments.of("_", true),
        Arguments.of("%_%\\", true),
        Arguments.of("' OR 1=1 --", true),
        Arguments.of("{{ input }}", true),
        Arguments.of("\u001b[31mred", true),
        Arguments.of("line\nbreak", true),
        Arguments.of("\u0430", true),
        Arguments.of("\uD83D\uDE00", true),
        Arguments.of("k".repeat(512), true),
        Arguments.of("\u00e9".repeat(512), true),
        Arguments.of(" ", true),
        // keys no store keeps exactly, or over the limits: the call's error
        Arguments.of("", false),
        Arguments.of("a\u0000b", false),
        Arguments.of("\u0000", false),
        Arguments.of("\ud800", false),
        Arguments.of("x\udc00", false),
        Arguments.of("k".repeat(513), false),
        Arguments.of("k".repeat(10_000), false),
        Arguments.of("\u4e2d".repeat(400), false)); // 400 characters, 1200 bytes as UTF-8
  }

  @ParameterizedTest(name = "[{index}] {1}")
  @MethodSource("keys")
  void aHostileKeyIsStoredAsTextInItsScopeOrIsTheCallsError(String key, boolean works) {
    RunResult r = run("mem", "a", null, List.of(
        call("shared_memory_write", args("namespace", "global", "key", key, "value", "v")),
        call("shared_memory_read", args("namespace", "global", "key", key)),
        call("shared_memory_read", args("namespace", "global", "key", "%"))));

    List<Map<String, Object>> calls = AgentRuns.toolCalls(r, "a");
    if (works) {
      assertThat(calls.get(0)).containsKey("result").doesNotContainKey("error");
      assertThat(calls.get(1)).containsEntry("result", "v");
      assertThat(store.listMemory("", "GLOBAL", "")).extracting(MemoryEntry::key).containsExactly(key);
      // a pattern character is not a pattern: '%' reads only a key that is '%'
      if (!key.equals("%")) {
        assertThat((String) calls.get(2).get("error")).startsWith("shared_memory_key_not_found: ");
      }
    } else {
      assertThat(calls.get(0)).containsKey("error").doesNotContainKey("result");
      assertThat((String) calls.get(0).get("error")).doesNotContain("Exception").contains("shared memory: ")
          .contains("key");
      assertThat(calls.get(1)).containsKey("error");
      assertThat(store.listMemory("", "GLOBAL", "")).isEmpty();
    }
  }

  static Stream<Arguments> namespaces() {
    return Stream.of(
        Arguments.of("WORKFLOW"), Arguments.of("Global"), Arguments.of(" global"), Arguments.of("../global"),
        Arguments.of(""), Arguments.of("global\u0000"), Arguments.of("sessions"), Arguments.of("*"),
        Arguments.of("run_123"), Arguments.of("agent/other/x"));
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @MethodSource("namespaces")
  void aNamespaceThatIsNotOneOfTheFourIsTheCallsError(String namespace) {
    RunResult r = run("mem", "a", null, List.of(
        call("shared_memory_write", args("namespace", namespace, "key", "k", "value", "v")),
        call("shared_memory_read", args("namespace", namespace, "key", "k"))));
    assertThat(AgentRuns.toolCalls(r, "a")).allSatisfy(c -> assertThat((String) c.get("error"))
        .contains("do not match"));
    for (String ns : List.of("WORKFLOW", "SESSION", "AGENT", "GLOBAL")) {
      assertThat(store.listMemory("", ns, "")).isEmpty();
    }
  }

  @Test
  void aKeyNoStoreCanHoldIsTheToolsOwnError_bugTheErrorNamedAJavaException() {
    RunResult r = run("mem", "a", null, List.of(
        call("shared_memory_write", args("namespace", "workflow", "key", "\u4e2d".repeat(400), "value", "v")),
        call("shared_memory_write", args("namespace", "workflow", "key", "a\u0000", "value", "v"))));
    assertThat(AgentRuns.toolCalls(r, "a")).extracting(c -> c.get("error")).containsExactly(
        "node_failed: shared memory: key has 1200 bytes as UTF-8; the limit is 1024",
        "node_failed: shared memory: key contains a NUL character at index 1; a key is text without NUL");
  }

  @Test
  void aValueThatIsNotTextIsRefused_bugItReadBackWithAQuestionMark() {
    RunResult r = run("mem", "a", null, List.of(
        call("shared_memory_write", args("namespace", "global", "key", "k", "value", "x\ud800y")),
        call("shared_memory_read", args("namespace", "global", "key", "k"))));
    List<Map<String, Object>> calls = AgentRuns.toolCalls(r, "a");
    assertThat(calls.get(0)).containsEntry("error", "node_failed: shared memory: the value for 'k' contains an "
        + "unpaired surrogate at index 1, which is not text");
    assertThat((String) calls.get(1).get("error")).startsWith("shared_memory_key_not_found: ");
  }

  @Test
  void theSessionNamespaceWithoutASessionIsTheCallsError() {
    RunResult r = run("mem", "a", null, List.of(
        call("shared_memory_write", args("namespace", "session", "key", "k", "value", "v")),
        call("shared_memory_read", args("namespace", "session", "key", "k"))));
    assertThat(AgentRuns.toolCalls(r, "a")).allSatisfy(c -> assertThat((String) c.get("error"))
        .contains("has no session"));
  }

  @Test
  void valuesStayInTheirScopeAcrossRunsWorkflowsAndSessions() {
    List<Map<String, Object>> writes = new ArrayList<>();
    for (String ns : List.of("workflow", "session", "agent", "global")) {
      writes.add(call("shared_memory_write", args("namespace", ns, "key", "k", "value", ns + " of the first")));
    }
    RunResult first = run("one", "x", "chat", writes);

    // Another run of another workflow, with an agent and a session of the same names.
    List<Map<String, Object>> reads = new ArrayList<>();
    for (String ns : List.of("workflow", "session", "agent", "global")) {
      reads.add(call("shared_memory_read", args("namespace", ns, "key", "k")));
    }
    RunResult other = run("two", "x", "chat", reads);
    List<Map<String, Object>> got = AgentRuns.toolCalls(other, "x");
    assertThat(got.get(0).get("error")).asString().startsWith("shared_memory_key_not_found: ");
    assertThat(got.get(1).get("error")).asString().startsWith("shared_memory_key_not_found: ");
    assertThat(got.get(2).get("error")).asString().startsWith("shared_memory_key_not_found: ");
    // GLOBAL is every run's on the store, by definition
    assertThat(got.get(3)).containsEntry("result", "global of the first");

    // The same workflow again: its agent namespace is shared across its runs; workflow and session are not.
    RunResult again = run("one", "x", "chat", reads);
    List<Map<String, Object>> same = AgentRuns.toolCalls(again, "x");
    assertThat(same.get(0).get("error")).asString().startsWith("shared_memory_key_not_found: ");
    assertThat(same.get(1).get("error")).asString().startsWith("shared_memory_key_not_found: ");
    assertThat(same.get(2)).containsEntry("result", "agent of the first");
    assertThat(first.runId()).isNotEqualTo(again.runId());
  }

  static Stream<Arguments> values() {
    return Stream.of(
        Arguments.of("v".repeat(250_000), true),
        Arguments.of("{{ input }}{% for x in range(10**9) %}", true),
        Arguments.of("\u0000\u001b[2J\r\n\u2028", true),
        Arguments.of("\ud800 is not text", false),
        Arguments.of(Map.of("nested", List.of(Map.of("deep", true))), true),
        Arguments.of(List.of(1, 2, 3), true),
        Arguments.of(12.5, true),
        Arguments.of("v".repeat(300_000), false)); // over what one call's arguments may hold
  }

  @ParameterizedTest(name = "[{index}]")
  @MethodSource("values")
  void aHostileValueIsStoredExactlyOrIsTheCallsError(Object value, boolean works) {
    RunResult r = run("mem", "a", null, List.of(
        call("shared_memory_write", args("namespace", "global", "key", "k", "value", value)),
        call("shared_memory_read", args("namespace", "global", "key", "k"))));
    List<Map<String, Object>> calls = AgentRuns.toolCalls(r, "a");
    if (works) {
      String expected = value instanceof String s ? s : Json.compact(value);
      assertThat(calls.get(0)).containsKey("result");
      int max = 64 * 1024;
      // a result longer than 64 KiB characters reaches the model cut, saying how much was cut
      assertThat(calls.get(1)).containsEntry("result", expected.length() <= max ? expected
          : expected.substring(0, max) + "\n[cut: " + (expected.length() - max) + " more characters]");
    } else {
      assertThat((String) calls.get(0).get("error")).containsAnyOf("the limit is", "unpaired surrogate");
      assertThat(store.listMemory("", "GLOBAL", "")).isEmpty();
    }
  }
}
