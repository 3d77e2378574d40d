package dev.loopflow.core.store;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/** The command bus: requests to the engine executing a run, from any process, and the engine's answers. */
public interface RunCommands {

  /**
   * Appends a command for a run and returns it with its sequence number. Durable when it returns. The run need not
   * be executing; a pending command waits for the engine that next holds the run's lease.
   */
  RunCommand appendCommand(String runId, String kind, Map<String, Object> payload, Instant at);

  /** The run's commands without a response, in sequence order. */
  List<RunCommand> pendingCommands(String runId);

  /** Every command of the run, in sequence order. */
  List<RunCommand> commands(String runId);

  /**
   * Records the engine's answer to a command. Answering twice keeps the first answer (a resumed run that decided
   * a command again must not change what the requester was told). Durable when it returns.
   */
  void respondCommand(String runId, long seq, Map<String, Object> response, Instant at);

  /**
   * A cheap token that changes whenever a command may have been appended by any process since it was last read;
   * an engine polls it and only then asks for {@link #pendingCommands}. It may change for other reasons too.
   */
  long commandsVersion();
}
