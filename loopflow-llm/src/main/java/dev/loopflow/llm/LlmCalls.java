package dev.loopflow.llm;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.llm.provider.ChatCall;
import dev.loopflow.llm.provider.ChatClient;
import dev.loopflow.llm.provider.ChatMessage;
import dev.loopflow.llm.provider.ChatReply;
import dev.loopflow.llm.provider.Pricing;
import dev.loopflow.llm.provider.ProviderException;
import dev.loopflow.llm.provider.Providers;
import dev.loopflow.llm.provider.ToolCall;
import dev.loopflow.llm.provider.ToolSpec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * One accounted LLM call, shared by the llm node and the LLM-chosen router: the budget reservation before the
 * request is sent, the mock-or-real decision, provider errors mapped to {@code node_failed}, pricing, and the
 * usage settled after the call. Anything that calls a model goes through here so none of these steps can be
 * skipped.
 */
final class LlmCalls {
  /** Tokens a request may add around its text (role markers, message framing), per request and per message. */
  static final int REQUEST_OVERHEAD_TOKENS = 16;
  static final int MESSAGE_OVERHEAD_TOKENS = 8;
  /** Tokens a provider may add for structured output beyond the schema's own text (a tool-use preamble). */
  static final int SCHEMA_OVERHEAD_TOKENS = 512;
  /**
   * Tokens a provider may add per offered tool beyond its name, description and schema text (the framing of the
   * tool list; Anthropic also adds a tool-use system prompt of a few hundred tokens once per request, which this
   * covers for any request with at least one tool).
   */
  static final int TOOL_OVERHEAD_TOKENS = 400;

  private static final Map<String, ChatClient> CLIENTS = new ConcurrentHashMap<>();

  private LlmCalls() {}

  /**
   * The answer with what it cost; {@code mock} says whether the mock provider gave it. {@code toolCalls} are the
   * tools the model asked for (empty when it answered, always empty when the call offered none).
   */
  record Result(String text, String provider, String model, long inputTokens, long outputTokens, Double costUsd,
      boolean mock, List<ToolCall> toolCalls) {}

  /**
   * Sends one call: {@code request} says what a real provider gets (the whole conversation, tools, limits; its
   * timeout is set here from the run's deadline).
   *
   * @param pricing the workflow's price table
   * @param fresh the messages new in this call (what the mock provider answers to)
   * @param nodeMock the node's own mock script, or null
   */
  static Result call(NodeContext ctx, ModelSpec spec, Pricing pricing, ChatCall request, List<ChatMessage> fresh,
      Object nodeMock) {
    boolean mock = isMock(ctx, spec);
    String provider = mock ? "mock" : spec.provider();
    NodeContext.TokenPrice price = mock ? WorkflowPrices.FREE : WorkflowPrices.price(pricing, spec);
    // Everything that can fail without contacting the provider fails before the reservation, so it is no call.
    ChatClient client = null;
    if (!mock) {
      try {
        client = client(provider, ctx.environment());
        Duration remaining = ctx.remaining();
        request = request.withTimeout(remaining == null ? null
            : remaining.isNegative() || remaining.isZero() ? Duration.ofMillis(1) : remaining);
      } catch (IllegalArgumentException | IllegalStateException e) {
        throw new LoopflowException(ErrorCode.NODE_FAILED, provider + ": " + e.getMessage(), ctx.position(), e);
      }
    }
    NodeContext.Reservation reservation = ctx.llm().reserve(new NodeContext.CallPlan(provider, spec.model(),
        promptTokensAtMost(request), request.maxTokens(), price));
    boolean stream = streams(ctx);
    try {
      long t0 = System.nanoTime();
      String text;
      long in;
      long out;
      int attempts = 1;
      String model = spec.model();
      String finishReason;
      List<ToolCall> calls;
      long cacheRead = 0;
      long cacheWrite = 0;
      if (mock) {
        // The mock reports its script's token counts and ignores max_tokens, so a script can play a provider that
        // overshoots the reply limit it was sent.
        StringBuilder all = new StringBuilder();
        fresh.forEach(m -> all.append(m.content()).append('\n'));
        MockLlm.Answer a;
        try {
          a = MockLlm.answer(ctx, ctx.position().nodeId(), nodeMock, all.toString().strip());
        } catch (RuntimeException e) {
          reservation.release(); // the mock processed nothing
          throw e;
        }
        text = a.text();
        in = a.inputTokens();
        out = a.outputTokens();
        calls = a.toolCalls();
        // The mock's reply always ends by its own choice: it asked for tools or it answered.
        finishReason = calls.isEmpty() ? "stop" : "tool_calls";
        if (stream) {
          MockLlm.chunks(text).forEach(ctx::streamed);
        }
      } else {
        Integer cap = reservation.maxOutputTokens();
        if (cap != null && !cap.equals(request.maxTokens())) {
          request = request.withMaxTokens(cap);
        }
        if (Thread.currentThread().isInterrupted()) {
          reservation.cancel(); // cancelled before the request left
          ctx.checkCancelled();
        }
        ChatReply reply;
        try {
          reply = stream ? client.stream(request, new ChatClient.TextStream() {
            @Override
            public void text(String delta) {
              ctx.streamed(delta);
            }

            @Override
            public void restarted() {
              ctx.streamEnded(); // the retried attempt streams as a new reply
            }
          }) : client.chat(request);
        } catch (ProviderException e) {
          if (e.httpStatus().isPresent() && e.kind() != ProviderException.Kind.INVALID_RESPONSE) {
            reservation.release(); // the provider answered with an error: it processed nothing
          }
          throw new LoopflowException(ErrorCode.NODE_FAILED, e.getMessage(), ctx.position(), e);
        } catch (IllegalArgumentException | IllegalStateException e) {
          throw new LoopflowException(ErrorCode.NODE_FAILED, provider + ": " + e.getMessage(), ctx.position(), e);
        }
        text = reply.text() == null ? "" : reply.text();
        in = reply.inputTokens();
        out = reply.outputTokens();
        attempts = reply.attempts();
        calls = reply.toolCalls();
        finishReason = reply.finishReason();
        cacheRead = reply.cacheReadTokens();
        cacheWrite = reply.cacheWriteTokens();
        if (reply.model() != null && !reply.model().isBlank()) {
          model = reply.model();
        }
      }
      if (stream) {
        ctx.streamEnded(); // the reply's last text before its llm.called event
      }
      // The mock is free (a known zero); an unpriced real model stays null, never 0.
      Double cost = price == null ? null : price.cost(in, out, cacheRead, cacheWrite).doubleValue();
      reservation.settle(new NodeContext.LlmCall(provider, model, in, out, cost, mock, attempts,
          (System.nanoTime() - t0) / 1_000_000, spec.model(), finishReason, cacheRead == 0 ? null : cacheRead,
          cacheWrite == 0 ? null : cacheWrite));
      return new Result(text, provider, model, in, out, cost, mock, calls);
    } finally {
      // Sent, but what it used is unknown (timeout, cancelled while waiting, unreadable answer): it counts at its
      // whole reservation. Nothing when the call ended above.
      reservation.charge();
      if (stream) {
        ctx.streamEnded(); // a failed call's reply ends too; nothing when it ended above
      }
    }
  }

