package dev.loopflow.core.run;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** A started run. {@link #cancel} is safe from any thread; {@link #await} blocks until the run ends. */
public interface RunHandle {
  String runId();

  /** Requests cancellation; running nodes are interrupted and the run ends with status cancelled. */
  void cancel(String reason);

  RunResult await() throws InterruptedException;

  Optional<RunResult> await(Duration timeout) throws InterruptedException;

  /** Ids (with loop positions) of the nodes running right now. */
  List<String> runningNodes();
}
