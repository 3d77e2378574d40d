package dev.loopflow.llm;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.NodeFailedException;
import dev.loopflow.core.error.OutputRejectedException;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.llm.internal.tools.ToolOutcome;
import dev.loopflow.llm.internal.tools.ToolSet;
import dev.loopflow.llm.internal.tools.Toolbox;
import dev.loopflow.llm.provider.ChatMessage;
import dev.loopflow.llm.provider.ToolCall;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * One execution of an agent node: think → act → observe, driven here rather than by a framework, so every model
 * round trip and every tool call is a journaled step ({@link AgentSteps}). Each turn is one model call, reserved
 * against the budgets like any LLM call; when the reply asks for tools they run (concurrently, on virtual threads,
 * results in the order asked) and their results go back to the model in the next turn; a reply without tool calls
 * is the answer. A model still asking for tools in turn {@code max_turns} fails the node.
 */
final class AgentRun {
  private final NodeContext ctx;
  private final LlmSettings settings;
  private final ToolSet toolSet;
  private final int maxTurns;
  private final boolean schemaEveryTurn;

  /**
   * What the model is told when its answer, given without the schema, does not match {@code output_schema}: why,
   * and what to do. Only from the answer and the schema, so a resumed execution sends what the first one did.
   */
  static String schemaRequest(String mismatch) {
    String why = mismatch.length() > 500 ? mismatch.substring(0, 500) + "..." : mismatch;
    return "Your answer does not match the required output schema (" + why + "). Give your final answer again, as "
        + "JSON that matches the schema, and nothing else.";
  }

  AgentRun(NodeContext ctx, LlmSettings settings, ToolSet toolSet, int maxTurns, boolean schemaEveryTurn) {
    this.ctx = ctx;
    this.settings = settings;
    this.toolSet = toolSet;
    this.maxTurns = maxTurns;
    this.schemaEveryTurn = schemaEveryTurn;
  }

  NodeOutcome run() throws InterruptedException {
    LlmSettings.Opening o = settings.open(ctx);
    AgentSteps steps = AgentSteps.open(ctx);
    if (steps.model(1) == null) {
      RequestStep.record(ctx, o); // a resumed execution's request is among the steps it continues
    }
    // The mock's script position moves past the answers earlier executions took (rejected ones included): it was
    // lost with them. What their calls cost is the engine's to count (their rows, or their journaled calls).
    MockLlm.skip(ctx, ctx.position().nodeId(), settings.mock(), steps.mockAnswersTaken());
    try (Toolbox box = toolSet.open(ctx)) {
      return loop(o, steps, box);
    }
  }

  private NodeOutcome loop(LlmSettings.Opening o, AgentSteps steps, Toolbox box) throws InterruptedException {
    List<ChatMessage> conversation = o.conversation();
    List<ChatMessage> fresh = o.fresh();
    Set<String> ids = new HashSet<>();
    List<Map<String, Object>> log = new ArrayList<>();
    Usage usage = Usage.NONE;
    // Servers that enforce a schema with a grammar (llama.cpp, Ollama) let a model that is sent one write nothing
    // else, tool calls included. So unless the node says otherwise, turns that offer tools go without the schema, and
    // an answer that does not match it is asked for once more, with it. Decided from the turns' results alone, so a
    // resumed execution takes the same path over its journaled turns.
    boolean askedWithSchema = false;
    for (int turn = 1; ; turn++) {
      boolean withSchema = schemaEveryTurn || box.specs().isEmpty() || askedWithSchema;
      AgentSteps.Model m = steps.model(turn);
      if (m == null) {
        ctx.checkCancelled();
        LlmCalls.Result r = LlmCalls.call(ctx, o.spec(), settings.pricing(),
            settings.request(ctx, o, conversation, box.specs(), withSchema), fresh, settings.mock());
        m = steps.recordModel(turn, r, conversationCalls(r.toolCalls(), turn, ids));
      } else {
        m.calls().forEach(c -> ids.add(c.id()));
      }
      LlmCalls.Result r = m.result();
      usage = usage.plus(Usage.ofCall(r.inputTokens(), r.outputTokens(), r.costUsd()));
      List<ToolCall> calls = m.calls();
      conversation.add(ChatMessage.assistant(r.text(), calls.stream()
          .map(c -> new ToolCall(c.id(), c.name(), Toolbox.normalized(c.arguments()))).toList()));
      String mismatch = calls.isEmpty() && !withSchema && !r.mock() && turn < maxTurns
          ? settings.mismatch(r.text()) : null;
      if (mismatch != null) {
        askedWithSchema = true;
        ChatMessage ask = ChatMessage.user(schemaRequest(mismatch));
        conversation.add(ask);
        fresh = List.of(ask);
        continue;
      }
      if (calls.isEmpty()) {
        Map<String, Object> more = new LinkedHashMap<>();
        more.put("tool_calls", log);
        more.put("turns", turn);
        try {
          return settings.outcome(ctx, o, r.text(), r.provider(), r.model(), r.mock(), usage, more, withSchema);
        } catch (OutputRejectedException rejected) {
          steps.rejected(turn);
          throw rejected;
        }
      }
      if (turn >= maxTurns) {
        Map<String, Object> partial = new LinkedHashMap<>();
        partial.put("tool_calls", log);
        partial.put("turns", turn);
        steps.rejected(turn);
        throw new NodeFailedException("the model still asked for tools (" + names(calls) + ") after max_turns ("
            + maxTurns + ") model calls; raise max_turns or give the agent a task it can finish in fewer steps",
            partial);
      }
      ToolOutcome[] outcomes = runTools(box, steps, turn, calls);
      fresh = new ArrayList<>();
      for (int i = 0; i < calls.size(); i++) {
        ChatMessage result = ChatMessage.toolResult(calls.get(i), outcomes[i].forModel(), outcomes[i].failed());
        fresh.add(result);
        conversation.add(result);
        log.add(entry(calls.get(i), outcomes[i], turn));
      }
    }
  }

