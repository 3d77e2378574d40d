package dev.loopflow.observability.internal;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.event.Event;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The meters of every run an engine executes, fed one event at a time. Labels are low-cardinality only: the
 * workflow's name, stage ids and model names go through {@link BoundedLabels}; node kinds, statuses, error codes and
 * loop kinds are the engine's own small vocabularies. Never a run id, an input or a prompt.
 *
 * <p>Names are Micrometer's dotted names; the Prometheus registry writes them with underscores, a unit suffix for
 * timers ({@code _seconds}) and byte summaries ({@code _bytes}), and {@code _total} on counters' samples.
 */
public final class RunMeters {
  static final String WORKFLOW = "workflow";
  /** Buckets of the duration histograms, in seconds: from a transform's milliseconds to a long agent stage. */
  private static final Duration[] DURATION_BUCKETS = {Duration.ofMillis(5), Duration.ofMillis(25),
      Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
      Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30),
      Duration.ofSeconds(60), Duration.ofSeconds(120), Duration.ofSeconds(300), Duration.ofSeconds(600)};
  /** Buckets of stage output sizes in bytes: 1 KiB to 1 MiB by powers of 4, around the 100 KB alert line. */
  private static final double[] SIZE_BUCKETS = {256, 1024, 4096, 16384, 65536, 102400, 262144, 1048576};
  /** The OpenTelemetry GenAI conventions' buckets for gen_ai.client.token.usage. */
  private static final double[] TOKEN_BUCKETS = {1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576,
      4194304, 16777216, 67108864};

  private final MeterRegistry registry;
  private final BoundedLabels workflows;
  private final BoundedLabels stages;
  private final BoundedLabels models;
  private final Map<String, AtomicLong> iterations = new ConcurrentHashMap<>();
  /*
   * The meters a tight loop touches once per pass and per node, kept by their labels: a registry lookup builds a
   * meter id (and its tag list) every time. Bounded like the labels themselves (workflows × kinds × statuses).
   */
  private final Map<Key, Counter> passes = new ConcurrentHashMap<>();
  private final Map<Key, Timer> nodes = new ConcurrentHashMap<>();

  private record Key(String workflow, String kind, String status) {}

  public RunMeters(MeterRegistry registry, int maxLabelValues) {
    this.registry = registry;
    this.workflows = new BoundedLabels(maxLabelValues);
    this.stages = new BoundedLabels(maxLabelValues);
    this.models = new BoundedLabels(maxLabelValues);
  }

  public MeterRegistry registry() {
    return registry;
  }

  /** The label a workflow's name is reported under. */
  String workflow(String name) {
    return workflows.of(name);
  }

  void runFinished(String workflow, String status) {
    Counter.builder("loopflow.runs").description("Runs that ended an attempt, by final status")
        .tags(WORKFLOW, workflow, "status", status).register(registry).increment();
  }

  void iterationsExecuted(String workflow, long n) {
    iterations.computeIfAbsent(workflow, w -> {
      AtomicLong v = new AtomicLong();
      Gauge.builder("workflow.iterations.executed", v, AtomicLong::get)
          .description("Iterations (restart-loop passes) the workflow's latest run executed")
          .tags(WORKFLOW, w).register(registry);
      return v;
    }).set(n);
  }

  void maxIterationsReached(String workflow) {
    counter("workflow.max.iterations.reached", "Runs that hit their max_iterations limit", workflow).increment();
  }

  void loopIteration(String workflow, String kind) {
    passes.computeIfAbsent(new Key(workflow, kind, ""), k -> Counter.builder("loopflow.loop.iterations")
        .description("Loop passes started, by loop kind").tags(WORKFLOW, workflow, "kind", kind).register(registry))
        .increment();
  }

  void node(String workflow, String kind, String status, long millis) {
    nodes.computeIfAbsent(new Key(workflow, kind, status), k -> Timer.builder("loopflow.node.duration")
        .description("Node executions, by kind and outcome").serviceLevelObjectives(DURATION_BUCKETS)
        .tags(WORKFLOW, workflow, "kind", kind, "status", status).register(registry))
        .record(Duration.ofMillis(Math.max(0, millis)));
  }

  void stage(String workflow, String stageId, String status, long millis, Long outputBytes) {
    String stage = stages.of(stageId);
    Timer.builder("workflow.stage.duration").description("Stage executions of workflows with a restart policy")
        .serviceLevelObjectives(DURATION_BUCKETS)
        .tags(WORKFLOW, workflow, "stage", stage, "status", status).register(registry)
        .record(Duration.ofMillis(Math.max(0, millis)));
    if (outputBytes != null) {
      DistributionSummary.builder("workflow.stage.output.size").baseUnit("bytes")
          .description("Size of a completed stage's whole output (UTF-8)")
          .serviceLevelObjectives(SIZE_BUCKETS)
          .tags(WORKFLOW, workflow, "stage", stage).register(registry).record(outputBytes);
    }
  }

  void llmCall(String workflow, Event.LlmCalled c) {
    String provider = models.of(c.provider());
    String model = models.of(c.requestModel() != null ? c.requestModel() : c.model());
    for (String type : new String[] {"input", "output"}) {
      DistributionSummary.builder("gen_ai.client.token.usage")
          .description("Tokens used per LLM call, by token type")
          .serviceLevelObjectives(TOKEN_BUCKETS)
          .tags("gen_ai.operation.name", "chat", "gen_ai.provider.name", provider, "gen_ai.request.model", model,
              "gen_ai.token.type", type)
          .register(registry).record("input".equals(type) ? c.inputTokens() : c.outputTokens());
    }
    if (c.costUsd() != null) {
      Counter.builder("loopflow.llm.cost.usd").description("What LLM calls cost, in US dollars")
          .tags(WORKFLOW, workflow, "gen_ai.provider.name", provider).register(registry).increment(c.costUsd());
    }
  }

  void restartRequested(String workflow) {
    counter("workflow.restart.requests", "Restart requests received", workflow).increment();
  }

  void restartRejected(String workflow, String errorCode) {
    counter("workflow.restart.requests.rejected", "Restart requests the policy refused", workflow).increment();
    if (ErrorCode.RESTART_COOLDOWN_NOT_ELAPSED.code().equals(errorCode)) {
      counter("workflow.restart.cooldown.rejections", "Restart requests refused by the cooldown", workflow)
          .increment();
    }
  }

  void validationRetry(String workflow) {
    counter("workflow.validation.retries", "Stage outputs retried after failing validation", workflow).increment();
  }

  void validationFailure(String workflow) {
    counter("workflow.validation.failures", "Stages that failed validation on every retry", workflow).increment();
  }

  /**
   * Registers at zero the counters of a workflow with a restart policy, so that a scrape shows every one of them
   * (a rate over a series that appears only at its first event misses that event).
   */
  void restartPolicyWorkflow(String workflow) {
    counter("workflow.restart.requests", "Restart requests received", workflow);
    counter("workflow.restart.requests.rejected", "Restart requests the policy refused", workflow);
    counter("workflow.restart.cooldown.rejections", "Restart requests refused by the cooldown", workflow);
    counter("workflow.validation.retries", "Stage outputs retried after failing validation", workflow);
    counter("workflow.validation.failures", "Stages that failed validation on every retry", workflow);
    counter("workflow.max.iterations.reached", "Runs that hit their max_iterations limit", workflow);
  }

  private Counter counter(String name, String description, String workflow) {
    return Counter.builder(name).description(description).tags(WORKFLOW, workflow).register(registry);
  }
}
