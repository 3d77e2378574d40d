package dev.loopflow.llm.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.expr.Json;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.testkit.HttpMcpServer;
import dev.loopflow.testkit.StdioMcpServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MCP servers' tools: a real stdio server process (the testkit's, in a new JVM) and the same tools over streamable
 * HTTP. The server starts with the execution, its tools are offered next to the node's own, calls reach it, and it
 * is stopped when the execution ends, whatever the outcome.
 */
class McpToolsTest {
  @TempDir
  Path dir;

  private String stdio(String extra) {
    return "{command: " + Json.compact(StdioMcpServer.command()) + extra + "}";
  }

  @Test
  void aStdioServersToolsAreCalledAndItsErrorsReported() throws Exception {
    Path log = dir.resolve("calls.log");
    AgentRuns runs = new AgentRuns().in(dir);
    RunResult r = runs.run("""
        nodes:
          - id: calc
            type: agent
            model: "mock:m"
            prompt: "add"
            tools: [shared_memory_read]
            mcp:
              - %s
            mock:
              - tool_calls:
                  - {name: add, arguments: {a: 2, b: 40}}
                  - {name: echo, arguments: {text: "hi there"}}
                  - {name: env, arguments: {name: MCP_TEST_SECRET}}
              - tool_calls:
                  - {name: fail, arguments: {}}
                  - {name: add, arguments: {a: "two", b: 1}}
              - "the sum is 42"
        """.formatted(stdio(", env: {MCP_TEST_LOG: \"" + log + "\", MCP_TEST_SECRET: s3cr3t}")));

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    List<Map<String, Object>> calls = AgentRuns.toolCalls(r, "calc");
    assertThat(calls.get(0)).containsEntry("result", "42");
    assertThat(calls.get(1)).containsEntry("result", "hi there");
    assertThat(calls.get(2)).containsEntry("result", "s3cr3t");
    assertThat((String) calls.get(3).get("error")).contains("tool failed on purpose");
    assertThat((String) calls.get(4).get("error")).contains("add needs numbers");
    assertThat(Files.readAllLines(log)).hasSize(5);
  }

  @Test
  void theServerRunsInTheWorkingDirectoryWithTheRunsEnvironmentAndIsStoppedAfterwards() throws Exception {
    AgentRuns runs = new AgentRuns().in(dir).env("FROM_THE_RUN", "run-value");
    long before = javaProcesses();
    RunResult r = runs.run("""
        nodes:
          - id: a
            type: agent
            model: "mock:m"
            prompt: "env"
            mcp: [%s]
            mock:
              - tool_calls: [{name: env, arguments: {name: FROM_THE_RUN}}, {name: env, arguments: {name: HOME_NOT_SET_X}}]
              - done
        """.formatted(stdio("")));

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(AgentRuns.toolCalls(r, "a")).extracting(c -> c.get("result")).containsExactly("run-value", "(unset)");
    assertThat(javaProcesses()).isEqualTo(before);
  }

  @Test
  void theToolsOfTheServerAreOfferedAfterTheNodesOwn() {
    AgentRuns runs = new AgentRuns().in(dir);
    RunResult r = runs.run("""
        nodes:
          - id: a
            type: agent
            model: "mock:m"
            prompt: "list"
            tools: [request_restart]
            mcp: [%s]
            mock:
              - tool_calls: [{name: nope, arguments: {}}]
              - done
        """.formatted(stdio("")));

    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat((String) AgentRuns.toolCalls(r, "a").get(0).get("error"))
        .endsWith("the tools are: request_restart, add, echo, env, fail, sleep");
  }

  @Test
  void aCallThatOutlivesTheServersTimeoutIsAnErrorAndTheRunGoesOn() {
    AgentRuns runs = new AgentRuns().in(dir);
    RunResult r = runs.run("""
        nodes:
          - id: a
            type: agent
            model: "mock:m"
            prompt: "sleep"
            mcp: [%s]
            mock:
              - tool_calls: [{name: sleep, arguments: {millis: 20000}}]
              - "gave up"
        """.formatted(stdio(", timeout: 300ms")));

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat((String) AgentRuns.toolCalls(r, "a").get(0).get("error")).contains("did not answer within");
  }

  @Test
  void aServerThatCannotStartFailsTheNodeNamingIt() {
    AgentRuns runs = new AgentRuns().in(dir);
    RunResult r = runs.run("""
        nodes:
          - id: a
            type: agent
            model: "mock:m"
            prompt: "x"
            mcp: [{command: ["/nonexistent/mcp-server-binary", "--stdio"]}]
        """);

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("node_failed");
    assertThat(r.error().message()).contains("MCP server /nonexistent/mcp-server-binary --stdio did not start");
  }

  @Test
  void aServerThatExitsAtOnceFailsTheNodeWithWhatItSaid() {
    AgentRuns runs = new AgentRuns().in(dir);
    RunResult r = runs.run("""
        nodes:
          - id: a
            type: agent
            model: "mock:m"
            prompt: "x"
            mcp: [{command: [bash, -c, "echo 'cannot open config' >&2; exit 3"]}]
        """);

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().message()).contains("did not start").contains("cannot open config");
  }

  @Test
  void aStreamableHttpServersToolsAreCalled() {
    try (HttpMcpServer server = HttpMcpServer.start()) {
      AgentRuns runs = new AgentRuns().in(dir);
      RunResult r = runs.run("""
          nodes:
            - id: a
              type: agent
              model: "mock:m"
              prompt: "add"
              mcp: [{url: "%s"}]
              mock:
                - tool_calls: [{name: add, arguments: {a: 1.5, b: 2}}, {name: echo, arguments: {text: ok}}]
                - done
          """.formatted(server.url()));

      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      assertThat(AgentRuns.toolCalls(r, "a")).extracting(c -> c.get("result")).containsExactly("3.5", "ok");
      assertThat(server.methods()).contains("initialize", "tools/list").filteredOn("tools/call"::equals).hasSize(2);
    }
  }

  @Test
  void anHttpServerThatIsNotThereFailsTheNode() {
    AgentRuns runs = new AgentRuns().in(dir);
    RunResult r = runs.run("""
        nodes:
          - id: a
            type: agent
            model: "mock:m"
            prompt: "x"
            mcp: [{url: "http://127.0.0.1:1/mcp"}]
        """);

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().message()).contains("MCP server http://127.0.0.1:1/mcp did not start");
  }

  /** Live JVMs started by this test JVM (the stdio servers). */
  private static long javaProcesses() {
    return ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).count();
  }
}
