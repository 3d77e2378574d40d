/**
 * Runs a validated workflow: the dependency-driven scheduler, per-run state, node execution with retries and
 * timeouts, budget accounting and the event bus. No layer barriers: a node starts as soon as its
 * dependencies have finished and a concurrency slot is free.
 */
package dev.loopflow.core.internal.exec;
