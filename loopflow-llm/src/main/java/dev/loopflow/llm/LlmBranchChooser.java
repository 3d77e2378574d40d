package dev.loopflow.llm;

import dev.loopflow.core.ErrorCode;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.LoopflowException;
import dev.loopflow.core.expr.Values;
import dev.loopflow.core.spi.BranchChooser;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.llm.provider.ChatCall;
import dev.loopflow.llm.provider.ChatMessage;
import dev.loopflow.llm.provider.ChatReply;
import dev.loopflow.llm.provider.Pricing;
import java.util.List;
import java.util.Map;

/**
 * Asks a model to pick a router branch. The model sees the routes with their descriptions and the value,
 * and must answer with one branch name (optionally followed by a reason). An answer naming no branch fails the
 * router rather than silently taking a default.
 */
public final class LlmBranchChooser implements BranchChooser, Loopflow.ServiceProvider {
  @Override
  public void register(Loopflow.Builder builder) {
    builder.service(BranchChooser.class, this);
  }

  @Override
  public Choice choose(NodeContext ctx, String model, String instructions, Map<String, String> routes, Object value) {
    StringBuilder prompt = new StringBuilder();
    if (instructions != null) {
      prompt.append(instructions).append("\n\n");
    }
    prompt.append("Choose exactly one branch for the input below. Branches:\n");
    routes.forEach((k, d) -> prompt.append("- ").append(k).append(": ").append(d).append('\n'));
    prompt.append("\nInput:\n").append(Values.text(value)).append("\n\nAnswer with the branch name on the first "
        + "line, then a short reason.");
    ModelSpec spec = ModelSpec.parse(model, null, ctx.environment());
    boolean mock = "mock".equals(spec.provider()) || ctx.option("llm.mock").map(Boolean.TRUE::equals).orElse(false);
    String provider = mock ? "mock" : spec.provider();
    ctx.llm().beforeCall(provider, spec.model());
    long t0 = System.nanoTime();
    String text;
    long in;
    long out;
    int attempts = 1;
    if (mock) {
      MockLlm.Answer a = MockLlm.answer(ctx, ctx.position().nodeId(), null, prompt.toString());
      text = a.text().startsWith("[mock]") ? routes.keySet().iterator().next() + "\n(mock: first branch)" : a.text();
      in = a.inputTokens();
      out = a.outputTokens();
    } else {
      ChatReply reply = LlmHandler.client(provider, ctx.environment()).chat(new ChatCall(spec.model(), null,
          List.of(new ChatMessage(ChatMessage.Role.USER, prompt.toString())), 0.0, 200, null, null));
      text = reply.text();
      in = reply.inputTokens();
      out = reply.outputTokens();
      attempts = reply.attempts();
    }
    Double cost = mock ? Double.valueOf(0.0) : Pricing.defaults().cost(provider, spec.model(), in, out)
        .map(java.math.BigDecimal::doubleValue).orElse(null);
    ctx.llm().afterCall(new NodeContext.LlmCall(provider, spec.model(), in, out, cost, mock, attempts,
        (System.nanoTime() - t0) / 1_000_000));
    String first = text.strip().split("\n", 2)[0].strip().replaceAll("^[\"'`*]+|[\"'`*.:]+$", "");
    for (String b : routes.keySet()) {
      if (b.equalsIgnoreCase(first)) {
        return new Choice(b, text.strip(), Usage.ofCall(in, out, cost));
      }
    }
    for (String b : routes.keySet()) {
      if (text.toLowerCase().contains(b.toLowerCase())) {
        return new Choice(b, text.strip(), Usage.ofCall(in, out, cost));
      }
    }
    throw new LoopflowException(ErrorCode.NODE_FAILED, "the model chose no known branch " + routes.keySet()
        + "; it answered: " + (text.length() > 200 ? text.substring(0, 197) + "..." : text), ctx.position());
  }
}
