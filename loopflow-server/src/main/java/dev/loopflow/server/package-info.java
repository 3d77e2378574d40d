/**
 * The HTTP server of loopflow: {@link dev.loopflow.server.LoopflowServer} serves the JSON API (runs, workflows,
 * validation, live events as server-sent events) and the web UI from one port, over the same run store as the
 * command line, so a run started by either shows up in both.
 */
package dev.loopflow.server;
