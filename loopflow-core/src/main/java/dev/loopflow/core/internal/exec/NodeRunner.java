package dev.loopflow.core.internal.exec;

import dev.loopflow.core.ErrorCode;
import dev.loopflow.core.LoopflowException;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.expr.Condition;
import dev.loopflow.core.expr.Values;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.model.NodePosition;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.spi.BranchChooser;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunStore;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Executes one node: retries, the exhaustive dispatch over node bodies, result shaping, state updates,
 * events and the journal row. Runs on the node's virtual thread.
 */
final class NodeRunner {
  private final String runId;
  private final Workflow workflow;
  private final RunState state;
  private final EventBus bus;
  private final Budgets budgets;
  private final RunOptions options;
  private final Map<Class<?>, Object> services;
  private final RunStore store;
  private final Supplier<Instant> deadline;

  /** How a node execution ended, as reported to the coordinator. */
  sealed interface Outcome {
    record Completed(String cancelRun) implements Outcome {}

    record Failed(String code, String message, boolean allowed) implements Outcome {}

    record Cancelled() implements Outcome {}
  }

  NodeRunner(String runId, Workflow workflow, RunState state, EventBus bus, Budgets budgets, RunOptions options,
      Map<Class<?>, Object> services, AtomicInteger steps, RunStore store, Supplier<Instant> deadline) {
    this.runId = runId;
    this.workflow = workflow;
    this.state = state;
    this.bus = bus;
    this.budgets = budgets;
    this.options = options;
    this.services = services;
    this.store = store;
    this.deadline = deadline;
  }

  Outcome execute(Node node) {
    NodePosition pos = NodePosition.top(node.id());
    Instant started = bus.now();
    int attempts = node.retry().maxAttempts();
    Usage usage = Usage.NONE;
    for (int attempt = 1; ; attempt++) {
      int a = attempt;
      bus.publish((seq, at) -> new Event.NodeStarted(runId, seq, at, pos, node.kind(), a));
      NodeContextImpl ctx = new NodeContextImpl(pos, state.scope());
      try {
        Shaped shaped = run(node, ctx);
        usage = usage.plus(ctx.usage());
        Map<String, Object> result = shaped.result;
        result.put("status", NodeStatus.COMPLETED.json());
        Object stateValue = node.kind().equals("llm") ? Values.plain(result) : shaped.output;
        state.complete(node.id(), result, shaped.statePatch, node.stateKey(), stateValue, NodeStatus.COMPLETED);
        long ms = Duration.between(started, bus.now()).toMillis();
        Usage u = usage;
        bus.publish((seq, at) -> new Event.NodeCompleted(runId, seq, at, pos, node.kind(), ms,
            preview(shaped.output), u.inputTokens(), u.outputTokens(), u.costUsd()));
        journal(node, pos, NodeStatus.COMPLETED, a, started, result, u, null, null);
        return new Outcome.Completed(shaped.cancelRun);
      } catch (InterruptedException e) {
        return cancelled(node, pos, started, usage.plus(ctx.usage()), a);
      } catch (LoopflowException e) {
        usage = usage.plus(ctx.usage());
        if (e.code() == ErrorCode.CANCELLED || Thread.currentThread().isInterrupted()) {
          return cancelled(node, pos, started, usage, a);
        }
        if (e.code() != ErrorCode.BUDGET_EXCEEDED && attempt < attempts) {
          if (retry(node, pos, a, e.getMessage())) {
            continue;
          }
          return cancelled(node, pos, started, usage, a); // interrupted while waiting to retry
        }
        return failed(node, pos, started, usage, a, e.code().code(), e.getMessage(),
            e instanceof dev.loopflow.core.NodeFailedException nfe ? nfe.partialResult() : Map.of());
      } catch (Exception | Error e) {
        // Errors too (an AssertionError in a Java node, a library's Error): a node that ends without an outcome
        // would leave the scheduler waiting for it forever.
        usage = usage.plus(ctx.usage());
        if (Thread.currentThread().isInterrupted()) {
          return cancelled(node, pos, started, usage, a);
        }
        String msg = e.getMessage() == null ? e.toString() : e.getMessage();
        if (attempt < attempts) {
          if (retry(node, pos, a, msg)) {
            continue;
          }
          return cancelled(node, pos, started, usage, a); // interrupted while waiting to retry
        }
        return failed(node, pos, started, usage, a, ErrorCode.NODE_FAILED.code(), msg, Map.of());
      }
    }
  }

