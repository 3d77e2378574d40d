package dev.loopflow.observability.internal;

import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.RestartPolicy;
import dev.loopflow.core.model.Workflow;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The spans of one run attempt, built from its events: the run, each node execution, each loop and loop pass, each
 * LLM call and tool call, and each restart. A span's parent is found from the event's position: a node in pass 2 of
 * loop {@code L} is a child of that pass's span, the pass a child of the loop's span, the loop a child of its node's
 * span (or of the span of the pass that holds it). Every span starts and ends at its events' times, so a span built
 * after the fact (an LLM call, reported when it ended) has its real duration.
 *
 * <p>Not thread-safe: {@link RunObserver} hands it one event at a time.
 */
final class RunSpans {
  static final String RUN = "invoke_workflow";
  static final String PIPELINE = "workflow.iterative.execute";
  static final String STAGE = "workflow.stage.execute";
  static final String RESTART = "workflow.restart";
  static final String NODE = "loopflow.node";
  static final String LOOP = "loopflow.loop";
  static final String PASS = "loopflow.loop.pass";
  /** The longest text put in an attribute (a restart's reason, an error message); the rest is cut. */
  static final int MAX_TEXT = 1024;

  private final Tracer tracer;
  private final Workflow workflow;
  private final RestartPolicy policy;
  private Span run;
  private boolean ended;
  /** The first attempt's run span (this one's, or the journaled one a resume continues): later attempts' parent. */
  private SpanContext origin;
  private final Map<String, Span> nodes = new HashMap<>();
  private final Map<String, Span> loops = new HashMap<>();
  private final Map<String, Span> passes = new HashMap<>();
  private final Map<Long, Span> restarts = new HashMap<>();
  /** Per node execution, when its last LLM call or tool call ended: where the next tool call began. */
  private final Map<String, Instant> lastStep = new HashMap<>();
  /** Per node execution, the session its latest validation retry opened (a stage's fresh conversation). */
  private final Map<String, String> sessions = new HashMap<>();

  RunSpans(Tracer tracer, Workflow workflow) {
    this.tracer = tracer;
    this.workflow = workflow;
    this.policy = workflow.restartPolicy();
  }

  /**
   * Starts the run's span now, under {@code parent} (an earlier attempt's run span, for a resumed run) or as a new
   * trace; returns its context, which the caller journals so that a resume continues the trace.
   */
  SpanContext startRun(SpanContext parent, Instant at) {
    boolean pipeline = policy != null && policy.isPipeline();
    SpanBuilder b = tracer.spanBuilder(pipeline ? PIPELINE : RUN + " " + workflow.name())
        .setSpanKind(SpanKind.INTERNAL)
        .setStartTimestamp(at)
        .setAttribute(Attrs.OPERATION, "invoke_workflow")
        .setAttribute(Attrs.WORKFLOW_NAME, workflow.name());
    b = parent != null && parent.isValid() ? b.setParent(Context.root().with(Span.wrap(parent))) : b.setNoParent();
    if (pipeline) {
      b.setAttribute("max_iterations", (long) policy.maxIterations());
    }
    run = b.startSpan();
    origin = parent != null && parent.isValid() ? parent : run.getSpanContext();
    return run.getSpanContext();
  }

  /** Whether this attempt ended: a {@code run.resumed} that follows starts the next attempt's span. */
  boolean ended() {
    return ended;
  }

  /** The next attempt of the same run in this process (a pause answered at once): a new run span in the trace. */
  void nextAttempt(Instant at) {
    ended = false;
    SpanContext first = origin;
    startRun(first, at);
    origin = first;
  }

  /** The run's id, known once the engine announces the run (it may choose the id itself). */
  private void identify(String runId, String resumedFrom) {
    if (run == null) {
      return;
    }
    run.setAttribute(Attrs.RUN_ID, runId);
    if (policy != null && policy.isPipeline()) {
      run.setAttribute("workflow_id", runId);
    }
    if (resumedFrom != null) {
      run.setAttribute(Attrs.RESUMED_FROM, resumedFrom);
    }
  }

