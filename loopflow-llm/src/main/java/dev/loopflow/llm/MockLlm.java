package dev.loopflow.llm;

import dev.loopflow.core.expr.Json;
import dev.loopflow.core.spi.NodeContext;
import java.nio.file.Path;
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
 * output_tokens}. When a list runs out its last response repeats, so a loop can run to its bound. With no
 * script at all the mock echoes the prompt. The position in each list is kept in the run (as a named
 * conversation) so it survives with the run's other data.
 */
final class MockLlm {
  private MockLlm() {}

  record Answer(String text, long inputTokens, long outputTokens) {}

  static Answer answer(NodeContext ctx, String nodeId, Object nodeScript, String prompt) {
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
    long in = Math.max(1, prompt.length() / 4);
    if (list == null || list.isEmpty()) {
      String echo = prompt.length() > 200 ? prompt.substring(0, 200) + "..." : prompt;
      String text = "[mock] " + echo;
      return new Answer(text, in, Math.max(1, text.length() / 4));
    }
    NodeContext.Conversation cursor = ctx.runLog("mock-cursor:" + key);
    int index;
    synchronized (cursor) {
      index = cursor.turns().size();
      cursor.append(new NodeContext.Conversation.Turn("cursor", String.valueOf(index)));
    }
    Object r = list.get(Math.min(index, list.size() - 1));
    if (r instanceof Map<?, ?> m) {
      Object text = m.containsKey("text") ? m.get("text") : m.containsKey("json") ? Json.compact(m.get("json")) : "";
      String t = text instanceof String s ? s : Json.compact(text);
      long i = m.get("input_tokens") instanceof Number n ? n.longValue() : in;
      long o = m.get("output_tokens") instanceof Number n ? n.longValue() : Math.max(1, t.length() / 4);
      return new Answer(t, i, o);
    }
    String t = r instanceof String s ? s : Json.compact(r);
    return new Answer(t, in, Math.max(1, t.length() / 4));
  }
}
