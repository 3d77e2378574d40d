package dev.loopflow.llm;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.expr.Values;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.llm.provider.ToolCall;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/*
 * The mock provider: for demos and tests, always labelled "mock" in events, progress and results.
 *
 * Responses come from, in order of precedence: the run option llm.mock_script (the script itself, as the CLI
 * passes it so that it is journaled with the run and a resume answers from the same script; or the path of a JSON
 * or YAML file, read at every call), the
 * workflow's `mock:` block, the node's own `mock:` list. A script is a list (answers for every LLM call in
 * call order) or a map from node id to list. Each response is a string or {text, input_tokens,
 * output_tokens}, or, for an agent, {tool_calls: [{name, arguments, id?}], text?, input_tokens?, output_tokens?}:
 * the model asks for those tools (arguments is a mapping, sent as its JSON, or a string sent as it is written, so a
 * script can play a model that writes broken JSON). When a list runs out its last response repeats, so a loop can
 * run to its bound. With no script at all the mock echoes the prompt. The position in each list is kept in the run
 * (as a named conversation) so it survives with the run's other data.
 */
final class MockLlm {
  private MockLlm() {}

  record Answer(String text, long inputTokens, long outputTokens, List<ToolCall> toolCalls) {}

  /** A reply's text in (at most) four pieces, as a streaming mock sends it; a surrogate pair is never split. */
  static List<String> chunks(String text) {
    List<String> out = new ArrayList<>();
    int size = Math.max(1, (text.length() + 3) / 4);
    for (int i = 0; i < text.length(); ) {
      int end = Math.min(text.length(), i + size);
      if (end < text.length() && Character.isLowSurrogate(text.charAt(end))) {
        end++;
      }
      out.add(text.substring(i, end));
      i = end;
    }
    return out;
  }

  /** The script list a node's calls answer from, and the key its position is kept under. */
  private record Script(List<?> list, String key) {}

  static Answer answer(NodeContext ctx, String nodeId, Object nodeScript, String prompt) {
    Script script = script(ctx, nodeId, nodeScript);
    long in = Math.max(1, prompt.length() / 4);
    if (script == null) {
      String echo = prompt.length() > 200 ? prompt.substring(0, 200) + "..." : prompt;
      String text = "[mock] " + echo;
      return new Answer(text, in, Math.max(1, text.length() / 4), List.of());
    }
    NodeContext.Conversation cursor = ctx.runLog("mock-cursor:" + script.key());
    int index;
    synchronized (cursor) {
      index = cursor.turns().size();
      cursor.append(new NodeContext.Conversation.Turn("cursor", String.valueOf(index)));
    }
    int at = Math.min(index, script.list().size() - 1);
    Object r = script.list().get(at);
    if (r instanceof Map<?, ?> m) {
      Object text = m.containsKey("text") ? m.get("text") : m.containsKey("json") ? Json.compact(m.get("json")) : "";
      String t = text == null ? "" : text instanceof String s ? s : Json.compact(text);
      List<ToolCall> calls = toolCalls(m.get("tool_calls"), at);
      long i = m.get("input_tokens") instanceof Number n ? n.longValue() : in;
      long o = m.get("output_tokens") instanceof Number n ? n.longValue()
          : Math.max(1, (t.length() + Json.compact(m.get("tool_calls")).length()) / 4);
      return new Answer(t, i, o, calls);
    }
    String t = r instanceof String s ? s : Json.compact(r);
    return new Answer(t, in, Math.max(1, t.length() / 4), List.of());
  }

  /**
   * Moves the node's script position on by {@code calls}: the answers an interrupted execution took, whose position
   * was lost with it (a position is journaled with the execution that took it), so the execution that continues it
   * answers from where the interrupted one stopped.
   */
  static void skip(NodeContext ctx, String nodeId, Object nodeScript, int calls) {
    Script script = script(ctx, nodeId, nodeScript);
    if (script == null || calls <= 0) {
      return;
    }
    NodeContext.Conversation cursor = ctx.runLog("mock-cursor:" + script.key());
    synchronized (cursor) {
      for (int i = 0; i < calls; i++) {
        cursor.append(new NodeContext.Conversation.Turn("cursor", String.valueOf(cursor.turns().size())));
      }
    }
  }

  private static Script script(NodeContext ctx, String nodeId, Object nodeScript) {
    Object script = ctx.option("llm.mock_script")
        .map(p -> p instanceof String path ? MockScripts.read(Path.of(path)) : p).orElse(null);
    if (script == null && ctx.workflowBlock("mock") instanceof Map<?, ?> block) {
      script = block.get("responses");
    }
    List<?> list = null;
    String key = "*";
    if (script instanceof Map<?, ?> byNode && byNode.get(nodeId) instanceof List<?> l) {
      list = l;
      key = nodeId;
    } else if (script instanceof List<?> l) {
      list = l;
    }
    if (list == null && nodeScript instanceof List<?> l) {
      list = l;
      key = "node:" + nodeId;
    }
    return list == null || list.isEmpty() ? null : new Script(list, key);
  }

  /** A scripted reply's tool calls; a malformed entry fails the call with where it is in the script. */
  private static List<ToolCall> toolCalls(Object raw, int at) {
    if (raw == null) {
      return List.of();
    }
    if (!(raw instanceof List<?> list)) {
      throw bad(at, "tool_calls must be a list of {name, arguments}, found " + Values.describe(raw));
    }
    List<ToolCall> calls = new ArrayList<>();
    for (Object o : list) {
      if (!(o instanceof Map<?, ?> c) || !(c.get("name") instanceof String name)) {
        throw bad(at, "tool call " + (calls.size() + 1) + " needs a name");
      }
      Object args = c.get("arguments");
      String arguments = args == null ? "{}" : args instanceof String s ? s : Json.compact(args);
      String id = c.get("id") instanceof String s && !s.isBlank() ? s : "mock_call_" + (calls.size() + 1);
      calls.add(new ToolCall(id, name, arguments));
    }
    return calls;
  }

  private static LoopflowException bad(int at, String why) {
    return new LoopflowException(ErrorCode.NODE_FAILED, "mock script reply " + (at + 1) + ": " + why);
  }
}
