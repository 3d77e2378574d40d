package dev.loopflow.core.load;

import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.NodeProgram;
import java.util.List;

/**
 * Stands in for the LLM module's {@code llm} kind so that core tests can load workflows that contain LLM nodes.
 * It validates like a real handler (its templates are compiled, so references are checked) and echoes the
 * rendered prompt as its {@code output} and {@code text} when run.
 */
final class StubLlmHandler implements NodeHandler {
  @Override
  public NodeKindSpec spec() {
    return NodeKindSpec.of("llm", null, List.of(FieldSpec.any("max_tokens", null), FieldSpec.any("messages", null),
        FieldSpec.any("model", null), FieldSpec.any("prompt", null), FieldSpec.any("provider", null),
        FieldSpec.any("system", null), FieldSpec.any("temperature", null)));
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
