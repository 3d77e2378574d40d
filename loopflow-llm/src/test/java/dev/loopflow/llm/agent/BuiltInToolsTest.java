package dev.loopflow.llm.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.expr.Json;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.RunCommand;
import dev.loopflow.testkit.FakeOpenAiServer;
import dev.loopflow.testkit.RecordedRequest;
import dev.loopflow.testkit.Reply;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The built-in tools: http, shell, workflow and request_restart, driven by scripted mock replies. */
class BuiltInToolsTest {
  @TempDir
  Path dir;

  private static String calls(Object... calls) {
    return Json.compact(List.of(calls));
  }

  private static Map<String, Object> call(String name, Object arguments) {
    return Map.of("name", name, "arguments", arguments);
  }

  private RunResult agent(AgentRuns runs, String tools, String toolCalls) {
    return runs.run("""
        nodes:
          - id: a
            type: agent
            model: "mock:m"
            prompt: "work"
            tools: %s
            mock:
              - {tool_calls: %s}
              - "done"
        """.formatted(tools, toolCalls));
  }

  @Test
  void httpGetsAndPostsAndReturnsStatusTypeAndBody() {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.enqueue(Reply.text("posted"));
      RunResult r = agent(new AgentRuns(), "[http]", calls(
          call("http", Map.of("url", server.rootUri() + "/missing")),
          call("http", Map.of("url", server.baseUrl() + "/chat/completions", "method", "POST",
              "body", "{\"model\":\"m\"}", "headers", Map.of("X-Trace", "t1")))));

      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      List<Map<String, Object>> results = AgentRuns.toolCalls(r, "a");
      assertThat(results.get(0).get("result")).asInstanceOf(
          org.assertj.core.api.InstanceOfAssertFactories.MAP).containsEntry("status", 404);
      Map<?, ?> posted = (Map<?, ?>) results.get(1).get("result");
      assertThat(posted.get("status")).isEqualTo(200);
      assertThat((String) posted.get("content_type")).contains("application/json");
      assertThat((String) posted.get("body")).contains("\"content\":\"posted\"");
      // the two calls ran concurrently, so the server may have seen them in either order
      RecordedRequest post = server.requests().stream().filter(q -> q.method().equals("POST")).findFirst()
          .orElseThrow();
      assertThat(post.header("x-trace")).isEqualTo("t1");
      assertThat(post.body()).isEqualTo("{\"model\":\"m\"}");
    }
  }

  @Test
  void httpCutsABodyOverItsLimit() {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.enqueue(Reply.text("x".repeat(5000)));
      RunResult r = agent(new AgentRuns(), "[{http: {max_response_bytes: 100}}]", calls(
          call("http", Map.of("url", server.baseUrl() + "/chat/completions", "method", "POST", "body", "{}"))));

      Map<?, ?> result = (Map<?, ?>) AgentRuns.toolCalls(r, "a").get(0).get("result");
      assertThat((String) result.get("body")).hasSizeLessThan(200)
          .endsWith("[cut: the body has more than 100 bytes]");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"http://127.0.0.1:%d/x", "http://localhost:%d/x", "http://[::1]:%d/x",
      "http://0.0.0.0:%d/x", "http://169.254.169.254/latest/meta-data?p=%d", "http://10.1.2.3:%d/",
      "http://192.168.0.1:%d/", "http://[::ffff:127.0.0.1]:%d/", "http://[fd00::1]:%d/", "http://100.64.0.1:%d/"})
  void httpRefusesPrivateAddressesWhenTheRunForbidsThem(String url) {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      AgentRuns runs = new AgentRuns().option(RunOptions.HTTP_DENY_PRIVATE, true);
      RunResult r = agent(runs, "[http]", calls(call("http", Map.of("url", url.formatted(server.port())))));

      assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
      assertThat((String) AgentRuns.toolCalls(r, "a").get(0).get("error"))
          .contains("this run forbids requests to private addresses");
      assertThat(server.requestCount()).isZero();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"file:///etc/passwd", "gopher://example.com/", "http:///no-host", "not a url",
      "jar:file:/x.jar!/y", "ftp://example.com/f"})
  void httpRefusesWhatIsNotAnHttpUrl(String url) {
    RunResult r = agent(new AgentRuns(), "[http]", calls(call("http", Map.of("url", url))));

    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(AgentRuns.toolCalls(r, "a").get(0)).containsKey("error").doesNotContainKey("result");
  }

  @Test
  void shellRunsInTheWorkingDirectoryWithTheRunsEnvironment() throws Exception {
    AgentRuns runs = new AgentRuns().in(dir).env("FROM_THE_RUN", "v1");
    RunResult r = agent(runs, "[{shell: {allow: true}}]", calls(
        call("shell", Map.of("command", "pwd; echo \"$FROM_THE_RUN\"; echo oops >&2; exit 3")),
        call("shell", Map.of("command", "cat; echo read-all"))));

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    Map<?, ?> first = (Map<?, ?>) AgentRuns.toolCalls(r, "a").get(0).get("result");
    assertThat(first.get("exit_code")).isEqualTo(3);
    assertThat(first.get("stdout")).isEqualTo(dir.toRealPath() + "\nv1\n");
    assertThat(first.get("stderr")).isEqualTo("oops\n");
    Map<?, ?> second = (Map<?, ?>) AgentRuns.toolCalls(r, "a").get(1).get("result");
    assertThat(second.get("stdout")).isEqualTo("read-all\n");
  }

  @Test
  void shellKillsACommandThatOutlivesItsTimeoutWithEverythingItStarted() throws Exception {
    AgentRuns runs = new AgentRuns().in(dir);
    RunResult r = agent(runs, "[{shell: {allow: true, timeout: 500ms}}]", calls(
        call("shell", Map.of("command", "echo started; (sleep 60; touch late) & sleep 60"))));

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat((String) AgentRuns.toolCalls(r, "a").get(0).get("error"))
        .contains("did not finish within").contains("started");
    assertThat(ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
        .filter(p -> p.info().commandLine().orElse("").contains("sleep 60"))).isEmpty();
  }

  @Test
  void shellOutputKeepsItsHeadAndTailWithinItsLimit() {
    AgentRuns runs = new AgentRuns().in(dir);
    RunResult r = agent(runs, "[{shell: {allow: true, max_output_bytes: 1000}}]", calls(
        call("shell", Map.of("command", "head -c 300000 /dev/zero | tr -c a a; echo end"))));

    Map<?, ?> result = (Map<?, ?>) AgentRuns.toolCalls(r, "a").get(0).get("result");
    assertThat(result.get("exit_code")).isEqualTo(0);
    assertThat((String) result.get("stdout")).startsWith("a".repeat(500)).endsWith("a".repeat(496) + "end\n")
        .contains("...[299004 bytes left out]...");
  }

  @Test
  void nothingAShellCommandStartedOutlivesIt_bugBackgroundSleepSurvivedTheToolCall() throws Exception {
    String tag = "315" + (System.nanoTime() % 10000);
    AgentRuns runs = new AgentRuns().in(dir);
    RunResult r = agent(runs, "[{shell: {allow: true}}]", calls(
        call("shell", Map.of("command", "sleep " + tag + " & setsid sleep " + tag + " >/dev/null 2>&1 & "
            + "nohup sleep " + tag + " >/dev/null 2>&1 & echo left"))));

    Map<?, ?> result = (Map<?, ?>) AgentRuns.toolCalls(r, "a").get(0).get("result");
    assertThat(result.get("stdout")).isEqualTo("left\n");
    assertThat(result.get("sandbox")).isEqualTo("workspace");
    for (int i = 0; i < 100 && survivors("sleep " + tag) > 0; i++) {
      Thread.sleep(100); // a killed process is reaped a moment later
    }
    assertThat(survivors("sleep " + tag)).isZero();
  }

  @Test
  void aStrictAgentsShellReachesNothingOnLoopback() throws Exception {
    try (java.net.ServerSocket server = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      String probe = "exec 3<>/dev/tcp/127.0.0.1/" + server.getLocalPort() + " && echo CONNECTED";
      RunResult r = new AgentRuns().in(dir).run("""
          nodes:
            - id: a
              type: agent
              model: "mock:m"
              prompt: "work"
              sandbox: strict
              tools: [{shell: {allow: true}}]
              mock:
                - {tool_calls: %s}
                - "done"
          """.formatted(calls(call("shell", Map.of("command", probe)))));

      Map<?, ?> result = (Map<?, ?>) AgentRuns.toolCalls(r, "a").get(0).get("result");
      assertThat(result.get("sandbox")).isEqualTo("strict");
      assertThat((String) result.get("stdout")).doesNotContain("CONNECTED");
    }
  }

  private static long survivors(String commandLine) {
    return ProcessHandle.allProcesses().filter(p -> p.info().commandLine().orElse("").contains(commandLine))
        .count();
  }

  @Test
  void aWorkflowToolRunsTheChildWithTheModelsArgumentsAndReturnsItsOutput() throws Exception {
    Files.writeString(dir.resolve("shout.yaml"), """
        name: shout
        description: Shouts a word a number of times.
        input:
          word: string
          times: {type: integer, default: 2}
        nodes:
          - id: s
            type: transform
            template: "{{ input.word | upper }} x{{ input.times }}"
        """);
    Files.writeString(dir.resolve("broken.yaml"), """
        nodes:
          - {id: b, bash: "exit 4"}
        """);
    AgentRuns runs = new AgentRuns().in(dir);
    RunResult r = agent(runs, "[{workflow: shout.yaml}, {workflow: broken.yaml, name: fragile}]", calls(
        call("shout", Map.of("word", "hey", "times", 3)),
        call("shout", Map.of("times", 3)),
        call("fragile", Map.of())));

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    List<Map<String, Object>> results = AgentRuns.toolCalls(r, "a");
    assertThat(results.get(0)).containsEntry("result", "HEY x3");
    assertThat((String) results.get(1).get("error")).contains("do not match").contains("word");
    assertThat((String) results.get(2).get("error")).contains("broken.yaml ended failed").contains("node_failed");
  }

  @Test
  void aWorkflowToolOffersTheChildsInputsAsItsParameters() throws Exception {
    Files.writeString(dir.resolve("lookup.yaml"), """
        input:
          word: string
          lang: {type: string, enum: [en, de], default: en, description: the language}
        nodes: [{id: t, type: transform, template: "{{ input.word }}"}]
        """);
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.enqueue(Reply.text("ok"));
      AgentRuns runs = new AgentRuns().in(dir).env("OPENAI_BASE_URL", server.baseUrl()).env("OPENAI_API_KEY", "k");
      RunResult r = runs.run("""
          nodes:
            - id: a
              type: agent
              model: "openai:gpt-4o-mini"
              prompt: "look it up"
              tools: [{workflow: lookup.yaml, description: "Looks a word up."}]
          """);

      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      var schema = server.lastRequest().toolParameters("lookup");
      assertThat(schema.path("required").toString()).isEqualTo("[\"word\"]");
      assertThat(schema.at("/properties/lang/enum").toString()).isEqualTo("[\"en\",\"de\"]");
      assertThat(server.lastRequest().body()).contains("Looks a word up.");
    }
  }

  @Test
  void requestRestartReachesTheRunsCommandBus() {
    AgentRuns runs = new AgentRuns();
    RunResult r = runs.run("""
        restart_policy: {enabled: true}
        nodes:
          - id: plan
            type: transform
            template: "a plan"
          - id: check
            type: agent
            model: "mock:m"
            prompt: "check the plan"
            tools: [request_restart]
            mock:
              - tool_calls: [{name: request_restart, arguments: {target_stage_id: plan, reason: "too vague",
                  parameters: {hint: "be specific"}}}]
              - "asked for a better plan"
        """);

    // The request was decided after check completed: plan and check ran again, and check's second answer ended it.
    assertThat(r.nodes().get("check")).containsEntry("text", "asked for a better plan");
    assertThat(r.pipeline()).containsEntry("iterations_executed", 2);
    List<RunCommand> commands = runs.engine.store().commands(r.runId());
    assertThat(commands).singleElement().satisfies(c -> {
      assertThat(c.payload()).containsEntry("requester_stage_id", "check").containsEntry("target_stage_id", "plan")
          .containsEntry("reason", "too vague");
      assertThat(c.payload().get("parameters")).isEqualTo(Map.of("hint", "be specific"));
      assertThat(c.response()).containsEntry("success", true);
    });
  }

  @Test
  void requestRestartWithoutARestartPolicyIsTheCallsError() {
    AgentRuns runs = new AgentRuns();
    RunResult r = agent(runs, "[request_restart]", calls(
        call("request_restart", Map.of("target_stage_id", "a", "reason", "again"))));

    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat((String) AgentRuns.toolCalls(r, "a").get(0).get("error")).startsWith("restart_validation_failed: ");
    assertThat(runs.engine.store().commands(r.runId())).isEmpty();
  }
}
