/**
 * The public entry points of loopflow's engine: the {@link dev.loopflow.core.Loopflow} facade that loads,
 * validates and runs workflows, and the single root exception with its stable {@link dev.loopflow.core.error.ErrorCode}s.
 */
package dev.loopflow.core;
