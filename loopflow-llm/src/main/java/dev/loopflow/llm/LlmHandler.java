package dev.loopflow.llm;

import dev.loopflow.core.ErrorCode;
import dev.loopflow.core.LoopflowException;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.expr.JsonSchemas;
import dev.loopflow.core.expr.Template;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.NodeProgram;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.llm.provider.ChatMessage;
import dev.loopflow.llm.provider.Pricing;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code llm}: one chat call. Result fields: {@code text} (alias {@code content}), {@code json} (alias
 * {@code structuredOutput}; the reply parsed as JSON when it is JSON, validated against {@code output_schema}
 * when one is given), {@code provider}, {@code model}, {@code mock}, {@code usage}. {@code output} is the JSON
 * value when {@code output_schema} is set and the text otherwise.
 */
public final class LlmHandler implements NodeHandler {
  /** For ServiceLoader, which finds this handler; engines may also register it by hand. */
  public LlmHandler() {}

  @Override
  public String kind() {
    return "llm";
  }

  @Override
  public Set<String> fields() {
    return Set.of("prompt", "messages", "system", "model", "provider", "temperature", "max_tokens",
        "output_schema", "session", "mock");
  }

  @Override
  public Set<String> resultFields() {
    return Set.of("text", "content", "json", "structuredOutput", "provider", "model", "mock", "usage");
  }

  private record Compiled(Template prompt, List<Map.Entry<String, Template>> messages, Template system,
      String model, String provider, Double temperature, Integer maxTokens, String schemaText,
      JsonSchemas.Compiled schema, String session, Object mock, String nodeId, Pricing pricing) {}

  @Override
  public NodeProgram compile(NodeConfig cfg) {
    Template prompt = cfg.template("prompt");
    List<Map.Entry<String, Template>> messages = new ArrayList<>();
    List<Object> raw = cfg.list("messages");
    if (raw != null) {
      for (int i = 0; i < raw.size(); i++) {
        if (!(raw.get(i) instanceof Map<?, ?> m) || !(m.get("content") instanceof String content)) {
          cfg.error("messages", "message " + (i + 1) + " needs {role, content} with content a string");
          continue;
        }
        String role = m.get("role") == null ? "user" : String.valueOf(m.get("role"));
        if (!Set.of("user", "assistant", "system").contains(role)) {
          cfg.error("messages", "message " + (i + 1) + " has unknown role '" + role + "'; expected user, assistant "
              + "or system");
          continue;
        }
        Template t = cfg.template("messages", content);
        if (t != null) {
          messages.add(Map.entry(role, t));
        }
      }
    }
    if (prompt == null && messages.isEmpty() && !cfg.has("prompt") && !cfg.has("messages")) {
      cfg.error(null, "missing required field 'prompt' (or 'messages')");
    }
    Template system = cfg.has("system") ? cfg.template("system")
        : cfg.defaults().get("system") instanceof String s ? cfg.template("system", s) : null;
    // A loop_group's provider reaches its body's llm nodes as a default (NodeConfig.defaults()), paired with the
    // default model: a node that names its own model does not take it.
    boolean own = cfg.has("provider");
    String provider = own ? cfg.string("provider")
        : !cfg.has("model") && cfg.defaults().get("provider") instanceof String s ? s : null;
    if (provider != null && !Set.of("openai", "anthropic", "ollama", "mock").contains(provider)) {
      cfg.error(own ? "provider" : null, "unknown provider '" + provider + "'" + (own ? ""
          : " (given by the enclosing loop_group)") + "; expected openai, anthropic, ollama or mock");
    }
    String model = cfg.has("model") ? cfg.string("model")
        : cfg.defaults().get("model") instanceof String s ? s : null;
    ModelSpec spec = ModelSpec.parse(model, provider, Map.of());
    if (spec == null) {
      cfg.error(null, "missing 'model' (set it on the node or in defaults.model, e.g. \"openai:gpt-4o-mini\")");
    } else if (spec.provider() == null) {
      cfg.error("model", "cannot tell the provider of model '" + model + "'; write it as provider:model, e.g. "
          + "\"ollama:" + model + "\"");
    }
    Pricing pricing = WorkflowPrices.pricing(cfg.workflowSection("prices"));
    String unpriced = WorkflowPrices.unpriced(pricing, spec);
    if (unpriced != null) {
      cfg.errorUnderCostLimit(cfg.has("model") ? "model" : null, cfg.has("model") ? unpriced
          : unpriced + "; the model comes from defaults.model");
    }
    Double temperature = cfg.has("temperature") ? cfg.number("temperature")
        : cfg.defaults().get("temperature") instanceof Number n ? n.doubleValue() : null;
    Integer maxTokens = cfg.has("max_tokens") ? cfg.integer("max_tokens", 1, Integer.MAX_VALUE)
        : cfg.defaults().get("max_tokens") instanceof Number n ? n.intValue() : null;
    Object schemaRaw = cfg.plain("output_schema");
    JsonSchemas.Compiled schema = null;
    if (schemaRaw != null) {
      try {
        schema = JsonSchemas.compile(schemaRaw);
      } catch (IllegalArgumentException e) {
        cfg.error("output_schema", e.getMessage());
      }
    }
    Compiled c = new Compiled(prompt, messages, system, model, provider, temperature, maxTokens,
        schemaRaw == null ? null : (schemaRaw instanceof String s ? s : Json.compact(schemaRaw)), schema,
        cfg.string("session"), cfg.plain("mock"), cfg.id(), pricing);
    // output: key stores an llm node's whole reply (text, json, usage), not only its text.
    return new NodeProgram() {
      @Override
      public NodeOutcome execute(NodeContext ctx) throws Exception {
        return LlmHandler.execute(ctx, c);
      }

      @Override
      public boolean storesWholeResult() {
        return true;
      }
    };
  }

