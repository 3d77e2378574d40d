package dev.loopflow.observability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The span tree runs produce, read back from the SDK's in-memory exporter. */
class SpansTest {
  static final Path EXAMPLES = Path.of("..", "examples");

  static final String GATE = """
      name: gate
      nodes:
        - id: build
          type: transform
          template: built
        - id: ask
          approval: "Ship it?"
        - id: ship
          type: transform
          template: shipped
      """;

  InMemorySpanExporter exported;
  OpenTelemetrySdk otel;
  Observability obs;
  Loopflow engine;

  @BeforeEach
  void setUp() {
    exported = InMemorySpanExporter.create();
    otel = OpenTelemetrySdk.builder()
        .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exported)).build())
        .build();
    obs = Observability.builder().openTelemetry(otel).build();
    engine = Loopflow.create();
  }

  @AfterEach
  void tearDown() {
    otel.close();
  }

  RunResult run(Workflow wf, RunOptions.Builder options) {
    return engine.run(wf, obs.instrument(wf, options.option("llm.mock", true)).build());
  }

  List<SpanData> spans() {
    return exported.getFinishedSpanItems();
  }

  List<SpanData> named(String name) {
    return spans().stream().filter(s -> s.getName().equals(name)).toList();
  }

  SpanData one(String name) {
    assertThat(named(name)).as("spans named %s in %s", name, spans().stream().map(SpanData::getName).toList())
        .hasSize(1);
    return named(name).get(0);
  }

  SpanData parent(SpanData s) {
    return spans().stream().filter(p -> p.getSpanId().equals(s.getParentSpanId())).findFirst().orElseThrow();
  }

  static <T> T attr(SpanData s, AttributeKey<T> key) {
    return s.getAttributes().get(key);
  }

  static String str(SpanData s, String key) {
    return s.getAttributes().get(AttributeKey.stringKey(key));
  }

  static Long num(SpanData s, String key) {
    return s.getAttributes().get(AttributeKey.longKey(key));
  }

  @Test
  void aWhileLoopIsRunThenNodeThenLoopThenOnePassPerIterationThenItsBody() {
    Workflow wf = engine.load(EXAMPLES.resolve("loop-while-counter.yaml"));
    assertThat(run(wf, RunOptions.builder()).status()).isEqualTo(RunStatus.COMPLETED);

    SpanData root = one("invoke_workflow counter");
    assertThat(root.getParentSpanContext().isValid()).isFalse();
    assertThat(str(root, "gen_ai.operation.name")).isEqualTo("invoke_workflow");
    assertThat(str(root, "gen_ai.workflow.name")).isEqualTo("counter");
    assertThat(str(root, "loopflow.run.status")).isEqualTo("completed");
    assertThat(str(root, "loopflow.run.id")).startsWith("run_");

    SpanData loop = one("loopflow.loop");
    assertThat(str(loop, "loopflow.loop.kind")).isEqualTo("while_loop");
    assertThat(num(loop, "loopflow.loop.max")).isEqualTo(5);
    assertThat(num(loop, "loopflow.loop.iterations")).isEqualTo(3);
    assertThat(str(loop, "loopflow.loop.exit_reason")).isEqualTo("condition_false");
    SpanData loopNode = parent(loop);
    assertThat(str(loopNode, "loopflow.node.id")).isEqualTo("count_loop");
    assertThat(parent(loopNode)).isEqualTo(root);

    List<SpanData> passes = named("loopflow.loop.pass");
    assertThat(passes).extracting(p -> num(p, "loopflow.loop.iteration")).containsExactly(1L, 2L, 3L);
    assertThat(passes).allSatisfy(p -> assertThat(parent(p)).isEqualTo(loop));
    List<SpanData> bodies = named("loopflow.node").stream()
        .filter(s -> "increment".equals(str(s, "loopflow.node.id"))).toList();
    assertThat(bodies).hasSize(3);
    for (SpanData body : bodies) {
      SpanData pass = parent(body);
      assertThat(pass.getName()).isEqualTo("loopflow.loop.pass");
      assertThat(str(body, "loopflow.node.path")).isEqualTo("count_loop[" + num(pass, "loopflow.loop.iteration")
          + "].increment");
      assertThat(str(body, "loopflow.node.kind")).isEqualTo("script");
    }
    assertThat(spans()).allSatisfy(s -> assertThat(s.getTraceId()).isEqualTo(root.getTraceId()));
  }

  @Test
  void aPipelineUsesTheIterativeStageAndLlmSpanNamesWithGenAiAttributes() {
    Workflow wf = engine.load(EXAMPLES.resolve("pipeline-quickstart.yaml"));
    RunResult r = run(wf, RunOptions.builder());
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);

    SpanData root = one("workflow.iterative.execute");
    assertThat(str(root, "workflow_id")).isEqualTo(r.runId());
    assertThat(num(root, "max_iterations")).isEqualTo(5);
    assertThat(num(root, "iterations_executed")).isEqualTo(1);

    List<SpanData> stages = named("workflow.stage.execute");
    assertThat(stages).extracting(s -> str(s, "stage_id")).containsExactly("discovery", "analysis");
    assertThat(stages).extracting(s -> num(s, "stage_num")).containsExactly(1L, 2L);
    assertThat(stages).allSatisfy(s -> {
      assertThat(parent(s).getName()).isEqualTo("loopflow.loop.pass");
      assertThat(str(parent(parent(s)), "loopflow.loop.kind")).isEqualTo("pipeline");
    });

    List<SpanData> calls = named("chat auto");
    assertThat(calls).hasSize(2);
    SpanData call = calls.get(0);
    assertThat(parent(call)).isEqualTo(stages.get(0));
    assertThat(str(call, "gen_ai.operation.name")).isEqualTo("chat");
    assertThat(str(call, "gen_ai.provider.name")).isEqualTo("mock");
    assertThat(str(call, "gen_ai.request.model")).isEqualTo("auto");
    assertThat(str(call, "gen_ai.response.model")).isEqualTo("auto");
    assertThat(num(call, "gen_ai.usage.input_tokens")).isEqualTo(13);
    assertThat(num(call, "gen_ai.usage.output_tokens")).isEqualTo(60);
    assertThat(call.getAttributes().get(AttributeKey.stringArrayKey("gen_ai.response.finish_reasons")))
        .containsExactly("stop");
    assertThat(str(call, "gen_ai.conversation.id")).isEqualTo(r.runId() + "/restart[1].discovery");
    assertThat(call.getAttributes().get(AttributeKey.doubleKey("loopflow.llm.cost_usd"))).isEqualTo(0.0);
    assertThat(call.getKind()).isEqualTo(io.opentelemetry.api.trace.SpanKind.CLIENT);
  }

  @Test
  void aChatSpanCountsPromptTokensServedFromTheProvidersCacheAsInputAndNamesThatPart() {
    try (dev.loopflow.testkit.FakeServer server = dev.loopflow.testkit.FakeAnthropicServer.start()) {
      server.defaultReply(dev.loopflow.testkit.Reply.recorded("llama-server/anthropic-cached"));
      Workflow wf = engine.parse("""
          nodes:
            - id: ask
              model: "anthropic:toy"
              prompt: "Say hello"
          """, "cached.yaml");
      RunResult r = engine.run(wf, obs.instrument(wf, RunOptions.builder().environment(Map.of(
          "ANTHROPIC_BASE_URL", server.rootUri().toString(), "ANTHROPIC_API_KEY", "k"))).build());
      assertThat(r.status()).as("%s", r.error()).isEqualTo(RunStatus.COMPLETED);

      SpanData call = one("chat toy");
      long read = num(call, "gen_ai.usage.cache_read.input_tokens");
      assertThat(read).isPositive();
      assertThat(num(call, "gen_ai.usage.input_tokens")).isGreaterThan(read).isEqualTo(r.usage().inputTokens());
      assertThat(call.getAttributes().get(AttributeKey.longKey("gen_ai.usage.cache_creation.input_tokens")))
          .isNull();
    }
  }

  @Test
  void aRestartIsAWorkflowRestartSpanWithRequesterTargetAndReason() {
    Workflow wf = engine.load(EXAMPLES.resolve("restart-graph.yaml"));
    assertThat(run(wf, RunOptions.builder()).status()).isEqualTo(RunStatus.COMPLETED);

    SpanData restart = one("workflow.restart");
    assertThat(str(restart, "requester_stage")).isEqualTo("verify");
    assertThat(str(restart, "target_stage")).isEqualTo("implement");
    assertThat(str(restart, "reason")).isEqualTo("add(2, 2) returned 0");
    assertThat(str(restart, "loopflow.restart.outcome")).isEqualTo("accepted");
    assertThat(num(parent(restart), "loopflow.loop.iteration")).isEqualTo(1);
    // not a pipeline: the run and its nodes keep their general names
    assertThat(named("invoke_workflow restart-graph")).hasSize(1);
    assertThat(named("loopflow.node")).extracting(s -> str(s, "loopflow.node.path"))
        .containsExactly("restart[1].plan", "restart[1].implement", "restart[1].verify", "restart[2].implement",
            "restart[2].verify");
  }

  @Test
  void anAgentsToolCallsAreExecuteToolSpansUnderItsNode() {
    Workflow wf = engine.load(EXAMPLES.resolve("agent-tools.yaml"));
    assertThat(run(wf, RunOptions.builder()).status()).isEqualTo(RunStatus.COMPLETED);

    SpanData agent = named("loopflow.node").stream().filter(s -> "analyst".equals(str(s, "loopflow.node.id")))
        .findFirst().orElseThrow();
    List<SpanData> tools = spans().stream().filter(s -> s.getName().startsWith("execute_tool ")).toList();
    assertThat(tools).extracting(s -> str(s, "gen_ai.tool.name"))
        .containsExactly("word-stats", "shared_memory_write", "shared_memory_read");
    assertThat(tools).allSatisfy(t -> {
      assertThat(parent(t)).isEqualTo(agent);
      assertThat(str(t, "gen_ai.operation.name")).isEqualTo("execute_tool");
      assertThat(t.getStartEpochNanos()).isLessThanOrEqualTo(t.getEndEpochNanos());
    });
    List<SpanData> calls = spans().stream().filter(s -> s.getName().startsWith("chat ")).toList();
    assertThat(calls).hasSize(4).allSatisfy(c -> assertThat(parent(c)).isEqualTo(agent));
    assertThat(calls).extracting(c -> c.getAttributes().get(AttributeKey.stringArrayKey("gen_ai.response.finish_reasons")))
        .containsExactly(List.of("tool_calls"), List.of("tool_calls"), List.of("tool_calls"), List.of("stop"));
  }

  @Test
  void aResumedRunContinuesTheTraceOfItsFirstAttempt() throws Exception {
    Workflow wf = engine.parse(GATE, "gate.yaml");
    RunResult paused = run(wf, RunOptions.builder());
    assertThat(paused.status()).isEqualTo(RunStatus.PAUSED);
    SpanData first = one("invoke_workflow gate");
    assertThat(paused.runId()).isEqualTo(str(first, "loopflow.run.id"));
    exported.reset();

    var record = engine.store().findRun(paused.runId()).orElseThrow();
    RunResult done = engine.resume(wf, paused.runId(), ResumeInput.approve("ok"),
        obs.instrumentResume(wf, record, RunOptions.builder()).build(), false).await();
    assertThat(done.status()).isEqualTo(RunStatus.COMPLETED);

    SpanData second = one("invoke_workflow gate");
    assertThat(second.getTraceId()).isEqualTo(first.getTraceId());
    assertThat(second.getParentSpanId()).isEqualTo(first.getSpanId());
    assertThat(str(second, "loopflow.run.resumed_from")).isEqualTo("paused");
    assertThat(spans()).allSatisfy(s -> assertThat(s.getTraceId()).isEqualTo(first.getTraceId()));
    assertThat(named("loopflow.node")).extracting(s -> str(s, "loopflow.node.id")).contains("ship");
  }

  @Test
  void aPauseAnsweredInTheSameProcessWithTheSameOptionsIsASecondRunSpanOfTheSameTrace() throws Exception {
    Workflow wf = engine.parse(GATE, "gate.yaml");
    RunOptions options = obs.instrument(wf, RunOptions.builder()).build();
    RunResult paused = engine.run(wf, options);
    assertThat(paused.status()).isEqualTo(RunStatus.PAUSED);
    RunResult done = engine.resume(wf, paused.runId(), ResumeInput.approve("ok"), options, false).await();
    assertThat(done.status()).isEqualTo(RunStatus.COMPLETED);
    List<SpanData> runs = named("invoke_workflow gate");
    assertThat(runs).hasSize(2);
    assertThat(runs.get(1).getParentSpanId()).isEqualTo(runs.get(0).getSpanId());
    assertThat(str(runs.get(0), "loopflow.run.status")).isEqualTo("paused");
    assertThat(str(runs.get(1), "loopflow.run.status")).isEqualTo("completed");
    assertThat(spans()).allSatisfy(s -> assertThat(s.getTraceId()).isEqualTo(runs.get(0).getTraceId()));
  }

  @Test
  void aFailedNodeAndRunCarryTheErrorCode() {
    Workflow wf = engine.parse("""
        name: broken
        nodes:
          - id: boom
            bash: "exit 3"
        """, "broken.yaml");
    assertThat(run(wf, RunOptions.builder()).status()).isEqualTo(RunStatus.FAILED);
    SpanData node = one("loopflow.node");
    assertThat(node.getStatus().getStatusCode()).isEqualTo(io.opentelemetry.api.trace.StatusCode.ERROR);
    assertThat(str(node, "error.type")).isEqualTo("node_failed");
    SpanData root = one("invoke_workflow broken");
    assertThat(root.getStatus().getStatusCode()).isEqualTo(io.opentelemetry.api.trace.StatusCode.ERROR);
    assertThat(str(root, "error.type")).isEqualTo("node_failed");
  }

  static Stream<String> hostileReasons() {
    return Stream.of("x".repeat(100_000), "line1\nline2\r\n\u0000end", "\u202eevil", "{{ 7*7 }}", "'; DROP TABLE",
        "\ud800 unpaired", "");
  }

  @ParameterizedTest
  @MethodSource("hostileReasons")
  void aHostileRestartReasonIsKeptAsTextAndCutToItsLimit(String reason) {
    Workflow wf = engine.parse("""
        name: hostile
        restart_policy: {enabled: true, max_iterations: 2, restart_triggers: [b], restartable_stages: [a]}
        nodes:
          - id: a
            type: transform
            template: "a"
          - id: b
            type: transform
            template: "{{ {'restart': {'target_stage_id': 'a', 'reason': input.reason} } if loop.iteration == 1 else 'ok' }}"
        input:
          reason: {type: string}
        edges:
          - {from: a, to: b}
        """, "hostile.yaml");
    run(wf, RunOptions.builder().input("reason", reason));
    SpanData restart = one("workflow.restart");
    String kept = str(restart, "reason");
    assertThat(kept.length()).isLessThanOrEqualTo(1024);
    assertThat(reason).startsWith(kept.isEmpty() ? "" : kept.substring(0, Math.min(10, kept.length())));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "00", "junk", "00-00000000000000000000000000000000-0000000000000000-01",
      "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01", "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      "00-0AF7651916CD43DD8448EB211C80319C-B7AD6B7169203331-01", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331",
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra", " 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b716920333g-01"})
  void aJournaledTraceParentThatIsNotValidStartsANewTrace(String value) {
    assertThat(Observability.parseTraceParent(value)).isNull();
  }

  @Test
  void aValidJournaledTraceParentIsReadBack() {
    var c = Observability.parseTraceParent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    assertThat(c.getTraceId()).isEqualTo("0af7651916cd43dd8448eb211c80319c");
    assertThat(c.getSpanId()).isEqualTo("b7ad6b7169203331");
    assertThat(c.isSampled()).isTrue();
    assertThat(Observability.parseTraceParent(Map.of())).isNull();
  }

  @Test
  void offAddsNothingToARun() {
    Workflow wf = engine.load(EXAMPLES.resolve("loop-while-counter.yaml"));
    RunOptions.Builder b = RunOptions.builder();
    assertThat(Observability.off().instrument(wf, b)).isSameAs(b);
    assertThat(b.build().listeners()).isEmpty();
    assertThat(b.build().options()).doesNotContainKey(Observability.TRACE_PARENT_OPTION);
  }
}
