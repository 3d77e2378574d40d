package dev.loopflow.core.internal.exec;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.expr.Condition;
import dev.loopflow.core.expr.Template;
import dev.loopflow.core.expr.Values;
import dev.loopflow.core.run.RestartRequest;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.core.spi.SharedMemory;
import dev.loopflow.core.spi.Usage;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What one node execution sees: its position and scope, the run's options and services, its budgets, and its
 * sessions. It remembers what the execution's templates rendered, what its LLM calls spent and which session turns
 * it added: the node's journal row carries all three.
 */
final class NodeContextImpl implements NodeContext {
  private final RunContext ctx;
  private final NodePosition position;
  private final Frame frame;
  private final Map<String, Object> scope;
  private Usage usage = Usage.NONE;
  private Map<String, Object> rendered;
  private StreamedText streamed;

  NodeContextImpl(RunContext ctx, NodePosition position, Frame frame, Map<String, Object> scope) {
    this.ctx = ctx;
    this.position = position;
    this.frame = frame;
    this.scope = scope;
  }

  synchronized Usage usage() {
    return usage;
  }

  @Override
  public String runId() {
    return ctx.runId;
  }

  @Override
  public NodePosition position() {
    return position;
  }

  @Override
  public Map<String, Object> scope() {
    return scope;
  }

  @Override
  public String render(Template template) {
    String s = template.render(scope);
    remember(template, s, true);
    return s;
  }

  @Override
  public Object evaluate(Template template) {
    Object v = template.evaluate(scope);
    remember(template, v, false);
    return v;
  }

  /**
   * What this execution's templates rendered to, for the journal ("inputs as rendered"). Text a node sends out (a
   * prompt, a message, a command) is kept even when it is a literal, so that the user sees what was sent; a literal
   * evaluated to a value (a number, a list written in the file) is left out.
   */
  private synchronized void remember(Template template, Object value, boolean text) {
    if (text || !template.isLiteral()) {
      if (rendered == null) {
        rendered = new LinkedHashMap<>();
      }
      rendered.put(template.source(), Values.plain(value));
    }
  }

  synchronized Map<String, Object> rendered() {
    return rendered;
  }

  @Override
  public boolean test(Condition condition) {
    return condition.test(scope);
  }

  @Override
  public Map<String, Object> defaults() {
    return ctx.workflow.defaults();
  }

  @Override
  public Object workflowBlock(String name) {
    return ctx.workflow.blocks().get(name);
  }

  @Override
  public Optional<Object> option(String name) {
    return Optional.ofNullable(ctx.options.options().get(name));
  }

  @Override
  public Map<String, String> environment() {
    return ctx.options.environment();
  }

  @Override
  public Path workingDirectory() {
    return ctx.options.workingDirectory();
  }

  @Override
  public Duration remaining() {
    Instant d = ctx.deadline;
    return d == null ? null : Duration.between(ctx.bus.now(), d);
  }

  @Override
  public void checkCancelled() {
    if (Thread.currentThread().isInterrupted()) {
      throw new LoopflowException(ErrorCode.CANCELLED, "cancelled", position);
    }
  }

  @Override
  public LlmAccounting llm() {
    return plan -> {
      checkCancelled();
      Budgets.Reservation r = Budgets.reserve(frame.budgets, plan, position);
      int call = calls.incrementAndGet();
      try {
        // Durable before a real request leaves; a mock call is never sent anywhere, so nothing of it can be billed
        // while the process dies.
        journalCall(Map.of("type", RunLog.CALL_RESERVED, "call", call, "usage", RunLog.usageMap(r.whenCharged())),
            !"mock".equals(plan.provider()));
      } catch (RuntimeException e) {
        r.cancel(); // not durable, so not sent
        throw e;
      }
      return new Reservation() {
        @Override
        public Integer maxOutputTokens() {
          return r.maxOutputTokens();
        }

        @Override
        public void settle(LlmCall call) {
          Usage u = Usage.ofCall(call.inputTokens(), call.outputTokens(), call.costUsd());
          LoopflowException over = r.settle(u);
          count(u);
          callEnded(u);
          ctx.bus.publish((seq, at) -> new Event.LlmCalled(ctx.runId, seq, at, position, call.provider(),
              call.model(), call.inputTokens(), call.outputTokens(), call.costUsd(), call.mock(), call.attempts(),
              call.durationMillis(), call.requestModel() == null ? call.model() : call.requestModel(),
              call.finishReason(), call.cacheReadTokens(), call.cacheWriteTokens()));
          if (over != null) {
            throw over;
          }
        }

        @Override
        public void release() {
          Usage u = r.release();
          count(u);
          callEnded(u);
        }

        @Override
        public void charge() {
          Usage u = r.charge();
          count(u);
          callEnded(u);
        }

        @Override
        public void cancel() {
          if (r.cancelled()) {
            callEnded(Usage.NONE);
          }
        }

        /** Journals how the call ended (what it counted) the first time it ends; later ends count nothing. */
        private void callEnded(Usage counted) {
          if (counted != null) {
            journalCall(Map.of("type", RunLog.CALL_ENDED, "call", call, "usage", RunLog.usageMap(counted)), false);
          }
        }
      };
    };
  }

