package dev.loopflow.core.loops;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.NodeProgram;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An {@code llm} node kind that answers from a script instead of a model: each node id has a list of replies, used
 * in turn (the last one repeats). A reply that parses as JSON is also given as {@code json}/{@code structuredOutput},
 * as the real LLM node does. Every rendered prompt is recorded with the position it was rendered at.
 */
final class ScriptedLlm implements NodeHandler {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final Map<String, List<String>> replies;
  private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
  /** (position path, rendered prompt), in call order. */
  final List<Map.Entry<String, String>> prompts = Collections.synchronizedList(new ArrayList<>());

  ScriptedLlm(Map<String, List<String>> replies) {
    this.replies = Map.copyOf(replies);
  }

  @Override
  public NodeKindSpec spec() {
    return NodeKindSpec.of("llm", null, List.of(FieldSpec.any("max_tokens", null), FieldSpec.any("messages", null),
        FieldSpec.any("model", null), FieldSpec.any("prompt", null), FieldSpec.any("provider", null),
        FieldSpec.any("system", null), FieldSpec.any("temperature", null)));
  }

  @Override
  public NodeProgram compile(NodeConfig cfg) {
    var prompt = cfg.template("prompt");
    String id = cfg.id();
    return ctx -> {
      String rendered = prompt == null ? "" : ctx.render(prompt);
      prompts.add(Map.entry(ctx.position().path(), rendered));
      List<String> script = replies.getOrDefault(id, List.of(rendered));
      int n = calls.computeIfAbsent(id, k -> new AtomicInteger()).getAndIncrement();
      String text = script.get(Math.min(n, script.size() - 1));
      Object json = null;
      try {
        json = JSON.readValue(text, Object.class);
      } catch (Exception notJson) {
        // plain text reply
      }
      NodeOutcome out = NodeOutcome.of(text).with("text", text);
      return json == null ? out : out.with("json", json).with("structuredOutput", json);
    };
  }

  List<String> promptsAt(String nodeId) {
    synchronized (prompts) {
      return prompts.stream().filter(e -> e.getKey().endsWith("." + nodeId) || e.getKey().equals(nodeId))
          .map(Map.Entry::getValue).toList();
    }
  }
}
