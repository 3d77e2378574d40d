package dev.loopflow.observability;

import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.observability.internal.RunMeters;
import dev.loopflow.observability.internal.RunObserver;
import dev.loopflow.observability.internal.Tracing;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Traces, metrics and log lines of runs, taken from each run's events. Hand every run you start or resume to
 * {@link #instrument} or {@link #instrumentResume}: it adds a listener to the run's options (and, when tracing, the
 * run span's context as a journaled run option, so that a resumed run continues the same trace).
 *
 * <pre>{@code
 * Observability obs = Observability.fromEnvironment(System.getenv(), Observability.prometheusRegistry());
 * RunHandle h = engine.start(wf, obs.instrument(wf, RunOptions.builder().inputs(in)).build());
 * String text = obs.prometheusText(); // what GET /metrics serves
 * }</pre>
 *
 * Thread-safe; one instance serves every run of an engine. Off by default: {@link #off()} adds nothing to a run.
 */
public final class Observability implements AutoCloseable {
  /**
   * The run option that carries the run span's context in W3C {@code traceparent} form ({@code 00-<trace id>-<span
   * id>-<flags>}). It is journaled with the run like its other options; a resume reads it to continue the trace.
   */
  public static final String TRACE_PARENT_OPTION = "otel.traceparent";
  /** Distinct values a label fed from workflow files (workflow name, stage, model) may take before "other". */
  public static final int DEFAULT_MAX_LABEL_VALUES = 100;
  /** The content type of {@link #prometheusText()}. */
  public static final String PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private static final Pattern TRACE_PARENT = Pattern.compile("00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})");

  private final Tracer tracer;
  private final RunMeters meters;
  private final Tracing owned;
  private final Clock clock;

  private Observability(Tracer tracer, RunMeters meters, Tracing owned, Clock clock) {
    this.tracer = tracer;
    this.meters = meters;
    this.owned = owned;
    this.clock = clock;
  }

  /** Observes nothing: {@link #instrument} returns the options unchanged. */
  public static Observability off() {
    return new Observability(null, null, null, Clock.systemUTC());
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Tracing as the {@code OTEL_*} variables in {@code env} configure it (off when none asks for it), metrics in
   * {@code registry} (none when null).
   *
   * @throws IllegalArgumentException when the {@code OTEL_*} variables are set but invalid
   */
  public static Observability fromEnvironment(Map<String, String> env, MeterRegistry registry) {
    Tracing tracing = Tracing.fromEnvironment(env, registry);
    return new Observability(tracing == null ? null : tracing.tracer(),
        registry == null ? null : new RunMeters(registry, DEFAULT_MAX_LABEL_VALUES), tracing, Clock.systemUTC());
  }

  /** A registry whose meters {@link #prometheusText()} writes in the Prometheus text format. */
  public static MeterRegistry prometheusRegistry() {
    return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  }

  /** Whether runs get spans. */
  public boolean tracing() {
    return tracer != null;
  }

  /** The registry run metrics are kept in, if any. */
  public Optional<MeterRegistry> meterRegistry() {
    return Optional.ofNullable(meters).map(RunMeters::registry);
  }

  /**
   * The metrics in the Prometheus text format (version 0.0.4, {@link #PROMETHEUS_CONTENT_TYPE}).
   *
   * @throws IllegalStateException when the metrics are not kept in a {@link #prometheusRegistry()}
   */
  public String prometheusText() {
    if (meters != null && meters.registry() instanceof PrometheusMeterRegistry p) {
      return p.scrape();
    }
    throw new IllegalStateException("metrics are not kept in a Prometheus registry");
  }

  /** Whether {@link #prometheusText()} has metrics to write. */
  public boolean servesPrometheus() {
    return meters != null && meters.registry() instanceof PrometheusMeterRegistry;
  }

  /** Adds this run's observation to {@code options}, for a new run of {@code workflow}; starts its trace now. */
  public RunOptions.Builder instrument(Workflow workflow, RunOptions.Builder options) {
    Objects.requireNonNull(workflow, "workflow");
    if (tracer == null && meters == null) {
      return options;
    }
    RunObserver observer = new RunObserver(workflow, tracer, meters, null, clock.instant());
    if (observer.runSpan() != null) {
      options.option(TRACE_PARENT_OPTION, traceParent(observer.runSpan()));
    }
    return options.listener(observer);
  }

  /**
   * Adds the observation of a resumed run to {@code options}: its run span is a child of the run span of the attempt
   * that started the run (from the context {@code run} journaled), so the whole run is one trace.
   */
  public RunOptions.Builder instrumentResume(Workflow workflow, RunRecord run, RunOptions.Builder options) {
    Objects.requireNonNull(workflow, "workflow");
    if (tracer == null && meters == null) {
      return options;
    }
    SpanContext parent = run == null || run.options() == null ? null
        : parseTraceParent(run.options().get(TRACE_PARENT_OPTION));
    return options.listener(new RunObserver(workflow, tracer, meters, parent, clock.instant()));
  }

  /** The W3C traceparent of {@code span}. */
  static String traceParent(SpanContext span) {
    return "00-" + span.getTraceId() + "-" + span.getSpanId() + "-" + span.getTraceFlags().asHex();
  }

  /** The span context a journaled traceparent names; null when {@code value} is not a valid one. */
  static SpanContext parseTraceParent(Object value) {
    if (!(value instanceof String s)) {
      return null;
    }
    Matcher m = TRACE_PARENT.matcher(s);
    if (!m.matches()) {
      return null;
    }
    SpanContext c = SpanContext.createFromRemoteParent(m.group(1), m.group(2),
        TraceFlags.fromHex(m.group(3), 0), TraceState.getDefault());
    return c.isValid() ? c : null;
  }

  /** Sends the spans still queued (waiting at most {@code max}) and stops the tracing this instance configured. */
  public void close(Duration max) {
    if (owned != null) {
      owned.close(max);
    }
  }

  @Override
  public void close() {
    close(Duration.ofSeconds(5));
  }

  /** Configures an instance around an {@link OpenTelemetry} and a {@link MeterRegistry} the caller owns. */
  public static final class Builder {
    private OpenTelemetry openTelemetry;
    private MeterRegistry registry;
    private int maxLabelValues = DEFAULT_MAX_LABEL_VALUES;
    private Clock clock = Clock.systemUTC();

    private Builder() {}

    /** Runs get spans from this OpenTelemetry's tracer (the caller configures and closes it). */
    public Builder openTelemetry(OpenTelemetry otel) {
      this.openTelemetry = Objects.requireNonNull(otel, "openTelemetry");
      return this;
    }

    public Builder meterRegistry(MeterRegistry r) {
      this.registry = Objects.requireNonNull(r, "meterRegistry");
      return this;
    }

    /** How many distinct workflow names (and stage ids, model names) a label keeps before reporting "other". */
    public Builder maxLabelValues(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("maxLabelValues must be at least 1, was " + n);
      }
      this.maxLabelValues = n;
      return this;
    }

    /** The clock a run span's start is read from; the engine's, when it has its own. */
    public Builder clock(Clock c) {
      this.clock = Objects.requireNonNull(c, "clock");
      return this;
    }

    public Observability build() {
      return new Observability(openTelemetry == null ? null : Tracing.tracer(openTelemetry),
          registry == null ? null : new RunMeters(registry, maxLabelValues), null, clock);
    }
  }
}