  private final AtomicInteger calls = new AtomicInteger();

  private void journalCall(Map<String, Object> step, boolean durable) {
    String id = execution();
    ctx.bus.publish((seq, at) -> new Event.NodeStep(ctx.runId, seq, at, position, id, step));
    if (durable) {
      ctx.store.flush();
    }
  }

  /**
   * Marks this execution's calls (and the mock script position it took) as held by the journal row just written
   * for it. Only after that row: the store makes an event durable only after the rows journaled before it, so the
   * mark never outlives a lost row.
   */
  void ended() {
    String id;
    boolean movedRunLog;
    synchronized (this) {
      id = execution;
      movedRunLog = appended.keySet().stream().anyMatch(RunLog::isRunLog);
    }
    // Only when the row holds something a resume would otherwise count again from steps: calls, or the script
    // position (the mock's answers) the execution moved on.
    if (id != null && (calls.get() > 0 || movedRunLog)) {
      ctx.bus.publish((seq, at) -> new Event.NodeStep(ctx.runId, seq, at, position, id,
          Map.of("type", RunLog.EXECUTION_ENDED)));
    }
  }

  /** Adds a call to this execution's usage, which is journaled with it (a resume counts it again from there). */
  private synchronized void count(Usage u) {
    if (u != null) {
      usage = usage.plus(u);
    }
  }

  private final Map<String, List<Map<String, String>>> appended = new LinkedHashMap<>();

  /** Turns this execution added, by session key: journaled so a resumed run restores its sessions. */
  synchronized Map<String, List<Map<String, String>>> sessionTurns() {
    return appended.isEmpty() ? null : new LinkedHashMap<>(appended);
  }

  /**
   * The module-log turns this execution added (the mock provider's script position). A failed or cancelled row
   * carries them too: they belong to the run, and the execution that runs the node again continues from them.
   */
  synchronized Map<String, List<Map<String, String>>> runLogTurns() {
    Map<String, List<Map<String, String>>> out = new LinkedHashMap<>();
    appended.forEach((k, v) -> {
      if (k.startsWith(RunLog.KEY_PREFIX)) {
        out.put(k, new ArrayList<>(v));
      }
    });
    return out;
  }

  @Override
  public Conversation conversation(String name) {
    if (name.startsWith(RunLog.KEY_PREFIX)) {
      // Such a name could reach a module's own log (see runLog); a session name never needs the character.
      throw new LoopflowException(ErrorCode.NODE_FAILED, "a session name must not start with a NUL character",
          position);
    }
    return journaled(frame.sessionScope == null ? name : name + "@" + frame.sessionScope);
  }

  @Override
  public Conversation runLog(String name) {
    return journaled(RunLog.KEY_PREFIX + name);
  }

  /**
   * The conversation under {@code key}, with the turns this execution appends remembered for its journal row. Keys
   * of module logs start with NUL, which no session key can: the journal keeps both kinds in one map.
   */
  private Conversation journaled(String key) {
    Conversation c = ctx.state.conversation(key);
    return new Conversation() {
      @Override
      public List<Turn> turns() {
        return c.turns();
      }

      @Override
      public void append(Turn turn) {
        c.append(turn);
        synchronized (NodeContextImpl.this) {
          Map<String, String> t = new LinkedHashMap<>();
          t.put("role", turn.role());
          t.put("content", turn.content());
          appended.computeIfAbsent(key, k -> new ArrayList<>()).add(t);
        }
      }
    };
  }

