package dev.loopflow.llm;

import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.llm.internal.tools.ToolOutcome;
import dev.loopflow.llm.provider.ToolCall;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/*
 * Design notes.
 *
 * The journal of one agent execution, as durable steps (NodeContext.steps()): a "model" step per model round trip
 * (its text, its tool calls as the conversation keeps them, provider, model, usage) and a "tool" step per tool call
 * (turn, position in the reply, id, name, arguments, result or error), each recorded as soon as it is done. A
 * resumed run gives the execution that runs again the steps of the interrupted one; the agent rebuilds the
 * conversation from them and calls neither the model nor a tool again for a recorded step.
 *
 * The engine replays only the last execution's steps, so an execution that continues others first records one
 * "resumed" step holding all of them, and a later resume still sees everything.
 *
 * Rejected answers. An execution that fails because of a reply itself (it does not match the node's output_schema,
 * or it still asks for tools in the last turn) records a "rejected" step for that turn. The reply is history, not a
 * result: a resumed run gets the steps before that turn and asks the model again from there.
 *
 * Usage is the engine's: it journals every call as it is reserved and ended, and counts the calls of an execution
 * that no journal row holds when a run resumes. This class never counts a replayed call.
 */
final class AgentSteps {
  /** A model round trip as journaled. */
  record Model(int turn, LlmCalls.Result result, List<ToolCall> calls) {}

  /** A tool call as journaled. */
  record Tool(int turn, int index, ToolCall call, ToolOutcome outcome) {}

  private final NodeContext.StepLog log;
  private final Map<Integer, Model> models = new HashMap<>();
  private final Map<String, Tool> tools = new HashMap<>();
  /** Answers of the mock provider that earlier executions took, rejected ones included. */
  private int mockAnswersTaken;

  private AgentSteps(NodeContext.StepLog log) {
    this.log = log;
  }

  /** This execution's journal, holding what interrupted earlier executions recorded (re-recorded as one step). */
  static AgentSteps open(NodeContext ctx) {
    AgentSteps s = new AgentSteps(ctx.steps());
    List<Map<String, Object>> flat = new ArrayList<>();
    s.mockAnswersTaken = flatten(s.log.replayed(), flat);
    for (Map<String, Object> step : flat) {
      if ("model".equals(step.get("type"))) {
        Model m = model(step);
        s.models.put(m.turn(), m);
      } else if ("tool".equals(step.get("type"))) {
        Tool t = tool(step);
        s.tools.put(t.turn() + ":" + t.index(), t);
      }
    }
    if (!flat.isEmpty() || s.mockAnswersTaken > 0) {
      Map<String, Object> resumed = new LinkedHashMap<>();
      resumed.put("type", "resumed");
      resumed.put("steps", flat);
      resumed.put("mock_answers_taken", s.mockAnswersTaken);
      s.log.record(resumed);
    }
    return s;
  }

  /**
   * Flattens {@code steps} into {@code into} (a "resumed" step holds an earlier execution's), leaving out each
   * rejected turn and what followed it. Returns how many mock answers the steps took, rejected ones included.
   */
  private static int flatten(List<Map<String, Object>> steps, List<Map<String, Object>> into) {
    int mock = 0;
    for (Map<String, Object> step : steps) {
      switch (String.valueOf(step.get("type"))) {
        case "resumed" -> {
          int inMock = 0;
          if (step.get("steps") instanceof List<?> inner) {
            for (Object o : inner) {
              if (o instanceof Map<?, ?> m) {
                into.add(copy(m));
                inMock += isMockModel(m) ? 1 : 0;
              }
            }
          }
          // The count it was resumed with includes answers of rejected turns, which its steps no longer hold.
          mock += step.get("mock_answers_taken") instanceof Number n ? n.intValue() : inMock;
        }
        case "rejected" -> {
          long turn = number(step.get("turn"));
          into.removeIf(x -> ("model".equals(x.get("type")) || "tool".equals(x.get("type")))
              && number(x.get("turn")) >= turn);
        }
        case "ended" -> {
          // written by earlier versions, which counted usage here; the engine counts it now
        }
        case "execution.ended" -> mock = 0; // its row holds the script position, which the engine restored
        default -> {
          into.add(copy(step));
          mock += isMockModel(step) ? 1 : 0;
        }
      }
    }
    return mock;
  }