  private boolean retry(Node node, NodePosition pos, int attempt, String message) {
    bus.publish((seq, at) -> new Event.NodeRetrying(runId, seq, at, pos, node.kind(), attempt + 1, message));
    try {
      Thread.sleep(node.retry().delay().toMillis());
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private Outcome failed(Node node, NodePosition pos, Instant started, Usage usage, int attempts, String code,
      String message, Map<String, Object> partial) {
    String full = node.kind() + " node '" + node.id() + "' failed: " + message;
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("status", NodeStatus.FAILED.json());
    partial.forEach((k, v) -> result.put(k, Values.plain(v)));
    result.put("error", Map.of("code", code, "message", message));
    state.mark(node.id(), NodeStatus.FAILED, result);
    long ms = Duration.between(started, bus.now()).toMillis();
    bus.publish((seq, at) -> new Event.NodeFailed(runId, seq, at, pos, node.kind(), ms, code, message,
        node.allowFailure()));
    journal(node, pos, NodeStatus.FAILED, attempts, started, result, usage, code, message);
    return new Outcome.Failed(code, code.equals(ErrorCode.NODE_FAILED.code()) ? full : message, node.allowFailure());
  }

  private Outcome cancelled(Node node, NodePosition pos, Instant started, Usage usage, int attempts) {
    recordCancelled(node);
    journal(node, pos, NodeStatus.CANCELLED, attempts, started, Map.of("status", "cancelled"), usage, "cancelled",
        "cancelled while running");
    return new Outcome.Cancelled();
  }

  void recordCancelled(Node node) {
    if (state.status(node.id()) == null) {
      state.mark(node.id(), NodeStatus.CANCELLED, Map.of("status", "cancelled"));
      bus.publish((seq, at) -> new Event.NodeCancelled(runId, seq, at, NodePosition.top(node.id()), node.kind()));
    }
  }

  void recordTimeout(Node node, String message) {
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("status", NodeStatus.FAILED.json());
    result.put("error", Map.of("code", ErrorCode.TIMEOUT.code(), "message", message));
    state.mark(node.id(), NodeStatus.FAILED, result);
    bus.publish((seq, at) -> new Event.NodeFailed(runId, seq, at, NodePosition.top(node.id()), node.kind(), 0,
        ErrorCode.TIMEOUT.code(), message, node.allowFailure()));
  }

  private void journal(Node node, NodePosition pos, NodeStatus status, int attempts, Instant started,
      Map<String, Object> result, Usage usage, String code, String message) {
    store.recordNodeExecution(new NodeExecution(runId, pos, node.kind(), status, attempts, started, bus.now(),
        result, usage, code, message));
  }

  private record Shaped(Map<String, Object> result, Object output, Map<String, Object> statePatch,
      String cancelRun) {}

  private Shaped run(Node node, NodeContextImpl ctx) throws Exception {
    return switch (node.body()) {
      case Node.Work w -> {
        NodeOutcome o = w.program().execute(ctx);
        if (o == null) {
          throw new LoopflowException(ErrorCode.NODE_FAILED, "the handler returned no outcome", ctx.position());
        }
        Map<String, Object> result = new LinkedHashMap<>();
        Object out = Values.plain(o.output());
        result.put("output", out);
        o.fields().forEach((k, v) -> result.put(k, Values.plain(v)));
        if (!o.usage().equals(Usage.NONE) && !result.containsKey("usage")) {
          result.put("usage", usageMap(o.usage()));
        }
        yield new Shaped(result, out, o.statePatch(), null);
      }
      case Node.Router r -> router(node, r, ctx);
      case Node.Cancel c -> {
        String reason = c.reason() == null ? "cancelled by node '" + node.id() + "'" : ctx.render(c.reason());
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("output", reason);
        result.put("reason", reason);
        yield new Shaped(result, reason, null, reason);
      }
      case Node.Input in -> {
        Object v = in.value() == null ? state.inputs : ctx.evaluate(in.value());
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("output", Values.plain(v));
        yield new Shaped(result, Values.plain(v), null, null);
      }
      case Node.Output out -> {
        Object v = out.value() == null ? feedingOutput(node, ctx) : ctx.evaluate(out.value());
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("output", Values.plain(v));
        yield new Shaped(result, Values.plain(v), null, null);
      }
    };
  }

  private Shaped router(Node node, Node.Router r, NodeContextImpl ctx) {
    Object value = r.value() == null ? feedingOutput(node, ctx) : ctx.evaluate(r.value());
    String branch = null;
    String reason = null;
    if (r.byLlm()) {
      BranchChooser chooser = ctx.service(BranchChooser.class).orElseThrow(() -> new LoopflowException(
          ErrorCode.NODE_FAILED, "router '" + node.id() + "' chooses with an LLM but no LLM module is installed",
          ctx.position()));
      String instructions = r.instructions() == null ? null : ctx.render(r.instructions());
      BranchChooser.Choice choice = chooser.choose(ctx, r.model(), instructions, r.descriptions(), value);
      branch = choice.branch();
      reason = choice.reason();
    } else {
      Map<String, Object> scope = new LinkedHashMap<>(ctx.scope());
      scope.put("value", Values.readOnly(value));
      for (Map.Entry<String, Condition> e : r.routes().entrySet()) {
        if (e.getValue() == null || e.getValue().test(scope)) {
          branch = e.getKey();
          break;
        }
      }
      if (branch == null) {
        throw new LoopflowException(ErrorCode.NODE_FAILED, "no route matched and there is no default route "
            + "(routes: " + r.routes().keySet() + ")", ctx.position());
      }
    }
    String chosen = branch;
    bus.publish((seq, at) -> new Event.RouterSelected(runId, seq, at, ctx.position(), chosen));
    Map<String, Object> result = new LinkedHashMap<>();
    Map<String, Object> output = new LinkedHashMap<>();
    output.put("selectedBranch", branch);
    output.put("value", Values.plain(value));
    result.put("output", output);
    result.put("selectedBranch", branch);
    result.put("value", Values.plain(value));
    if (reason != null) {
      result.put("reason", reason);
    }
    return new Shaped(result, output, null, null);
  }

  /** The output of the node feeding this one: its first completed predecessor, else the run's input. */
  private Object feedingOutput(Node node, NodeContextImpl ctx) {
    for (String dep : predecessors(node)) {
      Map<String, Object> r = state.result(dep);
      if (r != null && "completed".equals(r.get("status"))) {
        return r.get("output");
      }
    }
    return state.inputs;
  }

  private java.util.List<String> predecessors(Node node) {
    java.util.List<String> out = new java.util.ArrayList<>(node.dependsOn());
    for (var e : workflow.edges()) {
      if (!e.isLoop() && e.to().equals(node.id()) && !e.from().equals("__start__")) {
        out.add(e.from());
      }
    }
    if (out.isEmpty()) {
      int idx = workflow.nodes().indexOf(node);
      boolean declared = workflow.nodes().stream().anyMatch(n -> !n.dependsOn().isEmpty())
          || workflow.edges().stream().anyMatch(e -> !e.isLoop());
      if (!declared && idx > 0) {
        out.add(workflow.nodes().get(idx - 1).id());
      }
    }
    return out;
  }

  /** The workflow's result: the {@code output} template, else an output node's value, else the last output. */
  Object workflowOutput() {
    if (workflow.output() != null) {
      try {
        return Values.plain(workflow.output().evaluate(state.scope()));
      } catch (RuntimeException e) {
        return null;
      }
    }
    for (Node n : workflow.nodes()) {
      if (n.body() instanceof Node.Output && state.status(n.id()) == NodeStatus.COMPLETED) {
        return state.result(n.id()).get("output");
      }
    }
    String last = state.lastCompleted();
    return last == null ? null : state.result(last).get("output");
  }

  static Map<String, Object> usageMap(Usage u) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("input_tokens", u.inputTokens());
    m.put("output_tokens", u.outputTokens());
    m.put("cost_usd", u.costUsd());
    m.put("llm_calls", u.llmCalls());
    return m;
  }

  private static String preview(Object output) {
    String s = Values.text(output).replace('\n', ' ');
    return s.length() > 120 ? s.substring(0, 117) + "..." : s;
  }

  /** The context handed to one node execution. */
  final class NodeContextImpl implements NodeContext {
    private final NodePosition position;
    private final Map<String, Object> scope;
    private Usage usage = Usage.NONE;

    NodeContextImpl(NodePosition position, Map<String, Object> scope) {
      this.position = position;
      this.scope = scope;
    }

    synchronized Usage usage() {
      return usage;
    }

    @Override
    public String runId() {
      return runId;
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
    public String render(dev.loopflow.core.expr.Template template) {
      return template.render(scope);
    }

    @Override
    public Object evaluate(dev.loopflow.core.expr.Template template) {
      return template.evaluate(scope);
    }

    @Override
    public boolean test(Condition condition) {
      return condition.test(scope);
    }

    @Override
    public Map<String, Object> defaults() {
      return workflow.defaults();
    }

    @Override
    public Object workflowBlock(String name) {
      return workflow.blocks().get(name);
    }

    @Override
    public java.util.Optional<Object> option(String name) {
      return java.util.Optional.ofNullable(options.options().get(name));
    }

    @Override
    public Map<String, String> environment() {
      return options.environment();
    }

    @Override
    public java.nio.file.Path workingDirectory() {
      return options.workingDirectory();
    }

    @Override
    public Duration remaining() {
      Instant d = deadline.get();
      return d == null ? null : Duration.between(bus.now(), d);
    }

    @Override
    public void checkCancelled() {
      if (Thread.currentThread().isInterrupted()) {
        throw new LoopflowException(ErrorCode.CANCELLED, "cancelled", position);
      }
    }

    @Override
    public LlmAccounting llm() {
      return new LlmAccounting() {
        @Override
        public void beforeCall(String provider, String model) {
          checkCancelled();
          budgets.beforeCall(position);
        }

        @Override
        public void afterCall(LlmCall call) {
          Usage u = Usage.ofCall(call.inputTokens(), call.outputTokens(), call.costUsd());
          synchronized (NodeContextImpl.this) {
            usage = usage.plus(u);
          }
          budgets.add(u);
          bus.publish((seq, at) -> new Event.LlmCalled(runId, seq, at, position, call.provider(), call.model(),
              call.inputTokens(), call.outputTokens(), call.costUsd(), call.mock(), call.attempts(),
              call.durationMillis()));
        }
      };
    }

    @Override
    public Conversation conversation(String name) {
      return state.conversation(name);
    }

    @Override
    public <T> java.util.Optional<T> service(Class<T> type) {
      return java.util.Optional.ofNullable(type.cast(services.get(type)));
    }
  }
}
