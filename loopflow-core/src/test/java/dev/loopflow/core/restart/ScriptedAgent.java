package dev.loopflow.core.restart;

import com.fasterxml.jackson.databind.ObjectMapper;
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
 * An {@code agent} node kind that answers from a script: each node id has a list of replies used in turn (the last
 * repeats). A reply {@code @restart TARGET REASON} asks for a restart through the node context (as the
 * request_restart tool does) and answers a valid stage output. Rendered prompts and the session names used are
 * recorded.
 */
public final class ScriptedAgent implements NodeHandler {
  public static final String VALID = "{\"inputs\": {}, \"outputs\": {\"ok\": true}, \"evidence\": {\"tool_calls\": []}}";
  private static final ObjectMapper JSON = new ObjectMapper();
  private final Map<String, List<String>> replies;
  private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
  final List<Map.Entry<String, String>> prompts = Collections.synchronizedList(new ArrayList<>());
  final List<String> sessions = Collections.synchronizedList(new ArrayList<>());

  public ScriptedAgent(Map<String, List<String>> replies) {
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
    String session = cfg.string("session");
    return ctx -> {
      String rendered = prompt == null ? "" : ctx.render(prompt);
      prompts.add(Map.entry(ctx.position().path(), rendered));
      if (session != null) {
        ctx.conversation(session).append(new NodeContext.Conversation.Turn("user", rendered));
        sessions.add(session + ":" + ctx.conversation(session).turns().size());
      }
      int n = calls.computeIfAbsent(id, k -> new AtomicInteger()).getAndIncrement();
      // "id@k": the reply for restart iteration k, whatever ran before (a resumed run repeats nothing twice).
      Object iteration = ctx.scope().get("loop") instanceof Map<?, ?> loop ? loop.get("iteration") : null;
      List<String> byIteration = replies.get(id + "@" + iteration);
      List<String> script = byIteration != null ? byIteration : replies.getOrDefault(id, List.of(VALID));
      String text = byIteration != null ? byIteration.get(0) : script.get(Math.min(n, script.size() - 1));
      if (text.startsWith("@restart ")) {
        String[] p = text.split(" ", 3);
        ctx.requestRestart(p[1], p.length > 2 ? p[2] : "", Map.of());
        text = VALID;
      }
      Object json = null;
      try {
        json = JSON.readValue(text, Object.class);
      } catch (Exception notJson) {
        // plain text
      }
      NodeOutcome out = NodeOutcome.of(text).with("text", text);
      return json == null ? out : out.with("json", json);
    };
  }

  public int calls(String id) {
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