  void on(Event e) {
    if (ended) {
      return; // what a paused attempt's other branches report after the pause belongs to no open span
    }
    switch (e) {
      case Event.RunStarted s -> identify(s.runId(), null);
      case Event.RunResumed r -> identify(r.runId(), r.from());
      case Event.NodeStarted s -> nodeStarted(s);
      case Event.NodeCompleted c -> endNode(c.node(), c.at(), null, null);
      case Event.NodeFailed f -> endNode(f.node(), f.at(), f.errorCode(), f.message());
      case Event.NodeRetrying r -> endNode(r.node(), r.at(), "retried", r.message());
      case Event.NodeCancelled c -> endNode(c.node(), c.at(), "cancelled", null);
      case Event.LoopStarted l -> loopStarted(l);
      case Event.LoopIteration i when !i.startsAPass() -> { } // the check that ended the loop; its end closes the pass
      case Event.LoopIteration i -> passStarted(i);
      case Event.LoopCompleted c -> loopCompleted(c);
      case Event.LlmCalled c -> llmCall(c);
      case Event.NodeStep s -> step(s);
      case Event.StageValidationRetry r -> sessions.put(r.node().path(), r.sessionId());
      case Event.RestartRequested r -> restartRequested(r);
      case Event.RestartAccepted a -> endRestart(a.requestSeq(), a.at(), null, null);
      case Event.RestartRejected r -> endRestart(r.requestSeq(), r.at(), r.errorCode(), r.message());
      case Event.RunFinished f -> endRun(f.at(), f.status(), f.inputTokens(), f.outputTokens(), f.costUsd(),
          f.errorCode(), f.message());
      case Event.RunPaused p -> endRun(p.at(), "paused", 0, 0, null, null, null);
      default -> {
      }
    }
  }

  private void nodeStarted(Event.NodeStarted s) {
    String key = s.node().path();
    endNode(s.node(), s.at(), "retried", null); // an attempt whose end was not announced
    boolean stage = Positions.isStage(s.node(), policy);
    SpanBuilder b = tracer.spanBuilder(stage && policy.isPipeline() ? STAGE : NODE)
        .setParent(context(parentOfNode(s.node())))
        .setStartTimestamp(s.at())
        .setAttribute(Attrs.NODE_ID, s.node().nodeId())
        .setAttribute(Attrs.NODE_PATH, key)
        .setAttribute(Attrs.NODE_KIND, s.kind())
        .setAttribute(Attrs.NODE_ATTEMPT, (long) s.attempt());
    if (stage) {
      b.setAttribute("stage_id", s.node().nodeId());
      b.setAttribute("stage_num", (long) stageNumber(s.node().nodeId()));
    }
    nodes.put(key, b.startSpan());
  }

  private void endNode(NodePosition p, Instant at, String errorType, String message) {
    Span span = nodes.remove(p.path());
    lastStep.remove(p.path());
    if (span == null) {
      return;
    }
    fail(span, errorType, message);
    span.end(at);
  }

  private void loopStarted(Event.LoopStarted l) {
    String key = l.node().path();
    Span parent = nodes.get(key); // a loop node's span holds its loop
    Span span = tracer.spanBuilder(LOOP)
        .setParent(context(parent != null ? parent : parentOfNode(l.node())))
        .setStartTimestamp(l.at())
        .setAttribute(Attrs.NODE_ID, l.node().nodeId())
        .setAttribute(Attrs.LOOP_KIND, l.construct())
        .setAttribute(Attrs.LOOP_MAX, (long) l.max())
        .startSpan();
    loops.put(key, span);
  }

  private void passStarted(Event.LoopIteration i) {
    String loop = i.node().path();
    Span previous = passes.remove(Positions.pass(loop, i.iteration() - 1));
    if (previous != null && !"iterator".equals(i.construct())) {
      previous.end(i.at()); // passes of other loops run one after another
    } else if (previous != null) {
      passes.put(Positions.pass(loop, i.iteration() - 1), previous);
    }
    Span span = tracer.spanBuilder(PASS)
        .setParent(context(loops.getOrDefault(loop, run)))
        .setStartTimestamp(i.at())
        .setAttribute(Attrs.NODE_ID, i.node().nodeId())
        .setAttribute(Attrs.LOOP_KIND, i.construct())
        .setAttribute(Attrs.LOOP_ITERATION, (long) i.iteration())
        .setAttribute(Attrs.LOOP_MAX, (long) i.max())
        .startSpan();
    passes.put(Positions.pass(loop, i.iteration()), span);
  }

