package dev.loopflow.core.load;

import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.NodeProgram;
import java.util.Set;

/**
 * Stands in for the LLM module's {@code llm} kind so that core tests can load workflows that contain LLM nodes.
 * It validates like a real handler (its templates are compiled, so references are checked) and echoes the
 * rendered prompt as its {@code output} and {@code text} when run.
 */
final class StubLlmHandler implements NodeHandler {
  @Override
  public String kind() {
    return "llm";
  }

  @Override
  public Set<String> fields() {
    return Set.of("prompt", "messages", "system", "model", "provider", "temperature", "max_tokens");
  }

  @Override
  public NodeProgram compile(NodeConfig cfg) {
    var prompt = cfg.template("prompt");
    return ctx -> {
      String text = prompt == null ? "" : ctx.render(prompt);
      return NodeOutcome.of(text).with("text", text);
    };
  }
}
