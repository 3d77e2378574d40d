package dev.loopflow.server.internal;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ForkEdits;
import dev.loopflow.core.run.ForkPoint;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.llm.LlmHandler;
import dev.loopflow.llm.MockScripts;
import dev.loopflow.observability.Observability;
import dev.loopflow.server.spi.RunDispatch;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The runs this server executes: started or resumed over HTTP, each on the engine's own virtual threads and under
 * the run's lease in the store, exactly as the command line runs them. Each execution has a {@link RunFeed} while it
 * lasts; the feed is dropped when the execution ends (the run completed, failed, paused or was cancelled).
 *
 * <p>Every run gets the same options: streamed model text on (so viewers see it live), the mock provider for a
 * workflow with a {@code mock:} block when no provider is configured (as the command line decides), the server's
 * extra run options and environment.
 */
final class LocalRuns implements AutoCloseable {
  /** The reason recorded for runs this server was executing when it stopped. */
  static final String STOP_REASON = "the server stopped";

  private final Loopflow engine;
  private final Map<String, String> environment;
  private final Map<String, Object> runOptions;
  private final int queueCapacity;
  private final SseFrames frames;
  private final Observability observability;
  private final Map<String, Execution> executing = new ConcurrentHashMap<>();
  private volatile boolean closed;
  /** Where runs go instead of executing here (worker processes); null: they execute here. */
  private final RunDispatch dispatch;

  /** One execution: its handle and its feed. */
  record Execution(RunHandle handle, RunFeed feed) {}

  LocalRuns(Loopflow engine, Map<String, String> environment, Map<String, Object> runOptions, int queueCapacity,
      SseFrames frames, Observability observability, RunDispatch dispatch) {
    this.dispatch = dispatch;
    this.engine = engine;
    this.observability = observability;
    this.environment = environment;
    this.runOptions = runOptions;
    this.queueCapacity = queueCapacity;
    this.frames = frames;
  }

  /** The process environment with the server's configured variables over it: what runs see. */
  Map<String, String> environment() {
    Map<String, String> env = new LinkedHashMap<>(System.getenv());
    env.putAll(environment);
    return env;
  }

  /**
   * Starts a run of {@code wf} (inputs already checked) with id {@code runId} in
   * {@code workingDirectory}, and returns once its record is journaled (so it can be looked up at once).
   */
  synchronized RunHandle start(Workflow wf, Map<String, Object> inputs, String runId, Path workingDirectory) {
    // Checked and started under this lock, which holds until the run's record exists: two requests for one id
    // cannot both start (the second would find the first's record).
    if (engine.store().findRun(runId).isPresent()) {
      throw ApiError.of(ErrorTable.Kind.CONFLICT, "a run with id '" + runId + "' is already in the store");
    }
    if (dispatch != null) {
      enqueue(wf, options(wf, false, null, workingDirectory).runId(runId).inputs(inputs).build());
      return null;
    }
    return execute(runId, wf, false, feed -> engine.start(wf, observability.instrument(wf,
        options(wf, false, feed, workingDirectory).runId(runId).inputs(inputs)).build()));
  }

  /** Resumes a journaled run in this process; throws the engine's errors (busy, not resumable, wrong answer). */
  synchronized RunHandle resume(Workflow wf, String runId, ResumeInput answer, boolean journaledMock,
      Path workingDirectory) {
    if (dispatch != null) {
      dispatch.enqueueResume(runId, answer);
      return null;
    }
    return execute(runId, wf, journaledMock, feed -> engine.resume(wf, runId, answer,
        observability.instrumentResume(wf, engine.store().findRun(runId).orElse(null),
            options(wf, journaledMock, feed, workingDirectory)).build(), false));
  }

  /**
   * Starts a fork of run {@code originId} in this process (also when runs are dispatched to workers: a fork reads its
   * origin's journal here); throws the engine's errors ({@code fork_refused}).
   */
  synchronized RunHandle fork(Workflow wf, String originId, ForkPoint at, ForkEdits edits, String runId,
      boolean journaledMock, Path workingDirectory) {
    if (engine.store().findRun(runId).isPresent()) {
      throw ApiError.of(ErrorTable.Kind.CONFLICT, "a run with id '" + runId + "' is already in the store");
    }
    return execute(runId, wf, journaledMock, feed -> engine.fork(originId, at, edits, wf, observability.instrument(
        wf, options(wf, journaledMock, feed, workingDirectory).runId(runId)).build()));
  }

  private void enqueue(Workflow wf, RunOptions options) {
    try {
      dispatch.enqueue(wf, options);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while queueing run '" + options.runId() + "'", e);
    }
  }

  private RunHandle execute(String runId, Workflow wf, boolean journaledMock, Function<RunFeed, RunHandle> start) {
    if (closed) {
      throw ApiError.of(ErrorTable.Kind.UNAVAILABLE, "the server is stopping");
    }
    RunFeed feed = new RunFeed(runId, queueCapacity, frames);
    RunHandle handle = start.apply(feed);
    Execution execution = new Execution(handle, feed);
    executing.put(runId, execution);
    Thread.ofVirtual().name("loopflow-server-await-" + runId).start(() -> {
      try {
        handle.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        executing.remove(runId, execution);
        feed.close();
      }
    });
    try {
      feed.awaitFirstEvent(Duration.ofSeconds(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return handle;
  }

  private RunOptions.Builder options(Workflow wf, boolean journaledMock, RunFeed feed, Path workingDirectory) {
    RunOptions.Builder b = RunOptions.builder().workingDirectory(workingDirectory);
    if (feed != null) {
      b.listener(feed);
    }
    if (!environment.isEmpty()) {
      b.environment(environment);
    }
    runOptions.forEach(b::option);
    b.option(LlmHandler.STREAM_OPTION, true);
    if (!journaledMock && !runOptions.containsKey(RunOptions.LLM_MOCK) && MockScripts.mockWhenNoProvider(wf, environment())) {
      b.option(RunOptions.LLM_MOCK, true);
    }
    return b;
  }

  /** The feed of the run when this process executes it now. */
  Optional<RunFeed> feed(String runId) {
    return Optional.ofNullable(executing.get(runId)).map(Execution::feed);
  }

  boolean isExecuting(String runId) {
    return executing.containsKey(runId);
  }

  /**
   * Cancels every run this server executes, as the command line's Ctrl-C does (status {@code cancelled}, the reason
   * in the run's error), and waits up to {@code wait} for them to end.
   */
  @Override
  public void close() {
    close(Duration.ofSeconds(10));
  }

  void close(Duration wait) {
    closed = true;
    List<Execution> running = new ArrayList<>(executing.values());
    for (Execution e : running) {
      List<String> now = e.handle().runningNodes();
      e.handle().cancel(STOP_REASON + (now.isEmpty() ? "" : "; running: " + String.join(", ", now)));
    }
    long until = System.nanoTime() + wait.toNanos();
    for (Execution e : running) {
      try {
        e.handle().await(Duration.ofNanos(Math.max(0, until - System.nanoTime())));
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