  private static boolean isMockModel(Map<?, ?> step) {
    return "model".equals(step.get("type")) && Boolean.TRUE.equals(step.get("mock"));
  }

  private static Map<String, Object> copy(Map<?, ?> m) {
    Map<String, Object> out = new LinkedHashMap<>();
    m.forEach((k, v) -> out.put(String.valueOf(k), v));
    return out;
  }

  /** How many mock answers earlier executions took (see {@link MockLlm#skip}). */
  int mockAnswersTaken() {
    return mockAnswersTaken;
  }

  /** The model step of {@code turn}, when an earlier execution recorded it; else null. */
  Model model(int turn) {
    return models.get(turn);
  }

  /** The tool step of call {@code index} of {@code turn}, when an earlier execution recorded it; else null. */
  Tool tool(int turn, int index) {
    return tools.get(turn + ":" + index);
  }

  Model recordModel(int turn, LlmCalls.Result r, List<ToolCall> calls) {
    Map<String, Object> step = new LinkedHashMap<>();
    step.put("type", "model");
    step.put("turn", turn);
    step.put("text", r.text());
    List<Map<String, Object>> cs = new ArrayList<>();
    for (ToolCall c : calls) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("id", c.id());
      m.put("name", c.name());
      m.put("arguments", c.arguments());
      cs.add(m);
    }
    step.put("tool_calls", cs);
    step.put("provider", r.provider());
    step.put("model", r.model());
    step.put("input_tokens", r.inputTokens());
    step.put("output_tokens", r.outputTokens());
    step.put("cost_usd", r.costUsd());
    step.put("mock", r.mock());
    log.record(step);
    return new Model(turn, r, calls);
  }

  void recordTool(int turn, int index, ToolCall call, ToolOutcome outcome) {
    Map<String, Object> step = new LinkedHashMap<>();
    step.put("type", "tool");
    step.put("turn", turn);
    step.put("index", index);
    step.put("id", call.id());
    step.put("name", call.name());
    step.put("arguments", call.arguments());
    if (outcome.failed()) {
      step.put("error", outcome.error());
    } else {
      step.put("result", outcome.result());
    }
    log.record(step);
  }

  /**
   * Records that the reply of {@code turn} failed the execution: a resumed run asks that turn again. Never throws:
   * the failure being reported is the one that matters.
   */
  void rejected(int turn) {
    boolean interrupted = Thread.interrupted(); // a journal write must not be cut short by a pending interrupt
    try {
      log.record(Map.of("type", "rejected", "turn", turn));
    } catch (RuntimeException e) {
      // the journal may be what failed; there is nothing more to do here
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static Model model(Map<String, Object> s) {
    List<ToolCall> calls = new ArrayList<>();
    if (s.get("tool_calls") instanceof List<?> l) {
      for (Object o : l) {
        if (o instanceof Map<?, ?> c) {
          calls.add(new ToolCall(String.valueOf(c.get("id")), text(c.get("name")), text(c.get("arguments"))));
        }
      }
    }
    LlmCalls.Result r = new LlmCalls.Result(text(s.get("text")), text(s.get("provider")), text(s.get("model")),
        number(s.get("input_tokens")), number(s.get("output_tokens")),
        s.get("cost_usd") instanceof Number n ? n.doubleValue() : null, Boolean.TRUE.equals(s.get("mock")), calls);
    return new Model(turn(s), r, calls);
  }

  private static Tool tool(Map<String, Object> s) {
    ToolCall call = new ToolCall(String.valueOf(s.get("id")), text(s.get("name")), text(s.get("arguments")));
    ToolOutcome outcome = s.containsKey("error") && s.get("error") != null
        ? ToolOutcome.failed(text(s.get("error"))) : ToolOutcome.ok(s.get("result"));
    return new Tool(turn(s), (int) number(s.get("index")), call, outcome);
  }

  private static int turn(Map<String, Object> s) {
    return (int) number(s.get("turn"));
  }

  private static long number(Object o) {
    return o instanceof Number n ? n.longValue() : 0;
  }

  private static String text(Object o) {
    return o == null ? "" : String.valueOf(o);
  }
}