  private void loopCompleted(Event.LoopCompleted c) {
    String loop = c.node().path();
    String prefix = loop + "#";
    List<String> open = new ArrayList<>();
    passes.keySet().forEach(k -> {
      if (k.startsWith(prefix) && k.indexOf('#', prefix.length()) < 0) {
        open.add(k);
      }
    });
    open.forEach(k -> passes.remove(k).end(c.at()));
    Span span = loops.remove(loop);
    if (policy != null && Positions.isRestartLoop(c.node()) && policy.isPipeline() && run != null) {
      run.setAttribute("iterations_executed", (long) c.iterationsRun());
    }
    if (span == null) {
      return;
    }
    span.setAttribute(Attrs.LOOP_ITERATIONS, (long) c.iterationsRun());
    span.setAttribute(Attrs.LOOP_EXIT_REASON, c.exitReason());
    if ("error".equals(c.exitReason()) || "max_iterations".equals(c.exitReason())
        || "budget".equals(c.exitReason())) {
      fail(span, c.exitReason(), null);
    }
    span.end(c.at());
  }

  private void llmCall(Event.LlmCalled c) {
    Instant start = c.at().minusMillis(Math.max(0, c.durationMillis()));
    String requested = c.requestModel() != null ? c.requestModel() : c.model();
    SpanBuilder b = tracer.spanBuilder("chat " + requested)
        .setSpanKind(SpanKind.CLIENT)
        .setParent(context(spanAt(c.node())))
        .setStartTimestamp(start)
        .setAttribute(Attrs.OPERATION, "chat")
        .setAttribute(Attrs.PROVIDER, c.provider())
        .setAttribute(Attrs.REQUEST_MODEL, requested)
        .setAttribute(Attrs.RESPONSE_MODEL, c.model())
        .setAttribute(Attrs.INPUT_TOKENS, c.inputTokens())
        .setAttribute(Attrs.OUTPUT_TOKENS, c.outputTokens())
        .setAttribute(Attrs.CONVERSATION_ID, sessions.getOrDefault(c.node().path(), c.runId() + "/" + c.node().path()))
        .setAttribute(Attrs.LLM_ATTEMPTS, (long) c.attempts())
        .setAttribute(Attrs.LLM_MOCK, c.mock());
    if (c.finishReason() != null) {
      b.setAttribute(Attrs.FINISH_REASONS, List.of(c.finishReason()));
    }
    if (c.costUsd() != null) {
      b.setAttribute(Attrs.COST_USD, c.costUsd());
    }
    // Parts of the input tokens above, as the GenAI conventions count them.
    if (c.cacheReadTokens() != null) {
      b.setAttribute(Attrs.CACHE_READ_TOKENS, c.cacheReadTokens());
    }
    if (c.cacheWriteTokens() != null) {
      b.setAttribute(Attrs.CACHE_WRITE_TOKENS, c.cacheWriteTokens());
    }
    b.startSpan().end(c.at());
    lastStep.put(c.node().path(), c.at());
  }

  private void step(Event.NodeStep s) {
    Map<String, Object> step = s.step();
    if (step == null || !"tool".equals(step.get("type"))) {
      if (step != null && "model".equals(step.get("type"))) {
        lastStep.put(s.node().path(), s.at());
      }
      return;
    }
    String name = String.valueOf(step.get("name"));
    Instant start = lastStep.getOrDefault(s.node().path(), s.at());
    SpanBuilder b = tracer.spanBuilder("execute_tool " + name)
        .setSpanKind(SpanKind.INTERNAL)
        .setParent(context(spanAt(s.node())))
        .setStartTimestamp(start)
        .setAttribute(Attrs.OPERATION, "execute_tool")
        .setAttribute(Attrs.TOOL_NAME, name);
    if (step.get("id") instanceof String id) {
      b.setAttribute(Attrs.TOOL_CALL_ID, id);
    }
    Span span = b.startSpan();
    if (step.get("error") != null) {
      fail(span, "tool_error", String.valueOf(step.get("error")));
    }
    span.end(s.at());
    lastStep.put(s.node().path(), s.at());
  }

