package dev.loopflow.llm.internal.tools;

import dev.loopflow.core.expr.Json;
import dev.loopflow.core.expr.JsonSchemas;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.core.spi.SharedMemory;
import dev.loopflow.llm.provider.ToolSpec;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code shared_memory_read} and {@code shared_memory_write}: the run's shared memory by namespace ({@code workflow}
 * by default, {@code session}, {@code agent}, {@code global}) and key. The session namespace belongs to the node's
 * {@code session:}, the agent namespace to the node's id. A value written that is not text is stored as its JSON.
 */
final class MemoryTool implements Tool {
  static final String READ = "shared_memory_read";
  static final String WRITE = "shared_memory_write";
  private static final List<String> NAMESPACES = List.of("workflow", "session", "agent", "global");

  private final boolean write;
  private final String session;
  private final String agentId;
  private final ToolSpec spec;
  private final JsonSchemas.Compiled schema;

  MemoryTool(boolean write, String session, String agentId) {
    this.write = write;
    this.session = session;
    this.agentId = agentId;
    Map<String, Object> props = Params.props(
        "namespace", Params.oneOf("where the value lives: workflow (this run, the default), session, agent, global",
            NAMESPACES),
        "key", Params.string("the key"));
    if (write) {
      props.put("value", Map.of("description", "the value to store (text, or any JSON value)"));
    }
    Map<String, Object> parameters = Params.object(props, write ? List.of("key", "value") : List.of("key"));
    this.spec = new ToolSpec(write ? WRITE : READ, write
        ? "Stores a value in the run's shared memory under a key, replacing what was there."
        : "Reads the value stored under a key in the run's shared memory.", parameters);
    this.schema = Params.compile(parameters);
  }

  @Override
  public ToolSpec spec() {
    return spec;
  }

  @Override
  public JsonSchemas.Compiled schema() {
    return schema;
  }

  @Override
  public Object call(NodeContext ctx, Map<String, Object> args) throws ToolError {
    String ns = args.get("namespace") instanceof String s ? s : "workflow";
    SharedMemory.Namespace namespace = SharedMemory.Namespace.parse(ns).orElseThrow();
    String owner = switch (namespace) {
      case SESSION -> {
        if (session == null) {
          throw new ToolError("the session namespace belongs to the node's session, and this node has no session:");
        }
        yield session;
      }
      case AGENT -> agentId;
      default -> null;
    };
    String key = (String) args.get("key");
    if (!write) {
      return ctx.sharedMemory().get(namespace, owner, key).value();
    }
    Object value = args.get("value");
    String text = value instanceof String s ? s : Json.compact(value);
    SharedMemory.Item item = ctx.sharedMemory().put(namespace, owner, key, text, Map.of("agent_id", agentId));
    return "stored " + key + " in " + namespace.name().toLowerCase(Locale.ROOT) + " (" + item.metadata()
        .getOrDefault("full_size", String.valueOf(text.length())) + " bytes)";
  }
}
