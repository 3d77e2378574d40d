package dev.loopflow.llm;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.OutputRejectedException;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.expr.JsonSchemas;
import dev.loopflow.core.expr.Template;
import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.llm.provider.ChatCall;
import dev.loopflow.llm.provider.ChatMessage;
import dev.loopflow.llm.provider.Pricing;
import dev.loopflow.llm.provider.Provider;
import dev.loopflow.llm.provider.ToolSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * What an {@code llm} and an {@code agent} node share: the fields that say what to ask which model (compiled and
 * checked once, at load), the conversation an execution opens with (system prompt, session history, the new
 * messages), and the result built from the model's final answer (text, JSON checked against {@code output_schema},
 * provider, model, usage; the session continued).
 */
record LlmSettings(Template prompt, List<Map.Entry<String, Template>> messages, Template system, String model,
    String provider, Double temperature, Integer maxTokens, String schemaText, JsonSchemas.Compiled schema,
    String session, Object mock, Pricing pricing) {

  /** The providers a node may name: the wire protocols and the mock. */
  static final List<String> PROVIDERS = Stream.concat(
      Arrays.stream(Provider.values()).map(
          Provider::id), Stream.of("mock")).toList();
  /** The roles of {@code messages}; the first is the default. */
  static final List<String> ROLES = List.of("user", "assistant", "system");
  static final FieldSpec MAX_TOKENS = FieldSpec.integer("max_tokens", 1, Integer.MAX_VALUE, "The reply limit "
      + "(default: defaults.max_tokens).");
  /** What an llm node takes; an agent node takes these too. */
  static final List<FieldSpec> SPECS = List.of(
      FieldSpec.template("prompt", "The user message."),
      FieldSpec.list("messages", FieldSpec.section("messages", List.of(
          FieldSpec.choice("role", ROLES, "Who speaks (default user); system messages add to the system prompt."),
          FieldSpec.template("content", "What is said.").asRequired()), "One message."), "The conversation to send, "
          + "as {role, content}."),
      FieldSpec.template("system", "The system prompt (default: defaults.system)."),
      FieldSpec.string("model", "provider:model (openai:gpt-4o-mini, anthropic:..., ollama:llama3.2, mock:...), a "
          + "bare model name, or auto (default: defaults.model)."),
      FieldSpec.choice("provider", PROVIDERS, "The provider (default: from the model)."),
      FieldSpec.number("temperature", null, null, "The sampling temperature (default: defaults.temperature)."),
      MAX_TOKENS,
      FieldSpec.jsonSchema("output_schema", "The reply must be JSON matching this schema; the output is then the "
          + "parsed JSON."),
      FieldSpec.string("session", "A conversation's name: its earlier turns are sent first, and this exchange "
          + "is added to it."),
      FieldSpec.any("mock", "Scripted replies for the mock provider, used in order (the last repeats)."));
  static final Set<String> FIELDS = FieldSpec.names(SPECS);
  static final Set<String> RESULT_FIELDS = Set.of("text", "content", "json", "structuredOutput", "provider", "model",
      "mock", "usage");

  /** Checks and compiles the shared fields, reporting every problem through {@code cfg}. */
  static LlmSettings compile(NodeConfig cfg) {
    Template prompt = cfg.template("prompt");
    List<Map.Entry<String, Template>> messages = new ArrayList<>();
    List<Object> raw = cfg.list("messages");
    if (raw != null) {
      for (int i = 0; i < raw.size(); i++) {
        if (!(raw.get(i) instanceof Map<?, ?> m) || !(m.get("content") instanceof String content)) {
          cfg.error("messages", "message " + (i + 1) + " needs {role, content} with content a string");
          continue;
        }
        String role = m.get("role") == null ? ROLES.get(0) : String.valueOf(m.get("role"));
        if (!ROLES.contains(role)) {
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
    // An empty prompt would send the model nothing to answer (a node just added in the builder has one): the
    // workflow is not ready to run, which is said where the prompt is.
    if (prompt != null && prompt.source().isBlank()) {
      cfg.error("prompt", "'prompt' must not be empty (write the message to send to the model)");
    }
    if (raw != null && raw.isEmpty() && prompt == null) {
      cfg.error("messages", "'messages' must not be empty (give at least one {role, content})");
    }
    Template system = cfg.has("system") ? cfg.template("system")
        : cfg.defaults().get("system") instanceof String s ? cfg.template("system", s) : null;
    // A loop_group's provider reaches its body's llm nodes as a default (NodeConfig.defaults()), paired with the
    // default model: a node that names its own model does not take it.
    boolean own = cfg.has("provider");
    String provider = own ? cfg.string("provider")
        : !cfg.has("model") && cfg.defaults().get("provider") instanceof String s ? s : null;
    if (provider != null && !PROVIDERS.contains(provider)) {
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
    } else if (spec.model().isBlank()) {
      cfg.error(cfg.has("model") ? "model" : null, "model '" + model + "' names no model after the provider; "
          + "write e.g. \"" + spec.provider() + ":" + (spec.provider().equals("anthropic") ? ModelSpec.DEFAULT_ANTHROPIC
          : "gpt-4o-mini") + "\"");
    }
    Pricing pricing = WorkflowPrices.pricing(cfg.workflowSection("prices"));
    String unpriced = WorkflowPrices.unpriced(pricing, spec);
    if (unpriced != null) {
      cfg.errorUnderCostLimit(cfg.has("model") ? "model" : null, cfg.has("model") ? unpriced
          : unpriced + "; the model comes from defaults.model");
    }
    Double temperature = cfg.has("temperature") ? cfg.number("temperature")
        : cfg.defaults().get("temperature") instanceof Number n ? n.doubleValue() : null;
    Integer maxTokens = cfg.has("max_tokens") ? cfg.integer("max_tokens", MAX_TOKENS.minimumInt(),
        MAX_TOKENS.maximumInt())
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
    return new LlmSettings(prompt, messages, system, model, provider, temperature, maxTokens,
        schemaRaw == null ? null : (schemaRaw instanceof String s ? s : Json.compact(schemaRaw)), schema,
        cfg.string("session"), cfg.plain("mock"), pricing);
  }

  /**
   * How one execution opens: the model, the system prompt, the session it continues (null without one) and its
   * earlier turns, and the messages new in this execution.
   */
  record Opening(ModelSpec spec, String system, NodeContext.Conversation session, List<ChatMessage> history,
      List<ChatMessage> fresh) {
    /** The whole conversation a provider is sent first: the session's turns, then the new messages. */
    List<ChatMessage> conversation() {
      List<ChatMessage> all = new ArrayList<>(history);
      all.addAll(fresh);
      return all;
    }
  }

  Opening open(NodeContext ctx) {
    ModelSpec spec = ModelSpec.parse(model, provider, ctx.environment());
    String sys = system == null ? null : ctx.render(system);
    List<ChatMessage> history = new ArrayList<>();
    NodeContext.Conversation conversation = session == null ? null : ctx.conversation(session);
    if (conversation != null) {
      for (NodeContext.Conversation.Turn t : conversation.turns()) {
        history.add(new ChatMessage(role(t.role()), t.content()));
      }
    }
    List<ChatMessage> fresh = new ArrayList<>();
    for (Map.Entry<String, Template> m : messages) {
      if (m.getKey().equals("system")) {
        sys = (sys == null ? "" : sys + "\n") + ctx.render(m.getValue());
      } else {
        fresh.add(new ChatMessage(role(m.getKey()), ctx.render(m.getValue())));
      }
    }
    if (prompt != null) {
      fresh.add(new ChatMessage(ChatMessage.Role.USER, ctx.render(prompt)));
    }
    return new Opening(spec, sys, conversation, history, fresh);
  }

  /** The request for {@code conversation}, offering {@code tools}. */
  ChatCall request(NodeContext ctx, Opening o, List<ChatMessage> conversation, List<ToolSpec> tools) {
    return request(ctx, o, conversation, tools, true);
  }

  /** As above; {@code withSchema} false leaves {@code output_schema} out of the request. */
  ChatCall request(NodeContext ctx, Opening o, List<ChatMessage> conversation, List<ToolSpec> tools,
      boolean withSchema) {
    return LlmCalls.request(ctx, o.spec(), () -> new ChatCall(o.spec().model(), o.system(), conversation,
        temperature, maxTokens, withSchema ? schemaText : null, null, tools));
  }

  /** Whether the node has an {@code output_schema}. */
  boolean hasSchema() {
    return schema != null;
  }

  /**
   * Why {@code text} is not an answer the node accepts (not JSON, or what in it does not match
   * {@code output_schema}), or null when it is (any text is, without a schema).
   */
  String mismatch(String text) {
    if (schema == null) {
      return null;
    }
    Object json = parseJson(text);
    if (json == null) {
      return "it is not JSON";
    }
    List<String> errors = schema.validate(json);
    return errors.isEmpty() ? null
        : String.join("; ", errors.stream().map(p -> p.startsWith(": ") ? p.substring(2) : p).toList());
  }

  /**
   * The node's result for the model's final answer {@code text}: the session gets the new messages and the answer,
   * and the answer must be JSON matching {@code output_schema} when one is set. {@code more} are the kind's own
   * result fields.
   */
  NodeOutcome outcome(NodeContext ctx, Opening o, String text, String usedProvider, String usedModel, boolean mock,
      Usage usage, Map<String, Object> more) {
    return outcome(ctx, o, text, usedProvider, usedModel, mock, usage, more, true);
  }

  /**
   * How a provider was asked for {@code output_schema}, for the message of an answer that does not match it: the
   * usual cause is a server that ignored the mechanism.
   */
  static String schemaMechanism(String provider, boolean sent) {
    if (!sent) {
      return "the schema was not sent with this reply's request (output_schema_on: final sends it once the model "
          + "stops calling tools)";
    }
    return switch (provider) {
      case "openai" -> "the schema was sent as response_format json_schema; a server that ignores it answers freely";
      case "anthropic" -> "the schema was sent as output_config.format, which Anthropic-compatible servers may "
          + "ignore";
      case "ollama" -> "the schema was sent as Ollama's format";
      default -> "the mock provider does not follow schemas: its script gave this reply";
    };
  }

  /** As above; {@code schemaSent} says whether the reply's request carried {@code output_schema}. */
  NodeOutcome outcome(NodeContext ctx, Opening o, String text, String usedProvider, String usedModel, boolean mock,
      Usage usage, Map<String, Object> more, boolean schemaSent) {
    if (o.session() != null) {
      o.fresh().forEach(m -> o.session().append(new NodeContext.Conversation.Turn(
          m.role().name().toLowerCase(Locale.ROOT), m.content())));
      o.session().append(new NodeContext.Conversation.Turn("assistant", text));
    }
    Object json = parseJson(text);
    if (schema != null) {
      if (json == null) {
        throw new OutputRejectedException("the model's reply is not JSON but output_schema requires it ("
            + schemaMechanism(usedProvider, schemaSent) + "): " + abbreviate(text),
            "invalid JSON: the reply is not a JSON object or array", ctx.position());
      }
      List<String> errors = schema.validate(json);
      if (!errors.isEmpty()) {
        // A problem of the whole reply has no location (": ..."): said without one.
        String problems = String.join("; ", errors.stream().map(p -> p.startsWith(": ") ? p.substring(2) : p)
            .toList());
        throw new OutputRejectedException("the model's reply does not match output_schema ("
            + schemaMechanism(usedProvider, schemaSent) + "): " + problems, problems, ctx.position());
      }
    }
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("text", text);
    fields.put("content", text);
    fields.put("json", json);
    fields.put("structuredOutput", json);
    fields.put("provider", usedProvider);
    fields.put("model", usedModel);
    fields.put("mock", mock);
    Map<String, Object> u = new LinkedHashMap<>();
    u.put("input_tokens", usage.inputTokens());
    u.put("output_tokens", usage.outputTokens());
    u.put("cost_usd", usage.costUsd());
    fields.put("usage", u);
    fields.putAll(more);
    return new NodeOutcome(schema != null ? json : text, fields, usage, null);
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

  static String abbreviate(String s) {
    return s.length() > 200 ? s.substring(0, 197) + "..." : s;
  }
}
