/**
 * How a run's events become spans ({@link dev.loopflow.observability.internal.RunSpans}), meters
 * ({@link dev.loopflow.observability.internal.RunMeters}) and log lines
 * ({@link dev.loopflow.observability.internal.RunLog}), and how tracing is configured from the environment
 * ({@link dev.loopflow.observability.internal.Tracing}). Not exported.
 */
package dev.loopflow.observability.internal;