  private static NodeOutcome execute(NodeContext ctx, Compiled c) throws Exception {
    ModelSpec spec = ModelSpec.parse(c.model(), c.provider(), ctx.environment());
    String system = c.system() == null ? null : ctx.render(c.system());
    List<ChatMessage> messages = new ArrayList<>();
    NodeContext.Conversation session = c.session() == null ? null : ctx.conversation(c.session());
    if (session != null) {
      for (NodeContext.Conversation.Turn t : session.turns()) {
        messages.add(new ChatMessage(role(t.role()), t.content()));
      }
    }
    List<ChatMessage> fresh = new ArrayList<>();
    for (Map.Entry<String, Template> m : c.messages()) {
      if (m.getKey().equals("system")) {
        system = (system == null ? "" : system + "\n") + ctx.render(m.getValue());
      } else {
        fresh.add(new ChatMessage(role(m.getKey()), ctx.render(m.getValue())));
      }
    }
    if (c.prompt() != null) {
      fresh.add(new ChatMessage(ChatMessage.Role.USER, ctx.render(c.prompt())));
    }
    messages.addAll(fresh);
    LlmCalls.Result r = LlmCalls.call(ctx, spec, c.pricing(), system, messages, fresh, c.temperature(),
        c.maxTokens(), c.schemaText(), c.mock());
    String text = r.text();
    if (session != null) {
      fresh.forEach(m -> session.append(new NodeContext.Conversation.Turn(m.role().name().toLowerCase(), m.content())));
      session.append(new NodeContext.Conversation.Turn("assistant", text));
    }
    Object json = parseJson(text);
    if (c.schema() != null) {
      if (json == null) {
        throw new LoopflowException(ErrorCode.NODE_FAILED, "the model's reply is not JSON but output_schema requires "
            + "it: " + abbreviate(text), ctx.position());
      }
      List<String> errors = c.schema().validate(json);
      if (!errors.isEmpty()) {
        throw new LoopflowException(ErrorCode.NODE_FAILED, "the model's reply does not match output_schema: "
            + String.join("; ", errors), ctx.position());
      }
    }
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("text", text);
    fields.put("content", text);
    fields.put("json", json);
    fields.put("structuredOutput", json);
    fields.put("provider", r.provider());
    fields.put("model", r.model());
    fields.put("mock", r.mock());
    Map<String, Object> usage = new LinkedHashMap<>();
    usage.put("input_tokens", r.inputTokens());
    usage.put("output_tokens", r.outputTokens());
    usage.put("cost_usd", r.costUsd());
    fields.put("usage", usage);
    return new NodeOutcome(c.schema() != null ? json : text, fields, Usage.ofCall(r.inputTokens(), r.outputTokens(), r.costUsd()), null);
  }

  private static ChatMessage.Role role(String r) {
    return switch (r) {
      case "assistant" -> ChatMessage.Role.ASSISTANT;
      case "system" -> ChatMessage.Role.SYSTEM;
      default -> ChatMessage.Role.USER;
    };
  }

  /** The reply as JSON when it is JSON (a ```json fenced block counts), else null. */
  static Object parseJson(String text) {
    String t = text.strip();
    if (t.startsWith("```")) {
      int nl = t.indexOf('\n');
      int end = t.lastIndexOf("```");
      if (nl > 0 && end > nl) {
        t = t.substring(nl + 1, end).strip();
      }
    }
    if (!(t.startsWith("{") || t.startsWith("["))) {
      return null;
    }
    try {
      return Json.parse(t);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static String abbreviate(String s) {
    return s.length() > 200 ? s.substring(0, 197) + "..." : s;
  }
}
