package dev.loopflow.observability.internal;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.metrics.InstrumentType;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.MetricDataType;
import io.opentelemetry.sdk.metrics.export.CollectionRegistration;
import io.opentelemetry.sdk.metrics.export.MetricReader;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The tracing pipeline configured by the standard {@code OTEL_*} environment variables, with the OpenTelemetry
 * SDK's autoconfiguration: {@code OTEL_EXPORTER_OTLP_ENDPOINT} (or {@code ..._TRACES_ENDPOINT}),
 * {@code OTEL_EXPORTER_OTLP_PROTOCOL} ({@code http/protobuf}, the default, or {@code grpc}),
 * {@code OTEL_EXPORTER_OTLP_HEADERS},
 * {@code OTEL_SERVICE_NAME}, {@code OTEL_RESOURCE_ATTRIBUTES}, {@code OTEL_BSP_*} and the rest.
 *
 * <p>Off unless asked for: tracing starts only when {@code OTEL_TRACES_EXPORTER} names an exporter other than
 * {@code none} or an OTLP endpoint is set, and never when {@code OTEL_SDK_DISABLED=true}. Only traces are exported
 * (metrics are served by Micrometer, logs go through SLF4J), unless the variables ask for more.
 *
 * <p>Spans leave through the SDK's batch processor: ending a span only queues it, and a full queue drops the span
 * rather than waiting, so a slow or unreachable collector never slows a run. Spans lost that way, or in an export
 * that failed, are counted in {@code loopflow.otel.spans.dropped} (by {@code reason}).
 */
public final class Tracing implements AutoCloseable {
  public static final String INSTRUMENTATION = "dev.loopflow";
  private static final AttributeKey<Boolean> LEGACY_DROPPED = AttributeKey.booleanKey("dropped");
  private static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

  private final OpenTelemetrySdk sdk;
  private final DroppedSpans dropped;
  private final AtomicLong failedExports;

  private Tracing(OpenTelemetrySdk sdk, DroppedSpans dropped, AtomicLong failedExports) {
    this.sdk = sdk;
    this.dropped = dropped;
    this.failedExports = failedExports;
  }

  /** Whether {@code env} asks for traces to be exported. */
  public static boolean requested(Map<String, String> env) {
    if ("true".equalsIgnoreCase(env.getOrDefault("OTEL_SDK_DISABLED", "").trim())) {
      return false;
    }
    String exporter = env.getOrDefault("OTEL_TRACES_EXPORTER", "").trim();
    if (!exporter.isEmpty()) {
      return !"none".equalsIgnoreCase(exporter);
    }
    return !env.getOrDefault("OTEL_EXPORTER_OTLP_ENDPOINT", "").isBlank()
        || !env.getOrDefault("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").isBlank();
  }

  /**
   * The pipeline {@code env} configures, or null when it asks for none. {@code registry}, when not null, gets the
   * dropped-spans counter.
   *
   * @throws IllegalArgumentException when the variables are set but wrong (an unknown exporter or protocol, a
   *     malformed endpoint), with the SDK's one-line explanation
   */
  public static Tracing fromEnvironment(Map<String, String> env, MeterRegistry registry) {
    if (!requested(env)) {
      return null;
    }
    Map<String, String> props = new HashMap<>();
    props.put("otel.metrics.exporter", "none");
    props.put("otel.logs.exporter", "none");
    props.put("otel.service.name", "loopflow");
    // The OpenTelemetry specification's default, which the Java SDK's autoconfiguration does not follow (it
    // defaults to grpc): an endpoint on port 4318 then just works.
    props.put("otel.exporter.otlp.protocol", "http/protobuf");
    env.forEach((k, v) -> {
      if (k.startsWith("OTEL_")) {
        props.put(k.toLowerCase(Locale.ROOT).replace('_', '.'), v);
      }
    });
    DroppedSpans dropped = new DroppedSpans();
    AtomicLong failed = new AtomicLong();
    OpenTelemetrySdk sdk;
    try {
      sdk = AutoConfiguredOpenTelemetrySdk.builder()
          .addPropertiesSupplier(() -> props)
          .addMeterProviderCustomizer((b, config) -> b.registerMetricReader(dropped))
          .addSpanExporterCustomizer((exporter, config) -> new CountingExporter(exporter, failed))
          .disableShutdownHook()
          .build()
          .getOpenTelemetrySdk();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("OpenTelemetry settings (OTEL_*) are invalid: " + e.getMessage(), e);
    }
    Tracing t = new Tracing(sdk, dropped, failed);
    if (registry != null) {
      t.bind(registry);
    }
    return t;
  }