  private void restartRequested(Event.RestartRequested r) {
    Span parent = passes.getOrDefault(Positions.pass(RestartPolicy.LOOP_ID, r.iteration()),
        loops.getOrDefault(RestartPolicy.LOOP_ID, run));
    Span span = tracer.spanBuilder(RESTART)
        .setParent(context(parent))
        .setStartTimestamp(r.at())
        .setAttribute("requester_stage", text(r.requesterStageId()))
        .setAttribute("target_stage", text(r.targetStageId()))
        .setAttribute("reason", text(r.reason()))
        .setAttribute(Attrs.RESTART_ITERATION, (long) r.iteration())
        // The policy's restart_topic, named as OpenTelemetry names where a message was published.
        .setAttribute("messaging.destination.name", r.topic() == null ? null : text(r.topic()))
        .startSpan();
    restarts.put(r.requestSeq(), span);
  }

  private void endRestart(long requestSeq, Instant at, String errorCode, String message) {
    Span span = restarts.remove(requestSeq);
    if (span == null) {
      return;
    }
    span.setAttribute(Attrs.RESTART_OUTCOME, errorCode == null ? "accepted" : "rejected");
    fail(span, errorCode, message);
    span.end(at);
  }

  /** This attempt ended (finished, or paused to wait for a person): every span still open ends with it. */
  private void endRun(Instant at, String status, long inputTokens, long outputTokens, Double costUsd,
      String errorCode, String message) {
    ended = true;
    restarts.values().forEach(s -> s.end(at));
    nodes.values().forEach(s -> s.end(at));
    passes.values().forEach(s -> s.end(at));
    loops.values().forEach(s -> s.end(at));
    restarts.clear();
    nodes.clear();
    passes.clear();
    loops.clear();
    if (run == null) {
      return;
    }
    run.setAttribute(Attrs.RUN_STATUS, status);
    if (inputTokens > 0 || outputTokens > 0) {
      run.setAttribute(Attrs.INPUT_TOKENS, inputTokens);
      run.setAttribute(Attrs.OUTPUT_TOKENS, outputTokens);
    }
    if (costUsd != null) {
      run.setAttribute(Attrs.COST_USD, costUsd);
    }
    fail(run, errorCode, message);
    run.end(at);
    run = null;
  }

  /** Where a node at {@code p} hangs: the pass that holds it, else that pass's loop, else the run. */
  private Span parentOfNode(NodePosition p) {
    String pass = Positions.enclosingPass(p);
    if (pass == null) {
      return run;
    }
    Span s = passes.get(pass);
    return s != null ? s : loops.getOrDefault(Positions.enclosingLoop(p), run);
  }

  /** The span of the node execution at {@code p}, else where that node would hang. */
  private Span spanAt(NodePosition p) {
    Span s = nodes.get(p.path());
    return s != null ? s : parentOfNode(p);
  }

  private int stageNumber(String id) {
    List<String> order = policy.isPipeline() ? policy.stages()
        : workflow.nodes().stream().map(n -> n.id()).toList();
    return order.indexOf(id) + 1;
  }

  private static Context context(Span parent) {
    return parent == null ? Context.root() : Context.root().with(parent);
  }

  private static void fail(Span span, String errorType, String message) {
    if (errorType == null) {
      return;
    }
    span.setAttribute(Attrs.ERROR_TYPE, errorType);
    span.setStatus(StatusCode.ERROR, message == null ? errorType : text(message));
  }

  static String text(String s) {
    if (s == null) {
      return "";
    }
    return s.length() > MAX_TEXT ? s.substring(0, MAX_TEXT) : s;
  }

