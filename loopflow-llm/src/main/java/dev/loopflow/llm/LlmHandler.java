package dev.loopflow.llm;

import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.NodeProgram;
import dev.loopflow.core.spi.Usage;
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
  /**
   * Run option: when {@code true}, llm and agent nodes (and LLM-chosen routers) ask the provider to stream each
   * reply and report its text as it arrives ({@code node.streaming} events, which are not journaled). Results,
   * usage, cost, retries, timeouts, budgets and tool calls are the same as without it. Off by default;
   * {@code loopflow run} turns it on while it shows progress.
   */
  public static final String STREAM_OPTION = "llm.stream";

  /** For ServiceLoader, which finds this handler; engines may also register it by hand. */
  public LlmHandler() {}

  static final NodeKindSpec SPEC = NodeKindSpec.of("llm", "One chat call: prompt or messages, to a model; the "
      + "result has text, json, usage and cost.", LlmSettings.SPECS).oneRequired("prompt", "messages");

  @Override
  public NodeKindSpec spec() {
    return SPEC;
  }

  @Override
  public Set<String> resultFields() {
    return LlmSettings.RESULT_FIELDS;
  }

  @Override
  public NodeProgram compile(NodeConfig cfg) {
    LlmSettings settings = LlmSettings.compile(cfg);
    // output: key stores an llm node's whole reply (text, json, usage), not only its text.
    return new NodeProgram() {
      @Override
      public NodeOutcome execute(NodeContext ctx) {
        return LlmHandler.execute(ctx, settings);
      }

      @Override
      public boolean storesWholeResult() {
        return true;
      }
    };
  }

  private static NodeOutcome execute(NodeContext ctx, LlmSettings s) {
    LlmSettings.Opening o = s.open(ctx);
    RequestStep.record(ctx, o);
    LlmCalls.Result r = LlmCalls.call(ctx, o.spec(), s.pricing(), s.request(ctx, o, o.conversation(), List.of()),
        o.fresh(), s.mock());
    return s.outcome(ctx, o, r.text(), r.provider(), r.model(), r.mock(),
        Usage.ofCall(r.inputTokens(), r.outputTokens(), r.costUsd()), Map.of());
  }
}
