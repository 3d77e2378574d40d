/**
 * Traces and metrics of runs: {@link dev.loopflow.observability.Observability} turns a run's events into
 * OpenTelemetry spans and Micrometer meters, configured from the standard {@code OTEL_*} environment variables.
 */
package dev.loopflow.observability;