  @Override
  public <T> Optional<T> service(Class<T> type) {
    return Optional.ofNullable(type.cast(ctx.services.get(type)));
  }

  /**
   * Tells this execution's steps apart from an earlier execution's at the same position. Made on the first step
   * only: a random UUID reads the system's secure random source, which cost more than the rest of a small node's
   * execution, and most executions record no step.
   */
  private String execution;
  /** Execution ids made so far in this JVM; read by a test that pins the laziness. */
  static final AtomicLong EXECUTION_IDS_MADE = new AtomicLong();

  private synchronized String execution() {
    if (execution == null) {
      execution = UUID.randomUUID().toString();
      EXECUTION_IDS_MADE.incrementAndGet();
    }
    return execution;
  }
  private List<Map<String, Object>> replayedSteps;

  @Override
  public StepLog steps() {
    return new StepLog() {
      @Override
      public synchronized List<Map<String, Object>> replayed() {
        if (replayedSteps == null) {
          replayedSteps = ctx.replay.takeSteps(position);
        }
        return replayedSteps;
      }

      @Override
      public void record(Map<String, Object> step) {
        note(step);
        ctx.store.flush();
      }

      @Override
      public void note(Map<String, Object> step) {
        Map<String, Object> plain = Values.plain(step) instanceof Map<?, ?> m ? castMap(m) : Map.of();
        String id = execution();
        ctx.bus.publish((seq, at) -> new Event.NodeStep(ctx.runId, seq, at, position, id, plain));
      }
    };
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> castMap(Map<?, ?> m) {
    return (Map<String, Object>) m;
  }

  @Override
  public SharedMemory sharedMemory() {
    return ctx.memory;
  }

  @Override
  public long requestRestart(String targetStageId, String reason, Map<String, String> parameters) {
    if (ctx.workflow.restartPolicy() == null) {
      throw new LoopflowException(ErrorCode.RESTART_VALIDATION_FAILED, "node '" + position.path()
          + "' requested a restart, but the workflow has no restart_policy", position);
    }
    String requester = position.nodeId();
    return ctx.commands.publish(new RestartRequest(requester, targetStageId, reason,
        parameters, ctx.restartIteration(), ctx.clock.millis()), position.path());
  }

  /** Publishes an engine event about this execution (a stage's validation retry). */
  void publish(EventBus.Factory factory) {
    ctx.bus.publish(factory);
  }

  @Override
  public void streamed(String delta) {
    if (delta == null || delta.isEmpty()) {
      return;
    }
    stream().add(delta);
  }

  @Override
  public void streamEnded() {
    StreamedText s;
    synchronized (this) {
      s = streamed;
    }
    if (s != null) {
      s.end();
    }
  }

  private synchronized StreamedText stream() {
    if (streamed == null) {
      streamed = new StreamedText(ctx.bus, ctx.clock, ctx.redactor, (reply, text) -> (seq, at) ->
          new Event.NodeStreaming(ctx.runId, seq, at, position, position.nodeId(), reply, text));
    }
    return streamed;
  }

  @Override
  public Map<String, Object> runWorkflow(Path file, Map<String, Object> inputs)
      throws InterruptedException {
    return runWorkflow(file, inputs, Integer.MAX_VALUE);
  }

  @Override
  public Map<String, Object> runWorkflow(Path file, Map<String, Object> inputs, int maxChildRuns)
      throws InterruptedException {
    ChildRuns runner = (ChildRuns) ctx.services.get(ChildRuns.class);
    if (runner == null) {
      throw new LoopflowException(ErrorCode.NODE_FAILED, "this engine cannot run child workflows", position);
    }
    ChildLedger ledger = new ChildLedger(frame.budgets, ctx.childRuns, this::count);
    if (!ledger.take(maxChildRuns)) {
      throw new LoopflowException(ErrorCode.BUDGET_EXCEEDED, "child runs: the cap of " + maxChildRuns
          + " workflow runs per run is reached (" + ledger.started() + " started); '" + file.getFileName()
          + "' was not run", position);
    }
    Path resolved = file.isAbsolute() ? file : ctx.options.workingDirectory().resolve(file);
    return runner.run(resolved, inputs == null ? Map.of() : inputs, ctx.options, ctx.runId, position, ledger);
  }
}
