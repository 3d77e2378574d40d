package dev.loopflow.llm.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.expr.Json;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.testkit.StdioMcpServer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The calls of one reply run at the same time and their results come back in the order asked; a node stopped by
 * its timeout stops the tools still running and the MCP servers it started.
 */
class ParallelToolCallsTest {
  @TempDir
  Path dir;

  /** Creates {@code mine}, then waits (at most 15 s) for {@code theirs}: both can only see each other concurrently. */
  private static String rendezvous(String mine, String theirs, String sleepFirst) {
    return "sleep " + sleepFirst + "; touch " + mine + "; i=0; while [ ! -f " + theirs + " ] && [ $i -lt 150 ]; do "
        + "sleep 0.1; i=$((i+1)); done; [ -f " + theirs + " ] && echo " + mine + "-saw-" + theirs;
  }

  @Test
  void callsOfOneReplyRunConcurrentlyAndTheirResultsKeepTheOrderAsked() {
    String calls = Json.compact(List.of(
        Map.of("name", "shell", "arguments", Map.of("command", rendezvous("a", "b", "0.5"))),
        Map.of("name", "shell", "arguments", Map.of("command", rendezvous("b", "a", "0")))));
    RunResult r = new AgentRuns().in(dir).run("""
        nodes:
          - id: a
            type: agent
            model: "mock:m"
            prompt: "meet"
            tools: [{shell: {allow: true, timeout: 30s}}]
            mock:
              - {tool_calls: %s}
              - "met"
        """.formatted(calls));

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    List<Map<String, Object>> results = AgentRuns.toolCalls(r, "a");
    assertThat(results.stream().map(c -> (Object) ((Map<?, ?>) c.get("result")).get("stdout")).toList())
        .containsExactly("a-saw-b\n", "b-saw-a\n");
  }

  @Test
  void aNodeTimeoutStopsItsRunningToolsAndItsMcpServer() {
    RunResult r = new AgentRuns().in(dir).run("""
        nodes:
          - id: a
            type: agent
            model: "mock:m"
            prompt: "wait"
            timeout: 3s
            tools: [{shell: {allow: true, timeout: 10m}}]
            mcp: [{command: %s}]
            mock:
              - tool_calls:
                  - {name: shell, arguments: {command: "sleep 300"}}
                  - {name: sleep, arguments: {millis: 300000}}
        """.formatted(Json.compact(StdioMcpServer.command())));

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("timeout");
    // The run's result is settled when the timeout fires; the node's thread then stops its tools and servers.
    assertThat(leftAfter(java.time.Duration.ofSeconds(20))).isEmpty();
  }

  /** The live child processes once none is left, or when {@code limit} has passed. */
  private static List<String> leftAfter(java.time.Duration limit) {
    long end = System.nanoTime() + limit.toNanos();
    List<String> left;
    do {
      left = ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
          .map(p -> p.pid() + " " + p.info().commandLine().orElse("?")).toList();
      if (left.isEmpty()) {
        return left;
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return left;
      }
    } while (System.nanoTime() < end);
    return left;
  }
}
