/**
 * Time as the engine sees it: how it waits ({@link dev.loopflow.core.time.Sleeper}), injected with the engine's clock
 * so tests can make time-dependent behaviour deterministic. A leaf: it depends on nothing else of loopflow.
 */
package dev.loopflow.core.time;