  /** A pipeline around an SDK the caller built (tests, an embedding application); the caller closes the SDK. */
  public static Tracer tracer(io.opentelemetry.api.OpenTelemetry otel) {
    return otel.getTracer(INSTRUMENTATION);
  }

  public Tracer tracer() {
    return sdk.getTracer(INSTRUMENTATION);
  }

  private void bind(MeterRegistry registry) {
    FunctionCounter.builder("loopflow.otel.spans.dropped", dropped, DroppedSpans::count)
        .description("Spans lost before export because the queue was full")
        .tag("reason", "queue_full").register(registry);
    FunctionCounter.builder("loopflow.otel.spans.dropped", failedExports, AtomicLong::get)
        .description("Spans lost because their export failed")
        .tag("reason", "export_failed").register(registry);
  }

  /** Spans lost so far, by a full queue and by failed exports. */
  public long droppedSpans() {
    return (long) dropped.count() + failedExports.get();
  }

  /** Sends what is queued, waiting at most {@code max}, then stops the pipeline. */
  public void close(Duration max) {
    long deadline = System.nanoTime() + max.toNanos();
    sdk.getSdkTracerProvider().shutdown().join(max.toMillis(), TimeUnit.MILLISECONDS);
    long left = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
    sdk.getSdkMeterProvider().shutdown().join(left, TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    close(Duration.ofSeconds(5));
  }

  /**
   * Reads the batch processor's own counter of processed spans: the spans it dropped carry {@code dropped=true} (the
   * SDK's older instrumentation) or an {@code error.type} (the semantic-convention one).
   */
  private static final class DroppedSpans implements MetricReader {
    private volatile CollectionRegistration registration = CollectionRegistration.noop();
    /** The last count read: a counter never goes down, also after the pipeline stopped. */
    private long last;

    @Override
    public void register(CollectionRegistration registration) {
      this.registration = registration;
    }

    synchronized double count() {
      long n = 0;
      Collection<MetricData> all = registration.collectAllMetrics();
      for (MetricData m : all) {
        if (m.getType() != MetricDataType.LONG_SUM) {
          continue;
        }
        if (!m.getName().equals("processedSpans") && !m.getName().equals("otel.sdk.processor.span.processed")) {
          continue;
        }
        for (LongPointData p : m.getLongSumData().getPoints()) {
          if (Boolean.TRUE.equals(p.getAttributes().get(LEGACY_DROPPED)) || p.getAttributes().get(ERROR_TYPE) != null) {
            n += p.getValue();
          }
        }
      }
      last = Math.max(last, n);
      return last;
    }

    @Override
    public AggregationTemporality getAggregationTemporality(InstrumentType type) {
      return AggregationTemporality.CUMULATIVE;
    }

    @Override
    public CompletableResultCode forceFlush() {
      return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode shutdown() {
      registration = CollectionRegistration.noop();
      return CompletableResultCode.ofSuccess();
    }
  }

  /** Counts the spans of exports that failed (an unreachable or refusing collector). */
  private static final class CountingExporter implements SpanExporter {
    private final SpanExporter delegate;
    private final AtomicLong failed;

    CountingExporter(SpanExporter delegate, AtomicLong failed) {
      this.delegate = delegate;
      this.failed = failed;
    }

    @Override
    public CompletableResultCode export(Collection<SpanData> spans) {
      int n = spans.size();
      CompletableResultCode r = delegate.export(spans);
      r.whenComplete(() -> {
        if (!r.isSuccess()) {
          failed.addAndGet(n);
        }
      });
      return r;
    }

    @Override
    public CompletableResultCode flush() {
      return delegate.flush();
    }

    @Override
    public CompletableResultCode shutdown() {
      return delegate.shutdown();
    }
  }
}
