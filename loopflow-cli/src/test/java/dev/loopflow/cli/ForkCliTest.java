package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loopflow.testkit.FakeOpenAiServer;
import dev.loopflow.testkit.FakeServer;
import dev.loopflow.testkit.Reply;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code loopflow fork} through the real command line, with an OpenAI-compatible server that counts the requests it
 * gets: a fork reuses what its origin journaled before its point and sends only what executes from it on.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ForkCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private record Result(int exit, String out, String err) {
    JsonNode json() throws Exception {
      return JSON.readTree(out);
    }
  }

  private Result exec(FakeServer server, String... args) throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> cmd = new ArrayList<>(List.of(java, "-cp", TestJvm.classPathOption(), "dev.loopflow.cli.Main"));
    cmd.addAll(List.of(args));
    cmd.addAll(List.of("--store", "sqlite:" + dir.resolve("runs.db")));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
    pb.environment().put("OPENAI_BASE_URL", server.baseUrl());
    pb.environment().put("OPENAI_API_KEY", "sk-test-fork-cli");
    pb.environment().put("LOOPFLOW_PLAIN_PROGRESS", "1");
    pb.environment().put("LOOPFLOW_HOME", dir.resolve("home").toString());
    pb.environment().remove("LOOPFLOW_STORE");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    return new Result(p.exitValue(), out, err);
  }

  private static long chats(FakeServer server) {
    return server.requests().stream().filter(r -> r.path().endsWith("/chat/completions")).count();
  }

  @Test
  void aFourPassGroupOfLlmCallsForkedAtPassThreeSendsExactlyTwoRequests() throws Exception {
    try (FakeServer server = FakeOpenAiServer.start()) {
      Path wf = dir.resolve("drafts.yaml");
      Files.writeString(wf, """
          name: drafts
          nodes:
            - id: refine
              loop_group:
                max_iterations: 4
                nodes:
                  - id: draft
                    type: llm
                    model: openai:gpt-4o-mini
                    prompt: "Improve the draft, pass {{ loop.iteration }}"
          output: "{{ refine.output }}"
          """);
      server.defaultReply(Reply.text("a draft"));
      Result first = exec(server, "run", wf.toString(), "--run-id", "origin", "--json", "--no-stream");
      assertThat(first.exit()).as(first.err()).isZero();
      assertThat(chats(server)).isEqualTo(4);

      Result plan = exec(server, "fork", "origin", "--at", "refine:3", "--dry-run");
      assertThat(plan.exit()).as(plan.err()).isZero();
      assertThat(chats(server)).as("a dry run calls nothing").isEqualTo(4);
      assertThat(plan.out()).contains("reuses 2 executions (2 LLM calls").contains("refine[1].draft")
          .contains("refine[2].draft").contains("loop 'refine' from pass 3 (at most 2 passes)")
          .contains("at most: 2 LLM calls");
      assertThat(exec(server, "runs", "--json").out()).doesNotContain("\"run_id\":\"run_");

      server.defaultReply(Reply.text("a better draft"));
      Result fork = exec(server, "fork", "origin", "--at", "refine:3", "--run-id", "forked", "--json",
          "--no-stream");
      assertThat(fork.exit()).as(fork.err()).isZero();
      assertThat(chats(server)).as("exactly passes 3 and 4").isEqualTo(6);
      JsonNode r = fork.json();
      assertThat(r.get("status").asText()).isEqualTo("completed");
      assertThat(r.get("output").asText()).isEqualTo("a better draft");
      assertThat(r.at("/forked_from/run_id").asText()).isEqualTo("origin");
      assertThat(r.at("/forked_from/at").asText()).isEqualTo("refine:3");
      assertThat(r.at("/usage/llm_calls").asInt()).as("reused calls are not the fork's").isEqualTo(2);
      assertThat(r.at("/forked_from/reused_usage/llm_calls").asInt()).isEqualTo(2);

      Result show = exec(server, "show", "forked");
      assertThat(show.out()).contains("forked from origin at refine:3").contains("(reused)");
      assertThat(exec(server, "show", "forked", "--json").json().at("/forked_from/run_id").asText())
          .isEqualTo("origin");
      assertThat(exec(server, "show", "origin").out()).contains("fork: forked at refine:3");
      assertThat(exec(server, "show", "origin", "--json").json().at("/forks/0/run_id").asText())
          .isEqualTo("forked");
      assertThat(exec(server, "runs").out()).contains("fork of origin at refine:3");
    }
  }

  @Test
  void aWhileLoopCounterForkedAtPassThreeWithAnEditedCountEndsWithIt() throws Exception {
    try (FakeServer server = FakeOpenAiServer.start()) {
      Path wf = dir.resolve("counter.yaml");
      Files.writeString(wf, """
          name: counter
          input:
            count: integer
          nodes:
            - id: count_loop
              type: while_loop
              max_iterations: 10
              condition: "state.count < 5"
              body:
                - id: increment
                  run: |
                    return { count = state.count + 1 }
          output: "{{ state.count }}"
          """);
      Result first = exec(server, "run", wf.toString(), "--input", "count=0", "--run-id", "c1", "--json");
      assertThat(first.exit()).as(first.err()).isZero();
      assertThat(first.json().at("/state/count").asInt()).isEqualTo(5);

      Result fork = exec(server, "fork", "c1", "--at", "count_loop:3", "--set", "state.count=100", "--json");
      assertThat(fork.exit()).as(fork.err()).isZero();
      assertThat(fork.json().at("/state/count").asInt()).isEqualTo(100);
      assertThat(fork.json().get("output").asText()).isEqualTo("100");
    }
  }

  @Test
  void refusalsAreOneLineWithTheUsageStatus() throws Exception {
    try (FakeServer server = FakeOpenAiServer.start()) {
      Path wf = dir.resolve("counter.yaml");
      Files.writeString(wf, """
          name: counter
          nodes:
            - id: count_loop
              type: while_loop
              max_iterations: 3
              condition: "true"
              on_exhausted: continue
              body:
                - id: increment
                  run: |
                    return { count = (state.count or 0) + 1 }
          """);
      assertThat(exec(server, "run", wf.toString(), "--run-id", "c1").exit()).isZero();
      String[][] cases = {
          {"--at", "count_loop:9"}, {"--at", "nope:1"}, {"--at", "count_loop:0"}, {"--at", "a b"},
          {"--at", "count_loop:1", "--set", "x=1"}, {"--at", "count_loop:1", "--set", "nope"},
          {"--at", "count_loop:1", "--set", "ghost.output=1"}};
      for (String[] c : cases) {
        List<String> args = new ArrayList<>(List.of("fork", "c1"));
        args.addAll(List.of(c));
        Result r = exec(server, args.toArray(String[]::new));
        assertThat(r.exit()).as(String.join(" ", c) + ": " + r.err()).isEqualTo(2);
        assertThat(r.err().strip().lines().filter(l -> l.startsWith("loopflow:")).count()).as(r.err()).isEqualTo(1);
        assertThat(r.err()).doesNotContain("Exception").doesNotContain("\tat ");
      }
      assertThat(exec(server, "fork", "missing", "--at", "count_loop:1").exit()).isEqualTo(2);
    }
  }

  @Test
  @org.junit.jupiter.api.condition.DisabledOnOs(org.junit.jupiter.api.condition.OS.WINDOWS)
  void aForkKilledMidPassResumesWithoutRunningTheReusedPassesAgain() throws Exception {
    try (FakeServer server = FakeOpenAiServer.start()) {
      Path wf = dir.resolve("passes.yaml");
      Files.writeString(wf, """
          name: passes
          nodes:
            - id: refine
              loop_group:
                max_iterations: 4
                nodes:
                  - id: work
                    bash: "echo pass-{{ loop.iteration }} >> runs.log; test -e gate && sleep 60; true"
          """);
      assertThat(exec(server, "run", wf.toString(), "--run-id", "origin", "--quiet").exit()).isZero();
      Path log = dir.resolve("runs.log");
      assertThat(Files.readAllLines(log)).containsExactly("pass-1", "pass-2", "pass-3", "pass-4");
      Files.delete(log);
      Files.writeString(dir.resolve("gate"), "");

      String java = ProcessHandle.current().info().command().orElse("java");
      ProcessBuilder pb = new ProcessBuilder(java, "-cp", TestJvm.classPathOption(), "dev.loopflow.cli.Main", "fork",
          "origin", "--at", "refine:3", "--run-id", "forked", "--quiet", "--store",
          "sqlite:" + dir.resolve("runs.db")).directory(dir.toFile()).redirectErrorStream(true)
          .redirectOutput(dir.resolve("fork.out").toFile());
      pb.environment().put("LOOPFLOW_HOME", dir.resolve("home").toString());
      pb.environment().remove("LOOPFLOW_STORE");
      Process p = pb.start();
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!(Files.exists(log) && Files.readString(log).contains("pass-3")) && System.nanoTime() < until) {
        Thread.sleep(50);
      }
      assertThat(Files.readString(log)).contains("pass-3");
      p.destroyForcibly().waitFor(30, TimeUnit.SECONDS); // SIGKILL: the fork is journaled running, mid pass 3
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      Files.delete(dir.resolve("gate"));

      Result resumed = exec(server, "resume", "forked", "--json", "--quiet");
      assertThat(resumed.exit()).as(resumed.err()).isZero();
      assertThat(resumed.json().get("status").asText()).isEqualTo("completed");
      assertThat(resumed.json().at("/forked_from/run_id").asText()).isEqualTo("origin");
      assertThat(Files.readAllLines(log)).as("passes 1 and 2 are reused, never run again")
          .containsExactly("pass-3", "pass-3", "pass-4");
    }
  }
}
