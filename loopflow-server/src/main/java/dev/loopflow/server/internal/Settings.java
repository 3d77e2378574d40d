package dev.loopflow.server.internal;

import dev.loopflow.core.store.RunStore;
import dev.loopflow.observability.Observability;
import dev.loopflow.server.spi.RunDispatch;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A server's settings, checked by the public builder before they get here.
 *
 * @param environment variables runs see over the process environment (empty: the process's own)
 * @param runOptions run options every run started or resumed here gets (such as {@code http.deny_private})
 * @param queueCapacity frames a stream may fall behind a live run before it is disconnected
 * @param log where the server reports what no response can carry (an internal error's stack trace)
 * @param uiResources the class loader the web UI bundle ({@code loopflow-ui/...}) is read from
 * @param observability the traces and metrics of the runs executed here; {@code GET /metrics} serves its metrics
 * @param dispatch where new and resumed runs go instead of executing here (null: they execute here)
 */
public record Settings(RunStore store, Path workflowsDir, String token, String host, int port, long maxBodyBytes,
    Duration heartbeat, Map<String, String> environment, Map<String, Object> runOptions, int queueCapacity,
    Consumer<String> log, ClassLoader uiResources, Observability observability,
    RunDispatch dispatch) {

  /** Settings of a server whose runs execute in it. */
  public Settings(RunStore store, Path workflowsDir, String token, String host, int port, long maxBodyBytes,
      Duration heartbeat, Map<String, String> environment, Map<String, Object> runOptions, int queueCapacity,
      Consumer<String> log, ClassLoader uiResources, Observability observability) {
    this(store, workflowsDir, token, host, port, maxBodyBytes, heartbeat, environment, runOptions, queueCapacity, log,
        uiResources, observability, null);
  }
}
