package dev.loopflow.core.internal.exec;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.run.RestartRequest;
import dev.loopflow.core.run.RestartResponse;
import dev.loopflow.core.secrets.Redactor;
import dev.loopflow.core.store.RunCommand;
import dev.loopflow.core.store.RunStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Predicate;

/**
 * The run's end of its command bus. Requests from the run's own nodes are appended to the store and queued here at
 * once; requests from elsewhere (another process, the Java API) are appended by their sender and noticed by
 * {@link #poll}, which the run's lease thread calls a few times a second and which asks the store for pending
 * commands only when the store's {@linkplain RunStore#commandsVersion version token} moved. {@link #drain} never
 * touches the store, so the executor can drain after every node without slowing it.
 *
 * <p>What must stay true: every command is handed out by {@link #drain} at most once per run attempt, and every
 * command handed out gets a response (written with {@link #respond}), also when the run ends first. What this run
 * writes to the bus (its nodes' requests, its responses) passes through the run's redactor first, like its journal:
 * a request is a model's text (a reason, parameters) and the command table outlives the run.
 */
final class RunCommands {
  static final String RESTART = "restart";

  private final RunStore store;
  private final String runId;
  private final Clock clock;
  private final Redactor redactor;
  private final Set<Long> seen = ConcurrentHashMap.newKeySet();
  private final ConcurrentLinkedQueue<RunCommand> inbox = new ConcurrentLinkedQueue<>();
  /** The store's token as of the last completed poll. Guarded by this. */
  private long version = Long.MIN_VALUE;

  RunCommands(RunStore store, String runId, Clock clock, Redactor redactor) {
    this.store = store;
    this.runId = runId;
    this.clock = clock;
    this.redactor = redactor;
  }

  /** The payload key naming the node execution (position path) that published a request; absent from outside. */
  static final String ORIGIN = "origin";

  /** Appends a request from this run's own node (at {@code origin}, a position path) and queues it. */
  long publish(RestartRequest request, String origin) {
    Map<String, Object> payload = new LinkedHashMap<>(request.toMap());
    if (origin != null) {
      payload.put(ORIGIN, origin);
    }
    RunCommand c = store.appendCommand(runId, RESTART, redactor.map(payload), clock.instant());
    if (seen.add(c.seq())) {
      inbox.add(c);
    }
    return c.seq();
  }

  /** Whether the bus holds a request published from the node execution at {@code origin}, decided or not. */
  boolean publishedFrom(String origin) {
    for (RunCommand c : store.commands(runId)) {
      if (origin.equals(c.payload().get(ORIGIN))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Before a resumed run starts: requests an earlier attempt decided (their decisions are journaled) are never
   * handed out again; a pending request that a node published from an execution that did not complete is answered
   * as superseded, since that node runs again and asks again if it still wants to; the rest is queued.
   */
  synchronized void prepareResume(Set<Long> decided, Predicate<String> completed, int iteration) {
    seen.addAll(decided);
    for (RunCommand c : store.pendingCommands(runId)) {
      if (seen.contains(c.seq())) {
        continue;
      }
      Object origin = c.payload().get(ORIGIN);
      if (origin instanceof String path && !completed.test(path)) {
        seen.add(c.seq());
        respond(new RestartResponse(c.seq(), String.valueOf(c.payload().get("target_stage_id")), false,
            ErrorCode.RESTART_VALIDATION_FAILED, "restart validation failed: superseded: the "
                + "requesting node's execution was interrupted and runs again", null, iteration));
      } else if (seen.add(c.seq())) {
        inbox.add(c);
      }
    }
    version = store.commandsVersion();
  }

  /**
   * Picks up commands other processes appended; cheap when nothing changed. Serialized: a poll that finds the token
   * unchanged must not return while another poll (the lease thread's) that moved it is still reading, or a request
   * sent before a node completed would be missed by the decision after that node. The token is taken as seen only
   * once its commands are queued.
   */
  synchronized void poll() {
    long v = store.commandsVersion();
    if (v == version) {
      return;
    }
    for (RunCommand c : store.pendingCommands(runId)) {
      if (seen.add(c.seq())) {
        inbox.add(c);
      }
    }
    version = v;
  }

  /** Marks a command as decided by an earlier attempt of the run, so it is not handed out again. */
  void decidedBefore(long seq) {
    seen.add(seq);
    inbox.removeIf(c -> c.seq() == seq);
  }

  /** The commands queued since the last drain, in sequence order; never blocks, never reads the store. */
  List<RunCommand> drain() {
    if (inbox.isEmpty()) {
      return List.of();
    }
    List<RunCommand> out = new ArrayList<>();
    for (RunCommand c = inbox.poll(); c != null; c = inbox.poll()) {
      out.add(c);
    }
    out.sort(Comparator.comparingLong(RunCommand::seq));
    return out;
  }

  /** Puts drained commands back, to be handed out by the next drain. */
  void requeue(List<RunCommand> commands) {
    inbox.addAll(commands);
  }

  void respond(RestartResponse response) {
    store.respondCommand(runId, response.requestSeq(), redactor.map(response.toMap()), clock.instant());
  }
}
