package dev.loopflow.core.restart;

import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.NodeProgram;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An {@code agent} node kind whose replies are computed by the test: each node id has a function from the call
 * (the context, the node's call count so far, the rendered prompt) to the reply text. The function may act
 * through the context first (request restarts, write shared memory), as a model's tools would. Rendered prompts
 * are recorded by position path.
 */
final class HostileAgent implements NodeHandler {
  record Call(NodeContext ctx, int n, String prompt) {}

  interface Reply {
    String answer(Call call) throws Exception;
  }

  private final Map<String, Reply> replies;
  private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
  final List<Map.Entry<String, String>> prompts = Collections.synchronizedList(new ArrayList<>());

  HostileAgent(Map<String, Reply> replies) {
    this.replies = Map.copyOf(replies);
  }

  @Override
  public NodeKindSpec spec() {
    return NodeKindSpec.of("agent", null, List.of(FieldSpec.any("max_turns", null), FieldSpec.any("model", null),
        FieldSpec.any("output_schema", null), FieldSpec.any("prompt", null), FieldSpec.any("session", null),
        FieldSpec.any("system", null), FieldSpec.any("tools", null)));
  }

  @Override
  public Set<String> resultFields() {
    return Set.of("text", "json", "usage", "tool_calls", "validation_retries", "stage_num");
  }

  @Override
  public NodeProgram compile(NodeConfig cfg) {
    var prompt = cfg.template("prompt");
    String id = cfg.id();
    return ctx -> {
      String rendered = prompt == null ? "" : ctx.render(prompt);
      prompts.add(Map.entry(ctx.position().path(), rendered));
      int n = calls.computeIfAbsent(id, k -> new AtomicInteger()).getAndIncrement();
      Reply r = replies.get(id);
      String text = r == null ? ScriptedAgent.VALID : r.answer(new Call(ctx, n, rendered));
      return NodeOutcome.of(text).with("text", text);
    };
  }

  int calls(String id) {
    AtomicInteger n = calls.get(id);
    return n == null ? 0 : n.get();
  }

  List<String> promptsOf(String id) {
    synchronized (prompts) {
      return prompts.stream().filter(e -> e.getKey().endsWith("." + id) || e.getKey().equals(id))
          .map(Map.Entry::getValue).toList();
    }
  }
}
