package dev.loopflow.llm;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.spi.BranchChooser;
import dev.loopflow.core.spi.ModelPrices;

/** Registers this module's services with the engine: the LLM branch chooser and the model prices. */
public final class LlmModule implements Loopflow.ServiceProvider {
  /** For ServiceLoader, which finds this module's services. */
  public LlmModule() {}

  @Override
  public void register(Loopflow.Registrar registrar) {
    registrar.service(BranchChooser.class, new LlmBranchChooser());
    registrar.service(ModelPrices.class, new WorkflowPrices());
  }
}