  /** The attribute names spans carry: the OpenTelemetry GenAI conventions' where one exists, else loopflow's. */
  static final class Attrs {
    static final AttributeKey<String> OPERATION =
        io.opentelemetry.semconv.incubating.GenAiIncubatingAttributes.GEN_AI_OPERATION_NAME;
    static final AttributeKey<String> PROVIDER =
        io.opentelemetry.semconv.incubating.GenAiIncubatingAttributes.GEN_AI_PROVIDER_NAME;
    static final AttributeKey<String> REQUEST_MODEL =
        io.opentelemetry.semconv.incubating.GenAiIncubatingAttributes.GEN_AI_REQUEST_MODEL;
    static final AttributeKey<String> RESPONSE_MODEL =
        io.opentelemetry.semconv.incubating.GenAiIncubatingAttributes.GEN_AI_RESPONSE_MODEL;
    static final AttributeKey<Long> INPUT_TOKENS =
        io.opentelemetry.semconv.incubating.GenAiIncubatingAttributes.GEN_AI_USAGE_INPUT_TOKENS;
    static final AttributeKey<Long> CACHE_READ_TOKENS =
        io.opentelemetry.semconv.incubating.GenAiIncubatingAttributes.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS;
    static final AttributeKey<Long> CACHE_WRITE_TOKENS =
        io.opentelemetry.semconv.incubating.GenAiIncubatingAttributes.GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS;
    static final AttributeKey<Long> OUTPUT_TOKENS =
        io.opentelemetry.semconv.incubating.GenAiIncubatingAttributes.GEN_AI_USAGE_OUTPUT_TOKENS;
    static final AttributeKey<List<String>> FINISH_REASONS =
        io.opentelemetry.semconv.incubating.GenAiIncubatingAttributes.GEN_AI_RESPONSE_FINISH_REASONS;
    static final AttributeKey<String> CONVERSATION_ID =
        io.opentelemetry.semconv.incubating.GenAiIncubatingAttributes.GEN_AI_CONVERSATION_ID;
    static final AttributeKey<String> TOOL_NAME =
        io.opentelemetry.semconv.incubating.GenAiIncubatingAttributes.GEN_AI_TOOL_NAME;
    static final AttributeKey<String> TOOL_CALL_ID =
        io.opentelemetry.semconv.incubating.GenAiIncubatingAttributes.GEN_AI_TOOL_CALL_ID;
    static final AttributeKey<String> WORKFLOW_NAME =
        io.opentelemetry.semconv.incubating.GenAiIncubatingAttributes.GEN_AI_WORKFLOW_NAME;
    static final AttributeKey<String> ERROR_TYPE = io.opentelemetry.semconv.ErrorAttributes.ERROR_TYPE;
    static final AttributeKey<Double> COST_USD = AttributeKey.doubleKey("loopflow.llm.cost_usd");
    static final AttributeKey<Long> LLM_ATTEMPTS = AttributeKey.longKey("loopflow.llm.attempts");
    static final AttributeKey<Boolean> LLM_MOCK = AttributeKey.booleanKey("loopflow.llm.mock");
    static final AttributeKey<String> RUN_ID = AttributeKey.stringKey("loopflow.run.id");
    static final AttributeKey<String> RUN_STATUS = AttributeKey.stringKey("loopflow.run.status");
    static final AttributeKey<String> RESUMED_FROM = AttributeKey.stringKey("loopflow.run.resumed_from");
    static final AttributeKey<String> NODE_ID = AttributeKey.stringKey("loopflow.node.id");
    static final AttributeKey<String> NODE_PATH = AttributeKey.stringKey("loopflow.node.path");
    static final AttributeKey<String> NODE_KIND = AttributeKey.stringKey("loopflow.node.kind");
    static final AttributeKey<Long> NODE_ATTEMPT = AttributeKey.longKey("loopflow.node.attempt");
    static final AttributeKey<String> LOOP_KIND = AttributeKey.stringKey("loopflow.loop.kind");
    static final AttributeKey<Long> LOOP_MAX = AttributeKey.longKey("loopflow.loop.max");
    static final AttributeKey<Long> LOOP_ITERATION = AttributeKey.longKey("loopflow.loop.iteration");
    static final AttributeKey<Long> LOOP_ITERATIONS = AttributeKey.longKey("loopflow.loop.iterations");
    static final AttributeKey<String> LOOP_EXIT_REASON = AttributeKey.stringKey("loopflow.loop.exit_reason");
    static final AttributeKey<Long> RESTART_ITERATION = AttributeKey.longKey("loopflow.restart.iteration");
    static final AttributeKey<String> RESTART_OUTCOME = AttributeKey.stringKey("loopflow.restart.outcome");

    private Attrs() {}
  }
}