  /**
   * The reply's calls as they are journaled: an id that is missing or already used in this conversation is replaced
   * by one made from the turn and position (a tool result is matched to its call by id), and arguments longer than
   * a call may have are kept only up to one character past the limit (enough to refuse them again).
   */
  private static List<ToolCall> conversationCalls(List<ToolCall> calls, int turn, Set<String> ids) {
    List<ToolCall> out = new ArrayList<>();
    for (int i = 0; i < calls.size(); i++) {
      ToolCall c = calls.get(i);
      String id = c.id();
      if (id.isBlank() || id.length() > 200 || !ids.add(id)) {
        id = "call_" + turn + "_" + i;
        ids.add(id);
      }
      String args = c.arguments();
      out.add(new ToolCall(id, c.name().length() > 1000 ? c.name().substring(0, 1000) : c.name(),
          args.length() > Toolbox.MAX_ARGUMENT_CHARS ? args.substring(0, Toolbox.MAX_ARGUMENT_CHARS + 1) : args));
    }
    return out;
  }

  /**
   * Runs the reply's calls that no earlier execution recorded, concurrently when there are several, and returns
   * every call's outcome in the order asked. Each outcome is journaled as soon as its tool returns.
   */
  private ToolOutcome[] runTools(Toolbox box, AgentSteps steps, int turn, List<ToolCall> calls)
      throws InterruptedException {
    ToolOutcome[] outcomes = new ToolOutcome[calls.size()];
    List<Integer> pending = new ArrayList<>();
    String[] refused = box.refusals(calls);
    for (int i = 0; i < calls.size(); i++) {
      AgentSteps.Tool done = steps.tool(turn, i);
      if (done != null) {
        outcomes[i] = done.outcome();
      } else if (refused[i] != null) {
        outcomes[i] = ToolOutcome.failed(refused[i]);
        steps.recordTool(turn, i, calls.get(i), outcomes[i]);
      } else {
        pending.add(i);
      }
    }
    if (pending.isEmpty()) {
      return outcomes;
    }
    if (pending.size() == 1) {
      int i = pending.get(0);
      outcomes[i] = runOne(box, steps, turn, i, calls.get(i));
      return outcomes;
    }
    ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
    try {
      List<Future<ToolOutcome>> futures = new ArrayList<>();
      for (int i : pending) {
        ToolCall call = calls.get(i);
        futures.add(pool.submit(() -> runOne(box, steps, turn, i, call)));
      }
      for (int k = 0; k < pending.size(); k++) {
        outcomes[pending.get(k)] = futures.get(k).get();
      }
      return outcomes;
    } catch (ExecutionException e) {
      pool.shutdownNow();
      if (e.getCause() instanceof LoopflowException le) {
        throw le;
      }
      if (e.getCause() instanceof InterruptedException ie) {
        throw ie;
      }
      throw new LoopflowException(ErrorCode.NODE_FAILED, "a tool call failed: " + e.getCause(), ctx.position(),
          e.getCause());
    } catch (InterruptedException e) {
      pool.shutdownNow(); // the node is cancelled: stop the tools still running
      throw e;
    } finally {
      pool.close();
    }
  }

  private ToolOutcome runOne(Toolbox box, AgentSteps steps, int turn, int index, ToolCall call)
      throws InterruptedException {
    ToolOutcome outcome = box.run(ctx, call);
    steps.recordTool(turn, index, call, outcome);
    return outcome;
  }

  /** One entry of the result's {@code tool_calls}: the arguments as the model wrote them (parsed when JSON). */
  private static Map<String, Object> entry(ToolCall call, ToolOutcome outcome, int turn) {
    String raw = call.arguments();
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("name", call.name());
    Object parsed = null;
    if (raw.length() <= Toolbox.MAX_ARGUMENT_CHARS) {
      try {
        parsed = Json.parse(raw);
      } catch (IllegalArgumentException notJson) {
        // kept as text below
      }
    }
    e.put("arguments", parsed != null ? parsed : raw.length() > 1000 ? raw.substring(0, 1000) + "..." : raw);
    if (outcome.failed()) {
      e.put("error", outcome.error());
    } else {
      e.put("result", outcome.result());
    }
    e.put("turn", turn);
    return e;
  }

  private static String names(List<ToolCall> calls) {
    List<String> names = new ArrayList<>();
    calls.forEach(c -> names.add(c.name().length() > 64 ? c.name().substring(0, 64) + "..." : c.name()));
    return String.join(", ", names);
  }
}
