package dev.loopflow.observability.internal;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.event.EventListener;
import dev.loopflow.core.model.RestartPolicy;
import dev.loopflow.core.model.Workflow;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.Tracer;
import java.time.Instant;

/**
 * The listener one run attempt gets: hands each event to the span builder, the meters and the log. It never
 * throws: a fault in observability is not the run's failure (the engine would otherwise detach it and journal a
 * {@code listener.failed} event).
 */
public final class RunObserver implements EventListener {
  private final RunSpans spans;
  private final RunMeters meters;
  private final RunLog log;
  private final RestartPolicy policy;
  private final String workflow;
  private final SpanContext runSpan;
  private boolean maxIterationsReached;
  private long restartIterations = -1;
  private boolean counted;

  /**
   * Starts observing a run attempt: when {@code tracer} is not null its run span starts now, under {@code parent}
   * (the journaled context of the run's first attempt, for a resume) or as a new trace.
   */
  public RunObserver(Workflow workflow, Tracer tracer, RunMeters meters, SpanContext parent, Instant now) {
    this.policy = workflow.restartPolicy();
    this.meters = meters;
    this.workflow = meters == null ? null : meters.workflow(workflow.name());
    if (tracer != null) {
      this.spans = new RunSpans(tracer, workflow);
      this.runSpan = spans.startRun(parent, now);
    } else {
      this.spans = null;
      this.runSpan = null;
    }
    this.log = new RunLog(runSpan == null ? null : runSpan.getTraceId());
    if (meters != null && policy != null) {
      meters.restartPolicyWorkflow(this.workflow);
    }
  }

  /** The context of this attempt's run span; null when tracing is off. */
  public SpanContext runSpan() {
    return runSpan;
  }

  @Override
  public synchronized void onEvent(Event e) {
    try {
      if (e.ephemeral()) {
        return; // streamed text: nothing to trace, count or log
      }
      if (e instanceof Event.RunResumed r) {
        nextAttempt(r);
      }
      if (spans != null) {
        spans.on(e);
      }
      if (meters != null) {
        meter(e);
      }
      log.on(e);
    } catch (RuntimeException ignored) {
      // observability must never change a run; a broken span or meter only loses that observation
    }
  }

  /** The same listener observes a run resumed in this process after a pause: a new attempt begins. */
  private void nextAttempt(Event.RunResumed r) {
    if (spans != null && spans.ended()) {
      spans.nextAttempt(r.at());
    }
    counted = false;
    maxIterationsReached = false;
    restartIterations = -1;
  }

  /** The attempt ended with {@code status}: counted once, whatever its events were. */
  private void attemptEnded(String status) {
    if (counted) {
      return;
    }
    counted = true;
    meters.runFinished(workflow, status);
    if (policy != null && restartIterations >= 0) {
      meters.iterationsExecuted(workflow, restartIterations);
    }
    if (maxIterationsReached) {
      meters.maxIterationsReached(workflow);
    }
  }

  private void meter(Event e) {
    switch (e) {
      case Event.RunFinished f -> attemptEnded(f.status());
      case Event.RunPaused p -> attemptEnded("paused");
      case Event.LoopIteration i when !i.startsAPass() -> { }
      case Event.LoopIteration i -> meters.loopIteration(workflow, i.construct());
      case Event.LoopCompleted c -> {
        if (policy != null && Positions.isRestartLoop(c.node())) {
          restartIterations = c.iterationsRun();
          maxIterationsReached |= "max_iterations".equals(c.exitReason());
        }
      }
      case Event.NodeCompleted c -> {
        meters.node(workflow, c.kind(), "completed", c.durationMillis());
        if (Positions.isStage(c.node(), policy)) {
          meters.stage(workflow, c.node().nodeId(), "completed", c.durationMillis(), c.outputBytes());
        }
      }
      case Event.NodeFailed f -> {
        meters.node(workflow, f.kind(), "failed", f.durationMillis());
        if (Positions.isStage(f.node(), policy)) {
          meters.stage(workflow, f.node().nodeId(), "failed", f.durationMillis(), null);
          if (ErrorCode.VALIDATION_RETRY_EXHAUSTED.code().equals(f.errorCode())) {
            meters.validationFailure(workflow);
          }
        }
      }
      case Event.LlmCalled c -> meters.llmCall(workflow, c);
      case Event.RestartRequested r -> meters.restartRequested(workflow);
      case Event.RestartRejected r -> {
        meters.restartRejected(workflow, r.errorCode());
        maxIterationsReached |= ErrorCode.MAX_ITERATIONS_EXCEEDED.code().equals(r.errorCode());
      }
      case Event.StageValidationRetry r -> meters.validationRetry(workflow);
      default -> {
      }
    }
  }
}
