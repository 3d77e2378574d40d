package dev.loopflow.llm;

import dev.loopflow.core.ErrorCode;
import dev.loopflow.core.LoopflowException;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.llm.provider.ChatCall;
import dev.loopflow.llm.provider.ChatClient;
import dev.loopflow.llm.provider.ChatMessage;
import dev.loopflow.llm.provider.ChatReply;
import dev.loopflow.llm.provider.Pricing;
import dev.loopflow.llm.provider.ProviderException;
import dev.loopflow.llm.provider.Providers;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One accounted LLM call, shared by the llm node and the LLM-chosen router: the budget check before the
 * call, the mock-or-real decision, provider errors mapped to {@code node_failed}, pricing, and the usage
 * record after the call. Anything that calls a model goes through here so none of these steps can be skipped.
 */
final class LlmCalls {
  private static final Map<String, ChatClient> CLIENTS = new ConcurrentHashMap<>();
  private static final Pricing PRICING = Pricing.defaults();

  private LlmCalls() {}

  /** The answer with what it cost; {@code mock} says whether the mock provider gave it. */
  record Result(String text, String provider, String model, long inputTokens, long outputTokens, Double costUsd,
      boolean mock) {}

  /**
   * @param fresh the messages new in this call (what the mock provider answers to)
   * @param messages the whole conversation sent to a real provider (session history + fresh)
   * @param nodeMock the node's own mock script, or null
   */
  static Result call(NodeContext ctx, ModelSpec spec, String system, List<ChatMessage> messages,
      List<ChatMessage> fresh, Double temperature, Integer maxTokens, String jsonSchema, Object nodeMock) {
    boolean mock = "mock".equals(spec.provider()) || ctx.option("llm.mock").map(Boolean.TRUE::equals).orElse(false);
    String provider = mock ? "mock" : spec.provider();
    ctx.llm().beforeCall(provider, spec.model());
    long t0 = System.nanoTime();
    String text;
    long in;
    long out;
    int attempts = 1;
    String model = spec.model();
    if (mock) {
      StringBuilder all = new StringBuilder();
      fresh.forEach(m -> all.append(m.content()).append('\n'));
      MockLlm.Answer a = MockLlm.answer(ctx, ctx.position().nodeId(), nodeMock, all.toString().strip());
      text = a.text();
      in = a.inputTokens();
      out = a.outputTokens();
    } else {
      Duration remaining = ctx.remaining();
      ChatCall call = new ChatCall(spec.model(), system, messages, temperature, maxTokens, jsonSchema,
          remaining == null ? null : remaining.isNegative() || remaining.isZero() ? Duration.ofMillis(1) : remaining);
      ChatReply reply;
      try {
        reply = client(provider, ctx.environment()).chat(call);
      } catch (ProviderException e) {
        throw new LoopflowException(ErrorCode.NODE_FAILED, e.getMessage(), ctx.position(), e);
      } catch (IllegalArgumentException | IllegalStateException e) {
        throw new LoopflowException(ErrorCode.NODE_FAILED, provider + ": " + e.getMessage(), ctx.position(), e);
      }
      text = reply.text() == null ? "" : reply.text();
      in = reply.inputTokens();
      out = reply.outputTokens();
      attempts = reply.attempts();
      if (reply.model() != null && !reply.model().isBlank()) {
        model = reply.model();
      }
    }
    // The mock is free (a known zero); an unpriced real model stays null, never 0.
    Double cost = mock ? Double.valueOf(0.0)
        : PRICING.cost(provider, spec.model(), in, out).map(BigDecimal::doubleValue).orElse(null);
    ctx.llm().afterCall(new NodeContext.LlmCall(provider, model, in, out, cost, mock, attempts,
        (System.nanoTime() - t0) / 1_000_000));
    return new Result(text, provider, model, in, out, cost, mock);
  }

  static ChatClient client(String provider, Map<String, String> env) {
    String up = provider.toUpperCase(java.util.Locale.ROOT);
    String key = provider + "|" + env.getOrDefault(up + "_BASE_URL", "") + "|"
        + Integer.toHexString(env.getOrDefault(up + "_API_KEY", "").hashCode());
    return CLIENTS.computeIfAbsent(key, k -> Providers.fromEnvironment(provider, env));
  }
}
