/**
 * Load benchmark of {@code loopflow server}: many clients following one run's live events over server-sent events,
 * and many runs started at once over HTTP on SQLite ({@link dev.loopflow.bench.server.ServerBench}). Every figure
 * comes with a check that nothing was lost: each client's stream is compared event by event with the run's journal,
 * and a lost, duplicated, reordered or altered event fails the benchmark.
 */
package dev.loopflow.bench.server;