  /**
   * Whether this run streams replies ({@link LlmHandler#STREAM_OPTION}): the reply's text is reported as it arrives
   * ({@link NodeContext#streamed}); everything else about the call is as without streaming.
   */
  static boolean streams(NodeContext ctx) {
    return ctx.option(LlmHandler.STREAM_OPTION).map(Boolean.TRUE::equals).orElse(false);
  }

  /**
   * Builds a request, failing the node ({@code node_failed}, naming the provider) when the request is not one a
   * provider could be sent (a value out of range), as a provider's refusal would.
   */
  static ChatCall request(NodeContext ctx, ModelSpec spec, Supplier<ChatCall> build) {
    try {
      return build.get();
    } catch (IllegalArgumentException e) {
      throw new LoopflowException(ErrorCode.NODE_FAILED, spec.provider() + ": " + e.getMessage(), ctx.position(), e);
    }
  }

  /** Whether calls to {@code spec} go to the mock provider in this run. */
  static boolean isMock(NodeContext ctx, ModelSpec spec) {
    return "mock".equals(spec.provider()) || ctx.option(RunOptions.LLM_MOCK).map(Boolean.TRUE::equals).orElse(false);
  }

  /**
   * An upper bound on the tokens of what a request sends: every token of a byte-level BPE tokenizer (OpenAI's,
   * Llama 3's) covers at least one byte of UTF-8 text, so the text's size in bytes bounds its tokens; the fixed
   * overheads stand for what the provider adds around it. For other tokenizers it is an estimate, which the check
   * after the call backs (a call that reports more than it reserved and passes a limit fails).
   */
  static long promptTokensAtMost(ChatCall call) {
    long tokens = REQUEST_OVERHEAD_TOKENS;
    if (call.system() != null && !call.system().isEmpty()) {
      tokens += MESSAGE_OVERHEAD_TOKENS + bytes(call.system());
    }
    for (ChatMessage m : call.messages()) {
      tokens += MESSAGE_OVERHEAD_TOKENS + bytes(m.content());
      for (ToolCall c : m.toolCalls()) {
        tokens += MESSAGE_OVERHEAD_TOKENS + bytes(c.id()) + bytes(c.name()) + bytes(c.arguments());
      }
      if (m.role() == ChatMessage.Role.TOOL) {
        tokens += bytes(m.toolCallId()) + bytes(m.toolName());
      }
    }
    if (call.jsonSchema() != null) {
      tokens += SCHEMA_OVERHEAD_TOKENS + bytes(call.jsonSchema());
    }
    for (ToolSpec t : call.tools()) {
      tokens += TOOL_OVERHEAD_TOKENS + bytes(t.name()) + bytes(t.description())
          + bytes(Json.compact(t.parameters()));
    }
    return tokens;
  }

  private static long bytes(String s) {
    return s == null ? 0 : s.getBytes(StandardCharsets.UTF_8).length;
  }

  static ChatClient client(String provider, Map<String, String> env) {
    String up = provider.toUpperCase(Locale.ROOT);
    String key = provider + "|" + env.getOrDefault(up + "_BASE_URL", "") + "|"
        + Integer.toHexString(env.getOrDefault(up + "_API_KEY", "").hashCode());
    return CLIENTS.computeIfAbsent(key, k -> Providers.fromEnvironment(provider, env));
  }
}
