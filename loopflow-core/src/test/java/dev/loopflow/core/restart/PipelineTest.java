package dev.loopflow.core.restart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RestartRequest;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.NodeProgram;
import dev.loopflow.core.spi.SharedMemory;
import dev.loopflow.core.store.RunStore;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Iterative pipelines: stages, placeholders, restarts under the policy, validation retry, truncation. */
class PipelineTest {
  private static final String V = ScriptedAgent.VALID;
  private final RunStore store = RunStore.inMemory();
  private final List<Event> events = Collections.synchronizedList(new ArrayList<>());
  private ScriptedAgent agent;
  private Loopflow lf;

  private RunResult run(String yaml, Map<String, List<String>> replies, Map<String, Object> inputs) {
    agent = new ScriptedAgent(replies);
    lf = Loopflow.builder().discover(false).handler(agent).store(store).build();
    Workflow wf = lf.parse(yaml, "pipeline.yaml");
    return lf.run(wf, RunOptions.builder().inputs(inputs).listener(events::add).build());
  }

  private static String npath(String policy, String extra) {
    return """
        workflow_pattern:
          iterative:
            pipeline:
              initial_prompt: "Start nPath discovery workflow"
              stages:
                - agent_id: "discover_events"
                  prompt_template: "Discover event types in {{table_name}}"
                - agent_id: "build_npath"
                  prompt_template: "Build nPath query using: {{previous}}"
            max_iterations: 10
            restart_policy:
        """ + policy.indent(6) + extra.indent(4);
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> requests(RunResult r) {
    return (List<Map<String, Object>>) r.pipeline().get("restart_requests");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> errorOf(Map<String, Object> request) {
    return (Map<String, Object>) request.get("error");
  }

  @Test
  void quickStartRunsEachStageOnceAndPassesThePreviousOutputOn() {
    RunResult r = run("""
        workflow_pattern:
          iterative:
            pipeline:
              initial_prompt: "Start multi-stage discovery"
              stages:
                - agent_id: "discovery"
                  prompt_template: "Discover available data"
                - agent_id: "analysis"
                  prompt_template: "Analyze: {{previous}}"
            max_iterations: 5
            restart_policy:
              enabled: true
        """, Map.of("discovery", List.of("{\"inputs\": {}, \"outputs\": {\"tables\": [\"web\"]}, \"evidence\": {}}")),
        Map.of());
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(agent.promptsOf("discovery")).containsExactly("Start multi-stage discovery\n\nDiscover available data");
    assertThat(agent.promptsOf("analysis").get(0)).contains("\"tables\": [\"web\"]").startsWith("Analyze: ");
    assertThat(r.pipeline()).containsEntry("iterations_executed", 1).containsEntry("validation_retries", 0);
    assertThat(requests(r)).isEmpty();
    assertThat(r.nodes()).containsKeys("discovery", "analysis");
  }

  @Test
  void runInputsFillBarePlaceholdersAndStayLiteral() {
    RunResult r = run(npath("enabled: true", ""), Map.of(), Map.of("table_name", "web_{{ events }}"));
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(agent.promptsOf("discover_events").get(0)).isEqualTo(
        "Start nPath discovery workflow\n\nDiscover event types in web_{{ events }}");
  }

  @Test
  void aLaterStageRestartsDiscoveryThroughItsStructuredOutput() {
    String restart = "{\"inputs\": {}, \"outputs\": {}, \"evidence\": {}, \"restart\": {\"target_stage_id\": "
        + "\"discover_events\", \"reason\": \"missing checkout events\", \"parameters\": {\"filter\": \"checkout%\"}}}";
    RunResult r = run(npath("enabled: true", ""), Map.of("build_npath", List.of(restart, V)), Map.of());
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(agent.calls("discover_events")).isEqualTo(2);
    assertThat(agent.calls("build_npath")).isEqualTo(2);
    assertThat(r.pipeline()).containsEntry("iterations_executed", 2);
    assertThat(requests(r)).singleElement().satisfies(q -> {
      assertThat(q).containsEntry("requester_stage_id", "build_npath").containsEntry("target_stage_id",
          "discover_events").containsEntry("reason", "missing checkout events").containsEntry("success", true)
          .containsEntry("iteration", 1);
      assertThat(q.get("error")).isNull();
    });
    assertThat(events).extracting(Event::type).containsSubsequence("restart.requested", "restart.accepted");
    assertThat(events.stream().filter(e -> e instanceof Event.NodeStarted).map(e -> ((Event.NodeStarted) e)
        .node().path())).containsExactly("restart[1].discover_events", "restart[1].build_npath",
            "restart[2].discover_events", "restart[2].build_npath");
  }

  @Test
  void aRestartThroughTheToolIsDecidedAfterTheRequestingStage() {
    RunResult r = run(npath("enabled: true", ""), Map.of("build_npath", List.of("@restart discover_events need "
        + "more", V)), Map.of());
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(agent.calls("discover_events")).isEqualTo(2);
    assertThat(requests(r)).singleElement().satisfies(q -> assertThat(q).containsEntry("success", true));
  }

  static Stream<Arguments> rejections() {
    return Stream.of(
        Arguments.of("enabled: true", "@restart nowhere x", "restart_validation_failed", "target stage not found"),
        Arguments.of("enabled: true", "@restart build_npath x", "restart_validation_failed",
            "cannot restart forward (build_npath -> build_npath)"),
        Arguments.of("enabled: true\nrestartable_stages: [build_npath]", "@restart discover_events x",
            "stage_not_restartable", "stage 'discover_events' not in restartable_stages list"),
        Arguments.of("enabled: false", "@restart discover_events x", "restart_validation_failed",
            "restarts are disabled"));
  }

  @ParameterizedTest(name = "{2}: {3}")
  @MethodSource("rejections")
  void aRequestThatFailsACheckIsRejectedWithItsCodeAndTheRunGoesOn(String policy, String reply, String code,
      String message) {
    RunResult r = run(npath(policy, ""), Map.of("build_npath", List.of(reply, V)), Map.of());
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(agent.calls("discover_events")).isEqualTo(1);
    assertThat(requests(r)).singleElement().satisfies(q -> {
      assertThat(q).containsEntry("success", false);
      assertThat(errorOf(q)).containsEntry("code", code);
      assertThat(((Map<?, ?>) q.get("error")).get("message").toString()).contains(message);
    });
    assertThat(events).extracting(Event::type).contains("restart.rejected").doesNotContain("restart.accepted");
  }

  @Test
  void aRequesterOutsideRestartTriggersIsNotAuthorized() {
    String three = """
        workflow_pattern:
          iterative:
            pipeline:
              stages:
                - {agent_id: a, prompt_template: "a"}
                - {agent_id: b, prompt_template: "b {{previous}}"}
                - {agent_id: c, prompt_template: "c {{previous}}"}
            restart_policy: {enabled: true}
            restart_triggers: [c]
        """;
    RunResult r = run(three, Map.of("b", List.of("@restart a x", V)), Map.of());
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(requests(r)).singleElement().satisfies(q ->
        assertThat(errorOf(q)).containsEntry("code", "requester_not_authorized"));
  }

  @Test
  void aSecondRestartOfTheSameStageWithinTheCooldownIsRejectedWithTheSecondsLeft() {
    RunResult r = run(npath("enabled: true\ncooldown_seconds: 600", ""), Map.of("build_npath",
        List.of("@restart discover_events first", "@restart discover_events second", V)), Map.of());
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(requests(r)).hasSize(2);
    assertThat(requests(r).get(0)).containsEntry("success", true);
    Map<String, Object> err = errorOf(requests(r).get(1));
    assertThat(err).containsEntry("code", "restart_cooldown_not_elapsed");
    assertThat(err.get("message").toString()).matches("cooldown not elapsed \\((599|600)s remaining\\).*");
  }

  @Test
  void aRestartBeyondMaxIterationsFailsTheRun() {
    String yaml = npath("enabled: true", "").replace("max_iterations: 10", "max_iterations: 2");
    RunResult r = run(yaml, Map.of("build_npath", List.of("@restart discover_events again")), Map.of());
    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("max_iterations_exceeded");
    assertThat(r.error().message()).contains("max iterations exceeded (2 iterations)");
    assertThat(agent.calls("discover_events")).isEqualTo(2);
    assertThat(r.pipeline()).containsEntry("iterations_executed", 2);
    assertThat(requests(r)).extracting(q -> q.get("success")).containsExactly(true, false);
  }

  @Test
  void withoutPreserveOutputsARestartedStageNoLongerSeesLaterOutputs() {
    String yaml = """
        workflow_pattern:
          iterative:
            pipeline:
              stages:
                - {agent_id: a, prompt_template: "a sees [{{b}}]"}
                - {agent_id: b, prompt_template: "b"}
            restart_policy: {enabled: true, preserve_outputs: %s, max_validation_retries: 0}
        """;
    run(yaml.formatted("true"), Map.of("b", List.of("@restart a once", "done")), Map.of());
    assertThat(agent.promptsOf("a")).hasSize(2);
    assertThat(agent.promptsOf("a").get(1)).isEqualTo("a sees [" + V + "]");
    run(yaml.formatted("false"), Map.of("b", List.of("@restart a once", "done")), Map.of());
    assertThat(agent.promptsOf("a")).containsExactly("a sees []", "a sees []");
  }

  @Test
  void resetSharedMemoryClearsTheWorkflowNamespaceOnRestart() {
    String yaml = """
        workflow_pattern:
          iterative:
            pipeline:
              stages:
                - {agent_id: a, prompt_template: "a"}
                - {agent_id: b, prompt_template: "b"}
                - {agent_id: c, prompt_template: "c"}
            restart_policy: {enabled: true, reset_shared_memory: %s, keep_shared_memory: true}
        """;
    RunResult kept = run(yaml.formatted("false"), Map.of("c", List.of("@restart b x", V)), Map.of());
    assertThat(store.getMemory(kept.runId(), "WORKFLOW", "stage-1-output")).isPresent();
    RunResult reset = run(yaml.formatted("true"), Map.of("c", List.of("@restart b x", V)), Map.of());
    assertThat(agent.calls("a")).isEqualTo(1);
    // a did not run again after the reset, so its output is gone; b and c wrote theirs again
    assertThat(store.getMemory(reset.runId(), "WORKFLOW", "stage-1-output")).isEmpty();
    assertThat(store.getMemory(reset.runId(), "WORKFLOW", "stage-2-output")).isPresent();
    assertThat(store.getMemory(reset.runId(), "WORKFLOW", "stage-3-output")).isPresent();
  }

  @Test
  void theWorkflowNamespaceIsClearedWhenTheRunEndsUnlessKept() {
    RunResult r = run(npath("enabled: true", ""), Map.of(), Map.of());
    assertThat(store.listMemory(r.runId(), "WORKFLOW", "")).isEmpty();
    RunResult k = run(npath("enabled: true\nkeep_shared_memory: true", ""), Map.of(), Map.of());
    assertThat(store.listMemory(k.runId(), "WORKFLOW", "")).extracting(e -> e.key())
        .containsExactly("stage-1-output", "stage-2-output");
  }

  @Test
  void anInvalidOutputIsRetriedWithAFreshSessionAndTheErrorFedBack() {
    String yaml = """
        workflow_pattern:
          iterative:
            pipeline:
              stages:
                - {agent_id: a, prompt_template: "do a"}
            restart_policy: {enabled: true}
        agents:
          a: {session: chat}
        """;
    RunResult r = run(yaml, Map.of("a", List.of("not json", "{\"inputs\": {}}", V)), Map.of());
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(agent.calls("a")).isEqualTo(3);
    // Each attempt finds its session empty (one turn after its own): the same session would have grown to 3.
    assertThat(agent.sessions).containsExactly("chat:1", "chat:1", "chat:1");
    assertThat(agent.promptsOf("a").get(1)).startsWith("do a\n\nYour previous answer was rejected: invalid JSON");
    assertThat(agent.promptsOf("a").get(2)).contains("rejected: required property 'outputs' not found");
    assertThat(r.pipeline()).containsEntry("validation_retries", 2);
    assertThat(events.stream().filter(e -> e instanceof Event.StageValidationRetry).map(e ->
        ((Event.StageValidationRetry) e).sessionId())).containsExactly(r.runId() + "-retry1", r.runId() + "-retry2");
  }

  @Test
  void exhaustedValidationRetriesFailTheStageWithTheLastError() {
    String yaml = """
        workflow_pattern:
          iterative:
            pipeline:
              stages:
                - {agent_id: a, prompt_template: "do a"}
            restart_policy: {enabled: true, max_validation_retries: 1}
        """;
    RunResult r = run(yaml, Map.of("a", List.of("nope", "{\"inputs\": {}, \"outputs\": {}}")), Map.of());
    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("validation_retry_exhausted");
    assertThat(r.error().message()).isEqualTo("stage 'a': validation failed after 1 retry: required property "
        + "'evidence' not found");
    assertThat(r.pipeline()).containsEntry("validation_retries", 1);
  }

  @Test
  void aLongOutputIsCutInPromptsWithTheNoticeAndKeptWholeInSharedMemory() {
    String big = "{\"inputs\": {}, \"outputs\": {\"x\": \"" + "é".repeat(6000) + "\"}, \"evidence\": {}}";
    RunResult r = run(npath("enabled: true\nkeep_shared_memory: true", ""), Map.of("discover_events", List.of(big)),
        Map.of());
    String prompt = agent.promptsOf("build_npath").get(0);
    String shown = prompt.substring("Build nPath query using: ".length());
    assertThat(shown).endsWith("\n\n[OUTPUT TRUNCATED - Full data stored in SharedMemory. Use shared_memory_read("
        + "namespace=\"workflow\", key=\"stage-1-output\") to fetch complete output]");
    String cut = shown.substring(0, shown.indexOf("\n\n[OUTPUT TRUNCATED"));
    assertThat(cut.getBytes(StandardCharsets.UTF_8).length).isBetween(8191, 8192);
    assertThat(big).startsWith(cut);
    var item = lf.store().getMemory(r.runId(), "WORKFLOW", "stage-1-output").orElseThrow();
    assertThat(item.compressed()).isTrue();
    assertThat(item.metadata()).containsEntry("type", "stage_output").containsEntry("agent_id", "discover_events")
        .containsEntry("stage_num", "1").containsEntry("compressed", "auto")
        .containsEntry("full_size", Integer.toString(big.getBytes(StandardCharsets.UTF_8).length));
  }

  @Test
  void placeholdersThatNameNoStageAreLoadErrors() {
    assertThatThrownBy(() -> run("""
        workflow_pattern:
          iterative:
            pipeline:
              stages:
                - {agent_id: a, prompt_template: "{{stage-3-output}} {{bogus-name}}"}
            max_iterations: 0
            restart_policy: {enabled: maybe, cooldown_seconds: 9999}
        agents:
          z: {model: "x"}
        """, Map.of(), Map.of()))
        .isInstanceOf(WorkflowInvalidException.class)
        .hasMessageContaining("'{{stage-3-output}}' names no stage: the pipeline has 1 stage")
        .hasMessageContaining("'{{bogus-name}}' is not a pipeline value")
        .hasMessageContaining("'max_iterations' must be between 1 and 100, found 0")
        .hasMessageContaining("'enabled' must be true or false")
        .hasMessageContaining("'cooldown_seconds' must be between 0 and 3600")
        .hasMessageContaining("agent 'z' is not a stage of the pipeline");
  }

  @Test
  void restartPolicyOnAnOrdinaryGraphRerunsFromTheTargetAndKeepsWhatIsUpstream() {
    String yaml = """
        name: graph
        restart_policy: {enabled: true, max_iterations: 3}
        nodes:
          - {id: setup, type: agent, prompt: "setup"}
          - {id: plan, type: agent, prompt: "plan after {{ setup.text }}", depends_on: [setup]}
          - {id: check, type: agent, prompt: "check {{ plan.text }}", depends_on: [plan]}
        """;
    RunResult r = run(yaml, Map.of("setup", List.of("S"), "plan", List.of("P1", "P2"),
        "check", List.of("@restart plan redo", "ok")), Map.of());
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(agent.calls("setup")).isEqualTo(1);
    assertThat(agent.calls("plan")).isEqualTo(2);
    assertThat(agent.promptsOf("check")).containsExactly("check P1", "check P2");
    assertThat(r.nodes().get("plan")).containsEntry("text", "P2");
    assertThat(r.pipeline()).containsEntry("iterations_executed", 2);
  }

  @Test
  void theRestartedPassSeesWhoAskedAndWhyAsLoopRestart() {
    String yaml = """
        workflow_pattern:
          iterative:
            pipeline:
              stages:
                - {agent_id: a, prompt_template: "a [{{ loop.restart.reason }}] [{{ loop.restart.requester_stage_id }}] {{ loop.iteration }}"}
                - {agent_id: b, prompt_template: "b"}
            restart_policy: {enabled: true}
        """;
    run(yaml, Map.of("b", List.of("@restart a the plan was wrong", V)), Map.of());
    assertThat(agent.promptsOf("a")).containsExactly("a [] [] 1", "a [the plan was wrong] [b] 2");
  }

  @Test
  void aNodeOfAWorkflowWithoutRestartPolicyCannotRequestARestart() {
    RunResult r = run("""
        name: plain
        nodes:
          - {id: a, type: agent, prompt: "a"}
          - {id: b, type: agent, prompt: "b", depends_on: [a]}
        """, Map.of("b", List.of("@restart a x")), Map.of());
    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("restart_validation_failed");
    assertThat(r.pipeline()).isNull();
  }

  @Test
  void aRestartRequestFromOutsideReachesARunningPipeline() throws Exception {
    agent = new ScriptedAgent(Map.of());
    CountDownLatch inB = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    NodeHandler gate = new NodeHandler() {
      @Override
      public NodeKindSpec spec() {
        return NodeKindSpec.of("wait", null, List.of());
      }

      @Override
      public NodeProgram compile(NodeConfig c) {
        return ctx -> {
          if (inB.getCount() > 0) {
            inB.countDown();
            release.await();
          }
          return NodeOutcome.of("waited");
        };
      }
    };
    lf = Loopflow.builder().discover(false).handler(agent).handler(gate).store(store).build();
    Workflow wf = lf.parse("""
        name: ext
        restart_policy: {enabled: true}
        nodes:
          - {id: a, type: agent, prompt: "a"}
          - {id: b, type: wait, depends_on: [a]}
        """, "ext.yaml");
    var h = lf.start(wf, RunOptions.defaults());
    inB.await();
    long seq = lf.requestRestart(h.runId(), new RestartRequest(null, "a", "from outside",
        Map.of(), 0, 0));
    // The run notices a request from elsewhere by polling its store a few times a second.
    Thread.sleep(600);
    release.countDown();
    RunResult r = h.await();
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(agent.calls("a")).isEqualTo(2);
    assertThat(lf.restartResponse(h.runId(), seq)).hasValueSatisfying(resp -> {
      assertThat(resp.success()).isTrue();
      assertThat(resp.iteration()).isEqualTo(2);
    });
    assertThat(requests(r)).singleElement().satisfies(q ->
        assertThat(q).containsEntry("requester_stage_id", "external"));
  }

  @Test
  void sharedMemoryNamespacesAreSeparate() {
    run(npath("enabled: true", ""), Map.of(), Map.of());
    var mem = store.listMemory("", "GLOBAL", "");
    assertThat(mem).isEmpty();
    assertThat(SharedMemory.Namespace.parse(" workflow ")).contains(SharedMemory.Namespace.WORKFLOW);
    assertThat(SharedMemory.Namespace.parse("nope")).isEmpty();
  }
}
