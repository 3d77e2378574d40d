/**
 * Observability of runs: OpenTelemetry traces and Prometheus metrics, built from the engine's event stream by a
 * run listener. {@code dev.loopflow.observability} is the API ({@link dev.loopflow.observability.Observability});
 * {@code dev.loopflow.observability.internal} (the span builder, the meters, label bounds) is not exported.
 */
module dev.loopflow.observability {
  requires transitive dev.loopflow.core;
  requires transitive io.opentelemetry.api;
  requires transitive io.opentelemetry.context;
  requires transitive micrometer.core;
  requires transitive micrometer.registry.prometheus;
  requires io.opentelemetry.sdk;
  requires io.opentelemetry.sdk.common;
  requires io.opentelemetry.sdk.trace;
  requires io.opentelemetry.sdk.metrics;
  requires io.opentelemetry.sdk.autoconfigure;
  requires io.opentelemetry.sdk.autoconfigure.spi;
  requires io.opentelemetry.semconv;
  requires io.opentelemetry.semconv.incubating;
  requires org.slf4j;

  exports dev.loopflow.observability;
}
