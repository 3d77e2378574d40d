package dev.loopflow.llm;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.expr.Values;
import dev.loopflow.core.spi.BranchChooser;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.llm.provider.ChatCall;
import dev.loopflow.llm.provider.ChatMessage;
import java.util.List;
import java.util.Map;

/**
 * Asks a model to pick a router branch. The model sees the routes with their descriptions and the value,
 * and must answer with one branch name (optionally followed by a reason). An answer naming no branch fails the
 * router rather than silently taking a default.
 */
public final class LlmBranchChooser implements BranchChooser {
  public LlmBranchChooser() {}

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
    List<ChatMessage> question = List.of(new ChatMessage(ChatMessage.Role.USER, prompt.toString()));
    LlmCalls.Result r = LlmCalls.call(ctx, spec, WorkflowPrices.pricing(ctx.workflowBlock("prices")),
        LlmCalls.request(ctx, spec, () -> new ChatCall(spec.model(), null, question, 0.0, 200, null, null)), question,
        null);
    // With no mock script the mock echoes its prompt; for a router that means "take the first branch".
    String text = r.mock() && r.text().startsWith("[mock]")
        ? routes.keySet().iterator().next() + "\n(mock: first branch)" : r.text();
    Usage usage = Usage.ofCall(r.inputTokens(), r.outputTokens(), r.costUsd());
    String first = text.strip().split("\n", 2)[0].strip().replaceAll("^[\"'`*]+|[\"'`*.:]+$", "");
    for (String b : routes.keySet()) {
      if (b.equalsIgnoreCase(first)) {
        return new Choice(b, text.strip(), usage);
      }
    }
    for (String b : routes.keySet()) {
      if (text.toLowerCase().contains(b.toLowerCase())) {
        return new Choice(b, text.strip(), usage);
      }
    }
    throw new LoopflowException(ErrorCode.NODE_FAILED, "the model chose no known branch " + routes.keySet()
        + "; it answered: " + (text.length() > 200 ? text.substring(0, 197) + "..." : text), ctx.position());
  }
}
